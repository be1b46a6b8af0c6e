/**
 * Area 1, "Acme Notes": a web application behind a login form.
 *
 * - GET /login sets a pre-session cookie and shows a form with a hidden CSRF token bound to it.
 * - POST /login (username, password, csrf) sets the `session` cookie and redirects to /.
 * - Without a session, pages redirect to /login and the JSON API answers 401.
 *
 * Planted weakness: GET /api/users/{id} returns any user's record to any logged-in user: it never
 * checks that the record is the caller's own (an IDOR, broken object-level authorization).
 */
import {
  cookiesOf,
  escapeHtml,
  methodNotAllowed,
  newToken,
  notFound,
  page,
  readBody,
  remember,
  sameSecret,
  sendHtml,
  sendJson,
} from '../http.js';

export const NOTES_CREDENTIALS = { username: 'alice', password: 'wonderland' };

const USERS = [
  {
    id: 1001,
    username: 'dana',
    name: 'Dana Whitfield',
    email: 'dana.whitfield@acme-notes.test',
    role: 'admin',
    phone: '+1-555-0100',
  },
  {
    id: 1002,
    username: NOTES_CREDENTIALS.username,
    name: 'Alice Liddell',
    email: 'alice@acme-notes.test',
    role: 'member',
    phone: '+1-555-0142',
  },
  {
    id: 1003,
    username: 'bob',
    name: 'Bob Marsh',
    email: 'bob.marsh@acme-notes.test',
    role: 'member',
    phone: '+1-555-0173',
  },
];

const ALICE = USERS[1];

const NOTES = [
  { owner: 1002, title: 'Quarterly planning', text: 'Draft the Q3 roadmap before Friday.' },
  { owner: 1002, title: 'Groceries', text: 'Tea, jam, tarts.' },
];

const COOKIE_FLAGS = 'Path=/; HttpOnly; SameSite=Lax';

export function createNotesArea() {
  /** pre-session id → CSRF token, for forms that were shown but not yet posted */
  const pending = new Map();
  /** session id → user id */
  const sessions = new Map();

  const sessionUser = (request) => {
    const id = sessions.get(cookiesOf(request).get('session') ?? '');
    return USERS.find((user) => user.id === id);
  };

  const showLoginForm = (response, { error, status = 200 } = {}) => {
    const preSession = newToken();
    const csrf = newToken();
    remember(pending, preSession, csrf);
    const message = error === undefined ? '' : `<p class="error">${escapeHtml(error)}</p>\n`;
    const form = `<h1>Acme Notes</h1>
${message}<form method="post" action="/login">
  <input type="hidden" name="csrf" value="${csrf}">
  <label>Username <input name="username" autocomplete="username"></label>
  <label>Password <input name="password" type="password" autocomplete="current-password"></label>
  <button type="submit">Sign in</button>
</form>`;
    sendHtml(response, status, page('Sign in - Acme Notes', form), {
      'Set-Cookie': `presession=${preSession}; ${COOKIE_FLAGS}`,
      'Cache-Control': 'no-store',
    });
  };

  const logIn = async (request, response) => {
    const body = await readBody(request);
    if (body === undefined) return sendJson(response, 413, { error: 'request body too large' });
    const form = new URLSearchParams(body);
    const preSession = cookiesOf(request).get('presession') ?? '';
    const expectedCsrf = pending.get(preSession);
    if (expectedCsrf === undefined || !sameSecret(form.get('csrf') ?? '', expectedCsrf)) {
      return showLoginForm(response, { status: 403, error: 'Your form expired. Please sign in again.' });
    }
    pending.delete(preSession);
    // Only alice has a password in this demo; the other users exist to be found through the weakness.
    const valid =
      form.get('username') === NOTES_CREDENTIALS.username &&
      sameSecret(form.get('password'), NOTES_CREDENTIALS.password);
    if (!valid) return showLoginForm(response, { error: 'Wrong username or password.' });
    const session = newToken();
    remember(sessions, session, ALICE.id);
    sendHtml(response, 302, '', { Location: '/', 'Set-Cookie': `session=${session}; ${COOKIE_FLAGS}` });
  };

  const home = (response, user) => {
    const notes = NOTES.filter((note) => note.owner === user.id)
      .map((note) => `  <li><strong>${escapeHtml(note.title)}</strong>: ${escapeHtml(note.text)}</li>`)
      .join('\n');
    const body = `<h1>Acme Notes</h1>
<p>Signed in as ${escapeHtml(user.name)} (<a href="/logout">sign out</a>)</p>
<ul>
${notes}
</ul>`;
    sendHtml(response, 200, page('Acme Notes', body));
  };

  return async (request, response, { path }) => {
    if (path === '/login') {
      if (request.method === 'GET') return showLoginForm(response);
      if (request.method === 'POST') return logIn(request, response);
      return methodNotAllowed(response, 'GET, POST');
    }
    const user = sessionUser(request);
    if (user === undefined) {
      if (path.startsWith('/api/')) return sendJson(response, 401, { error: 'not signed in' });
      return sendHtml(response, 302, '', { Location: '/login' });
    }
    if (request.method !== 'GET') return methodNotAllowed(response, 'GET');
    if (path === '/') return home(response, user);
    if (path === '/logout') {
      sessions.delete(cookiesOf(request).get('session'));
      return sendHtml(response, 302, '', {
        Location: '/login',
        'Set-Cookie': `session=; Max-Age=0; ${COOKIE_FLAGS}`,
      });
    }
    if (path === '/api/me') return sendJson(response, 200, user);
    const record = /^\/api\/users\/(\d{1,9})$/.exec(path);
    if (record !== null) {
      // The weakness: any signed-in user gets any record; the id is never compared with `user.id`.
      const found = USERS.find((u) => u.id === Number(record[1]));
      return found === undefined ? notFound(response) : sendJson(response, 200, found);
    }
    return notFound(response);
  };
}
