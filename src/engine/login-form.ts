import type { HttpResponse } from '../http/index.js';
import { type FormLoginSpec, type LoginValue, valueNow } from '../secretfile/index.js';
import { type FormControl, formsOf, type HtmlForm, hasPasswordField } from './html-forms.js';
import { bodyText, type LoginBrowser, requestTo } from './login-http.js';

export class FormLoginError extends Error {
  override readonly name = 'FormLoginError';
}

/**
 * Logs in with the login page's form: fetches the page, fills the form that has a password field
 * (or the one `form:` names) keeping its other fields (CSRF tokens), submits it as the page says,
 * and checks the outcome. `allowed` says whether credentials may go to a URL (the entry's scope and
 * the login page's host). The session values: `cookie.NAME` for every cookie the app now sends.
 */
export async function formLogin(
  spec: FormLoginSpec<LoginValue>,
  browser: LoginBrowser,
  allowed: (url: string) => string | undefined,
): Promise<Record<string, string>> {
  const url = String(spec.url);
  if (spec.json !== undefined) return jsonLogin(spec, spec.json, url, browser);
  const page = await browser.send(requestTo('GET', url));
  const html = bodyText(page);
  const form = chooseForm(formsOf(html), spec, page);
  const action = new URL(form.action === '' ? page.url : form.action, page.url).href;
  const refusal = allowed(action);
  if (refusal !== undefined)
    throw new FormLoginError(
      `the login form posts to ${new URL(action).host}, ${refusal}; nothing was sent there`,
    );
  const before = browser.cookiesFor(action);
  const fields = await filledFields(form, spec);
  const answer = await browser.send(submission(form, action, fields));
  return judge(spec, answer, before, browser);
}

function chooseForm(
  forms: readonly HtmlForm[],
  spec: FormLoginSpec<LoginValue>,
  page: HttpResponse,
): HtmlForm {
  const where = `${page.url} (status ${page.statusCode})`;
  if (spec.form !== undefined) {
    const wanted = spec.form;
    const found = forms.find(
      (f) => f.id === wanted || f.name === wanted || (f.action !== '' && f.action.includes(wanted)),
    );
    if (found !== undefined) return found;
    throw new FormLoginError(
      `no form with the id, name or action "${wanted}" at ${where}; it has ${describeForms(forms)}`,
    );
  }
  const withPassword = forms.filter((f) => f.controls.some((c) => c.type === 'password'));
  const first = withPassword[0];
  if (first !== undefined) return first;
  throw new FormLoginError(
    `no login form at ${where}: ${forms.length === 0 ? 'the page has no form' : `none of its forms has a password field (${describeForms(forms)})`}; if the form is built by JavaScript, add browser: true to log in with Chromium, or give login: json: for a JSON login API`,
  );
}

function describeForms(forms: readonly HtmlForm[]): string {
  if (forms.length === 0) return 'no form';
  return forms.map((f) => `form ${f.id || f.name || f.action || '(unnamed)'}`).join(', ');
}

const USERNAME_HINT = /user|login|email|mail|account|name|ident/i;
const TOTP_HINT = /otp|totp|code|2fa|mfa|token/i;

/** The fields sent: the form's own (hidden ones kept), with the credentials filled in. */
async function filledFields(form: HtmlForm, spec: FormLoginSpec<LoginValue>): Promise<[string, string][]> {
  const controls = form.controls.filter((c) => c.name !== '');
  const wantTotp = spec.totp !== undefined;
  const chosen = loginFields(controls, spec.fields, { username: true, password: true, totp: wantTotp });
  const { username, password, totp: totpField } = chosen;
  if (password === undefined) throw new FormLoginError('the form has no password field to fill');
  if (username === undefined) throw new FormLoginError('the form has no field for the username');
  if (wantTotp && totpField === undefined)
    throw new FormLoginError(
      'the form has no field for the one-time code; name it with fields: {totp: NAME}',
    );
  const filled = new Map<FormControl, string>([
    [username, await valueNow(spec.username)],
    [password, await valueNow(spec.password)],
  ]);
  if (totpField !== undefined && spec.totp !== undefined) filled.set(totpField, await valueNow(spec.totp));
  let submitted = false;
  const out: [string, string][] = [];
  for (const control of controls) {
    const value = filled.get(control);
    if (value !== undefined) out.push([control.name, value]);
    else if (control.type === 'submit' || control.type === 'image') {
      // A browser sends the one button clicked: the first.
      if (!submitted) out.push([control.name, control.value]);
      submitted = true;
    } else if (control.type === 'checkbox' || control.type === 'radio') {
      if (control.checked) out.push([control.name, control.value || 'on']);
    } else if (!['button', 'reset', 'file'].includes(control.type)) out.push([control.name, control.value]);
  }
  return out;
}

