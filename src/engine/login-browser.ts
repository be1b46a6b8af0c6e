import type { BrowserDestination, ConfinedBrowser } from '../browser/index.js';
import type { BrowserLoginSpec, FormSuccess, LoginValue } from '../secretfile/index.js';
import { valueNow } from '../secretfile/index.js';
import type { FormControl } from './html-forms.js';
import { FormLoginError, loginFields } from './login-form.js';

/** A control of the page as the browser shows it: where it is, and whether a person can see it. */
interface PageControl extends FormControl {
  readonly index: number;
  /** Which form of the page holds it; -1: none. */
  readonly form: number;
  readonly visible: boolean;
  /** A button's text. */
  readonly text: string;
}

export interface BrowserLoginOptions {
  /** How long one step may take: the page to load, its scripts to settle after a click. */
  readonly stepTimeoutMs: number;
  /** Why the page may not go to a destination (it is outside the login's scope). */
  readonly outside: (to: BrowserDestination) => string;
}

/** A page that has had no request in flight this long has done what the last action started. */
const QUIET_MS = 400;
/** Username, password, one-time code, and one more for an app that asks for them one by one. */
const MAX_STEPS = 4;

/**
 * Logs in in a real browser: opens the page, waits for its login form (built by JavaScript or
 * not), fills it as a form login does, answers a one-time-code step, and checks the outcome. The
 * session values: `cookie.NAME` (the cookies the page's URL gets), `local.NAME` and
 * `session.NAME` (the page's localStorage and sessionStorage).
 */
export async function browserLogin(
  spec: BrowserLoginSpec<LoginValue>,
  browser: ConfinedBrowser,
  options: BrowserLoginOptions,
): Promise<Record<string, string>> {
  const page = browser.page;
  let status: number | undefined;
  page.on('response', (response) => {
    if (response.request().isNavigationRequest() && response.frame() === page.mainFrame())
      status = response.status();
  });
  const url = String(spec.url);
  try {
    await page.goto(url, { timeout: options.stepTimeoutMs, waitUntil: 'load' });
  } catch (error) {
    refusedNavigation(browser, options);
    throw new FormLoginError(`the login page ${url} did not open: ${firstLine(error)}`);
  }
  const before = await captured(browser);
  const sent = await fillSteps(spec, browser, options);
  refusedNavigation(browser, options);
  const controls = await visibleControls(browser);
  const after = await captured(browser);
  const at = `${page.url()}${status === undefined ? '' : ` (status ${status})`}`;
  if (spec.success !== undefined) await checkSuccess(spec.success, browser, status, after, at);
  else judgeByDefault(controls, sent, status, before, after, at);
  return after;
}

/** What was filled in and submitted. */
interface Sent {
  username: boolean;
  password: boolean;
  totp: boolean;
}

/** Fills and submits each step the page shows, until it shows none that keyhole can answer. */
async function fillSteps(
  spec: BrowserLoginSpec<LoginValue>,
  browser: ConfinedBrowser,
  options: BrowserLoginOptions,
): Promise<Sent> {
  const sent: Sent = { username: false, password: false, totp: false };
  const wantTotp = spec.totp !== undefined;
  for (let step = 0; step < MAX_STEPS; step++) {
    await browser.settled(QUIET_MS, options.stepTimeoutMs);
    refusedNavigation(browser, options);
    let controls = await visibleControls(browser);
    if (!sent.password && !controls.some((c) => c.type === 'password') && step === 0) {
      // A form built by JavaScript may come after the page's requests have settled.
      await waitForPassword(browser, options.stepTimeoutMs);
      controls = await visibleControls(browser);
    }
    const hasPassword = controls.some((c) => c.type === 'password');
    if (hasPassword && sent.password) return sent;
    if (hasPassword) {
      const fields = loginFields(controls, spec.fields, { username: true, password: true, totp: wantTotp });
      if (fields.password === undefined) throw new FormLoginError('the page has no password field to fill');
      await fill(browser, fields.username, spec.username);
      await fill(browser, fields.password, spec.password);
      if (fields.totp !== undefined && spec.totp !== undefined) {
        await fill(browser, fields.totp, spec.totp);
        sent.totp = true;
      }
      sent.username ||= fields.username !== undefined;
      sent.password = true;
      await submit(browser, controls, fields.password);
      continue;
    }
    if (sent.password && wantTotp && !sent.totp) {
      const field = totpField(controls, spec);
      if (field === undefined) return sent;
      await fill(browser, field, spec.totp);
      sent.totp = true;
      await submit(browser, controls, field);
      continue;
    }
    if (!sent.password && !sent.username) {
      // An app that asks for the username first, then for the password on a page of its own.
      const { username } = loginFields(controls, spec.fields, {
        username: true,
        password: false,
        totp: false,
      });
      if (username === undefined) return sent;
      await fill(browser, username, spec.username);
      sent.username = true;
      await submit(browser, controls, username);
      continue;
    }
    return sent;
  }
  return sent;
}

