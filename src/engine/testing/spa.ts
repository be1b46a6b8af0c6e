/**
 * A single-page app for browser logins: its page is an empty shell whose script builds the login
 * form, posts the credentials to a JSON API, asks for a one-time code in a second step, keeps the
 * access token in localStorage and calls its API with it as a bearer token. `beacon`, when given,
 * is a host outside the app the page also tries to reach (a tracker, handed the token): a browser
 * confined to the login's scope never gets there.
 */
import { decodeBase32, totp } from '../../secretfile/totp.js';
import { type FixtureServer, fixtureServer } from './server.js';

export const SPA_USER = 'alice@example.com';
export const SPA_PASSWORD = 's3cret-pa55';
/** The app's TOTP secret (base32), as an authenticator app shows it. */
export const SPA_TOTP_SECRET = 'JBSWY3DPEHPK3PXP';

export interface SpaApp extends FixtureServer {
  /** Access tokens handed out, in order. */
  readonly tokens: string[];
}

function shell(beacon: string | undefined): string {
  const tracker = beacon === undefined ? '' : JSON.stringify(beacon);
  return `<!doctype html>
<html><head><title>SPA</title></head><body><div id="app">loading…</div>
<script>
const app = document.getElementById('app');
const tracker = ${tracker || 'undefined'};
function view(html) { app.innerHTML = html; }
function loginStep() {
  view('<div class="card"><label>E-mail <input id="email" type="email" autocomplete="username"></label>' +
    '<label>Password <input id="pw" type="password"></label>' +
    '<button id="go" type="button">Sign in</button><p id="error"></p></div>');
  document.getElementById('go').onclick = async () => {
    const answer = await fetch('/api/login', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: document.getElementById('email').value, password: document.getElementById('pw').value }) });
    if (!answer.ok) { document.getElementById('error').textContent = 'wrong e-mail or password'; return; }
    codeStep((await answer.json()).ticket);
  };
}
function codeStep(ticket) {
  view('<div class="card"><label>Code from your app <input id="otp" inputmode="numeric" autocomplete="one-time-code"></label>' +
    '<button id="verify" type="button">Verify</button></div>');
  document.getElementById('verify').onclick = async () => {
    const answer = await fetch('/api/totp', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ticket, code: document.getElementById('otp').value }) });
    if (!answer.ok) { view('<p>code refused</p><input autocomplete="one-time-code">'); return; }
    const { access_token } = await answer.json();
    localStorage.setItem('access_token', access_token);
    sessionStorage.setItem('tab', 'dashboard');
    const me = await fetch('/api/me', { headers: { Authorization: 'Bearer ' + access_token } });
    view('<h1>Welcome</h1><p>' + (await me.text()) + '</p>');
    if (tracker !== undefined) {
      navigator.sendBeacon(tracker + '/beacon', access_token);
      fetch(tracker + '/collect?token=' + access_token).catch(() => {});
      const pixel = new Image(); pixel.src = tracker + '/pixel.gif?t=' + access_token; document.body.append(pixel);
    }
  };
}
setTimeout(loginStep, 150);
</script></body></html>`;
}

/** Starts the app; `beacon` is the origin of a tracker outside it the page calls after login. */
export async function spaApp(options: { beacon?: string } = {}): Promise<SpaApp> {
  const tokens: string[] = [];
  const tickets = new Set<string>();
  const usedCodes = new Set<string>();
  const key = decodeBase32(SPA_TOTP_SECRET);
  if ('problem' in key) throw new Error(key.problem);
  const json = (status: number, body: unknown) => ({
    status,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const server = await fixtureServer([
    {
      method: 'GET',
      path: '/',
      respond: { headers: { 'Content-Type': 'text/html' }, body: shell(options.beacon) },
    },
    {
      method: 'POST',
      path: '/api/login',
      respond: (r) => {
        const body = JSON.parse(r.body) as { email?: string; password?: string };
        if (body.email !== SPA_USER || body.password !== SPA_PASSWORD) return json(401, { error: 'bad' });
        const ticket = `ticket-${tickets.size + 1}`;
        tickets.add(ticket);
        return json(200, { ticket });
      },
    },
    {
      method: 'POST',
      path: '/api/totp',
      respond: (r) => {
        const body = JSON.parse(r.body) as { ticket?: string; code?: string };
        const now = Date.now();
        // The current code, or the one before it (a clock a little behind), each accepted once.
        const valid = [now, now - 30_000].map((t) =>
          totp(key, t, { digits: 6, periodSeconds: 30, algorithm: 'sha1' }),
        );
        if (
          !tickets.has(body.ticket ?? '') ||
          !valid.includes(body.code ?? '') ||
          usedCodes.has(body.code ?? '')
        )
          return json(401, { error: 'bad code' });
        usedCodes.add(body.code ?? '');
        tickets.delete(body.ticket ?? '');
        const token = `spa-at-${tokens.length + 1}-${Math.random().toString(36).slice(2, 10)}`;
        tokens.push(token);
        return json(200, { access_token: token });
      },
    },
    {
      path: /^\/api\/.*/,
      respond: (r) => {
        const token = r.headers.authorization?.replace(/^Bearer /, '') ?? '';
        return tokens.includes(token)
          ? json(200, { user: SPA_USER, admin: true })
          : json(401, { error: 'log in' });
      },
    },
  ]);
  return Object.assign(server, { tokens });
}