/** Which of a step's controls take the username, the password and the one-time code. */
export interface LoginFields<C> {
  readonly username: C | undefined;
  readonly password: C | undefined;
  readonly totp: C | undefined;
}

/**
 * Finds the fields of a login step among its controls: the password field (first of type
 * password, or the one `fields:` names); the username field (`autocomplete` username or email,
 * else type email, else a name or id that speaks of a user, else the first text field); the
 * one-time-code field (`autocomplete="one-time-code"`, else a name like otp or code). `want` says
 * which to look for; a field `fields:` names that the controls lack is an error.
 */
export function loginFields<C extends FormControl>(
  controls: readonly C[],
  names: FormLoginSpec<LoginValue>['fields'],
  want: { readonly username: boolean; readonly password: boolean; readonly totp: boolean },
): LoginFields<C> {
  const password = want.password
    ? (pick(controls, names.password, 'password') ?? controls.find((c) => c.type === 'password'))
    : undefined;
  const texts = controls.filter((c) => c !== password && ['text', 'email', 'tel', ''].includes(c.type));
  const totp = want.totp
    ? (pick(controls, names.totp, 'totp') ??
      controls.find((c) => c.autocomplete === 'one-time-code') ??
      texts.find((c) => TOTP_HINT.test(c.name) || TOTP_HINT.test(c.id)))
    : undefined;
  const candidates = texts.filter((c) => c !== totp);
  const username = want.username
    ? (pick(controls, names.username, 'username') ??
      candidates.find(
        (c) => c.autocomplete === 'username' || c.autocomplete === 'email' || c.type === 'email',
      ) ??
      candidates.find((c) => USERNAME_HINT.test(c.name) || USERNAME_HINT.test(c.id)) ??
      candidates[0])
    : undefined;
  return { username, password, totp };
}

function pick<C extends FormControl>(
  controls: readonly C[],
  name: string | undefined,
  what: string,
): C | undefined {
  if (name === undefined) return undefined;
  const found = controls.find((c) => c.name === name);
  if (found === undefined) {
    const names = controls.map((c) => c.name).join(', ');
    throw new FormLoginError(
      `the form has no field named "${name}" (fields: ${what}); its fields are: ${names}`,
    );
  }
  return found;
}