function totpField(
  controls: readonly PageControl[],
  spec: BrowserLoginSpec<LoginValue>,
): PageControl | undefined {
  const names = { username: undefined, password: undefined, totp: spec.fields.totp };
  const { totp } = loginFields(controls, names, { username: false, password: false, totp: true });
  if (totp !== undefined) return totp;
  // A step that asks for one thing only: the code.
  const texts = controls.filter((c) => c.tag === 'input' && ['text', 'tel', 'number', ''].includes(c.type));
  return texts.length === 1 ? texts[0] : undefined;
}

async function waitForPassword(browser: ConfinedBrowser, timeoutMs: number): Promise<void> {
  await browser.page
    .waitForSelector('input[type=password]', { state: 'visible', timeout: timeoutMs })
    .catch(() => undefined);
  await browser.settled(QUIET_MS, timeoutMs);
}

/** The page went somewhere outside the scope: the login stops there, saying where. */
function refusedNavigation(browser: ConfinedBrowser, options: BrowserLoginOptions): void {
  const refused = browser.refusals().find((r) => r.navigation);
  if (refused !== undefined) throw new FormLoginError(options.outside(refused.destination));
}

const CONTROLS = 'input, select, textarea, button';

/** The page's visible controls (main frame), in document order. */
async function visibleControls(browser: ConfinedBrowser): Promise<PageControl[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await browser.page
        .$$eval(CONTROLS, (elements) =>
          elements.map((element, index) => {
            const el = element as HTMLInputElement;
            const box = el.getBoundingClientRect();
            const style = getComputedStyle(el);
            const tag = el.tagName.toLowerCase();
            const rawType = (el.getAttribute('type') ?? '').toLowerCase();
            const type = tag === 'button' ? rawType || 'submit' : tag === 'input' ? rawType || 'text' : tag;
            return {
              index,
              tag: tag as 'input',
              type,
              name: el.getAttribute('name') ?? '',
              id: el.id,
              autocomplete: (el.getAttribute('autocomplete') ?? '').toLowerCase(),
              value: '',
              checked: el.checked === true,
              form: el.form === null ? -1 : Array.from(document.forms).indexOf(el.form),
              visible:
                box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none',
              // A button's words; never a field's value (the password typed in).
              text: (tag === 'button' ? el.innerText : type === 'submit' ? el.value : '').trim().slice(0, 80),
            };
          }),
        )
        .then((all) => all.filter((c) => c.visible && c.type !== 'hidden'));
    } catch (error) {
      // The page navigated while it was read: read the new one.
      if (attempt >= 3) throw error;
      await browser.page.waitForLoadState('load').catch(() => undefined);
    }
  }
}

async function fill(
  browser: ConfinedBrowser,
  control: PageControl | undefined,
  value: LoginValue | undefined,
) {
  if (control === undefined || value === undefined) return;
  await browser.page
    .locator(CONTROLS)
    .nth(control.index)
    .fill(await valueNow(value));
}

const SUBMIT_TEXT = /log ?in|sign ?in|continue|next|submit|verify|confirm|anmelden|connexion/i;