function submission(form: HtmlForm, action: string, fields: readonly [string, string][]) {
  if (form.method !== 'POST') {
    const url = new URL(action);
    url.search = new URLSearchParams(fields.map(([name, value]) => [name, value])).toString();
    return requestTo('GET', url.href);
  }
  if (form.enctype === 'multipart/form-data') {
    const boundary = `----keyhole${Math.random().toString(16).slice(2)}`;
    const parts = fields.map(
      ([name, value]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/"/g, '%22')}"\r\n\r\n${value}\r\n`,
    );
    return requestTo(
      'POST',
      action,
      [['Content-Type', `multipart/form-data; boundary=${boundary}`]],
      `${parts.join('')}--${boundary}--\r\n`,
    );
  }
  const body = new URLSearchParams(fields.map(([name, value]) => [name, value])).toString();
  return requestTo('POST', action, [['Content-Type', 'application/x-www-form-urlencoded']], body);
}

const CSRF_HINT = /csrf|xsrf|token (is )?(invalid|expired|mismatch)|page has expired|request forgery/i;

/** Whether the answer shows a session; why not when it does not. */
function judge(
  spec: FormLoginSpec<LoginValue>,
  answer: HttpResponse,
  before: ReadonlyMap<string, string>,
  browser: LoginBrowser,
): Record<string, string> {
  const html = bodyText(answer);
  const cookies = browser.cookiesFor(answer.url);
  const fresh = [...cookies].filter(([name, value]) => before.get(name) !== value);
  const at = `${answer.url} (status ${answer.statusCode})`;
  const success = spec.success;
  if (success !== undefined) {
    const problems: string[] = [];
    if (success.status.length > 0 && !success.status.includes(answer.statusCode))
      problems.push(`its status is ${answer.statusCode}, not ${success.status.join(' or ')}`);
    if (success.regex !== undefined && !success.regex.test(html))
      problems.push(`it does not match /${success.regex.source}/`);
    if (success.url !== undefined && !success.url.test(answer.url))
      problems.push(`its URL does not match /${success.url.source}/`);
    if (success.cookie !== undefined && !cookies.has(success.cookie))
      problems.push(`it set no cookie ${success.cookie}`);
    if (problems.length > 0)
      throw new FormLoginError(
        `the login did not succeed: the page after it, ${at}: ${problems.join('; ')}${whyHint(answer, html)}`,
      );
  } else {
    if ([403, 419].includes(answer.statusCode) && CSRF_HINT.test(html))
      throw new FormLoginError(
        `the app refused the form's CSRF token, ${at}; if the token is made by JavaScript, add browser: true to log in with Chromium`,
      );
    if (hasPasswordField(html))
      throw new FormLoginError(
        `the login form was shown again after submitting, ${at}: the username or password is probably wrong${whyHint(answer, html)}`,
      );
    if (answer.statusCode >= 400) throw new FormLoginError(`the login was answered with an error, ${at}`);
    if (fresh.length === 0)
      throw new FormLoginError(
        `the login set no new cookie, ${at}; say what shows success with success: {status, regex, url, cookie}`,
      );
  }
  return Object.fromEntries([...cookies].map(([name, value]) => [`cookie.${name}`, value]));
}

function whyHint(answer: HttpResponse, html: string): string {
  if ([403, 419].includes(answer.statusCode) && CSRF_HINT.test(html))
    return ' (the page speaks of a CSRF token: it was refused)';
  return '';
}

/** A JSON login API: the body template filled (values JSON-escaped), the token found by its path. */
async function jsonLogin(
  spec: FormLoginSpec<LoginValue>,
  json: NonNullable<FormLoginSpec<LoginValue>['json']>,
  url: string,
  browser: LoginBrowser,
): Promise<Record<string, string>> {
  const values: Record<string, string> = {
    username: await valueNow(spec.username),
    password: await valueNow(spec.password),
    ...(spec.totp === undefined ? {} : { totp: await valueNow(spec.totp) }),
  };
  const body = json.body.replace(/\{\{\s*(username|password|totp)\s*\}\}/g, (whole, name: string) =>
    values[name] === undefined ? whole : JSON.stringify(values[name]).slice(1, -1),
  );
  const answer = await browser.send(
    requestTo(
      'POST',
      url,
      [
        ['Content-Type', 'application/json'],
        ['Accept', 'application/json'],
      ],
      body,
    ),
  );
  const at = `${answer.url} (status ${answer.statusCode})`;
  if (answer.statusCode >= 400)
    throw new FormLoginError(`the JSON login was refused, ${at}: the username or password is probably wrong`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText(answer));
  } catch {
    throw new FormLoginError(`the JSON login did not answer with JSON, ${at}`);
  }
  const out: Record<string, string> = {};
  if (typeof parsed === 'object' && parsed !== null)
    for (const [name, value] of Object.entries(parsed))
      if (typeof value === 'string' || typeof value === 'number') out[name] = String(value);
  if (json.token !== undefined) {
    const token = atPath(parsed, json.token);
    if (typeof token !== 'string' || token === '')
      throw new FormLoginError(
        `the JSON login answer has no text at ${json.token}, ${at}; its top-level keys: ${Object.keys(out).join(', ') || 'none'}`,
      );
    out.token = token;
  }
  for (const [name, value] of browser.cookiesFor(answer.url)) out[`cookie.${name}`] = value;
  return out;
}

/** `data.token`, `$.data.token`, `items[0].token`. */
function atPath(value: unknown, path: string): unknown {
  const steps = path.replace(/^\$\.?/, '').match(/[^.[\]]+/g) ?? [];
  let current = value;
  for (const step of steps) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}