/**
 * Submits the step as a person would: the submit button of the field's form, else a button that
 * says so, else Enter in the field.
 */
async function submit(browser: ConfinedBrowser, controls: readonly PageControl[], field: PageControl) {
  const buttons = controls.filter((c) => c.type === 'submit' || c.type === 'image' || c.tag === 'button');
  const button =
    (field.form >= 0 ? buttons.find((b) => b.form === field.form && b.type === 'submit') : undefined) ??
    buttons.find((b) => SUBMIT_TEXT.test(b.text));
  const locator = browser.page.locator(CONTROLS);
  if (button !== undefined) await locator.nth(button.index).click({ noWaitAfter: true });
  else await locator.nth(field.index).press('Enter', { noWaitAfter: true });
}

/** The session: cookies the page's URL gets, its localStorage and sessionStorage. */
async function captured(browser: ConfinedBrowser): Promise<Record<string, string>> {
  const page = browser.page;
  const values: Record<string, string> = {};
  for (const cookie of await browser.context.cookies(page.url()))
    values[`cookie.${cookie.name}`] = cookie.value;
  const storage = await page
    .evaluate(() => ({ local: Object.entries(localStorage), session: Object.entries(sessionStorage) }))
    .catch(() => ({ local: [], session: [] }));
  for (const [name, value] of storage.local) values[`local.${name}`] = value;
  for (const [name, value] of storage.session) values[`session.${name}`] = value;
  return values;
}

/** Without `success:`: not back on a password form, no error page, and something new kept. */
function judgeByDefault(
  controls: readonly PageControl[],
  sent: Sent,
  status: number | undefined,
  before: Record<string, string>,
  after: Record<string, string>,
  at: string,
): void {
  if (!sent.password && !sent.username)
    throw new FormLoginError(
      `no login form at ${at}: no password field appeared${describeControls(controls)}; if the form is in a frame or needs a click to show, log in with a login template`,
    );
  if (controls.some((c) => c.type === 'password'))
    throw new FormLoginError(
      `the login form was shown again after submitting, at ${at}: the username or password is probably wrong`,
    );
  if (!sent.password)
    throw new FormLoginError(`the login asked for the username and then for no password, at ${at}`);
  if (sent.totp && controls.some((c) => c.autocomplete === 'one-time-code'))
    throw new FormLoginError(
      `the one-time-code field was shown again after submitting, at ${at}: the code was refused`,
    );
  if (status !== undefined && status >= 400)
    throw new FormLoginError(`the login was answered with an error, at ${at}`);
  const fresh = Object.entries(after).filter(([name, value]) => before[name] !== value);
  if (fresh.length === 0)
    throw new FormLoginError(
      `the login set no cookie and stored nothing, at ${at}; say what shows success with success: {status, regex, url, cookie}`,
    );
}

async function checkSuccess(
  success: FormSuccess,
  browser: ConfinedBrowser,
  status: number | undefined,
  after: Record<string, string>,
  at: string,
): Promise<void> {
  const problems: string[] = [];
  if (success.status.length > 0 && (status === undefined || !success.status.includes(status)))
    problems.push(`its status is ${status ?? 'unknown'}, not ${success.status.join(' or ')}`);
  if (success.regex !== undefined && !success.regex.test(await browser.page.content()))
    problems.push(`it does not match /${success.regex.source}/`);
  if (success.url !== undefined && !success.url.test(browser.page.url()))
    problems.push(`its URL does not match /${success.url.source}/`);
  if (success.cookie !== undefined && after[`cookie.${success.cookie}`] === undefined)
    problems.push(`it set no cookie ${success.cookie}`);
  if (problems.length > 0)
    throw new FormLoginError(`the login did not succeed: the page after it, ${at}: ${problems.join('; ')}`);
}

function describeControls(controls: readonly PageControl[]): string {
  const named = controls.filter((c) => c.tag !== 'button').map((c) => c.name || c.id || c.type);
  return named.length === 0 ? ' (the page shows no field)' : ` (its fields: ${named.join(', ')})`;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]?.trim() ?? message;
}
