/**
 * Area 3, "Acme Admin": an operations console behind HTTP basic authentication.
 *
 * Planted weakness: the application's `.env` configuration file sits in the web root and is
 * served as is, with the database and mail credentials in it (all fake).
 */
import { methodNotAllowed, notFound, page, sameSecret, sendHtml, sendJson, sendText } from '../http.js';

export const ADMIN_CREDENTIALS = { username: 'ops', password: 'demo-admin-password' };

const DOTENV = `APP_NAME="Acme Admin"
APP_ENV=production
APP_KEY=base64:ZGVtby1hcHAta2V5LW5vdC1hLXJlYWwtc2VjcmV0
APP_DEBUG=false
APP_URL=https://admin.acme.test

DB_CONNECTION=mysql
DB_HOST=10.20.0.12
DB_PORT=3306
DB_DATABASE=acme_admin
DB_USERNAME=admin_rw
DB_PASSWORD=demo-db-password-1234

MAIL_MAILER=smtp
MAIL_HOST=smtp.acme.test
MAIL_USERNAME=alerts@acme.test
MAIL_PASSWORD=demo-mail-password
`;

/** The user name and password of a `Basic` Authorization header, or undefined. */
function basicCredentials(header) {
  const [scheme, encoded] = (header ?? '').split(' ');
  if (scheme?.toLowerCase() !== 'basic' || encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export function createAdminArea() {
  return (request, response, { path }) => {
    const given = basicCredentials(request.headers.authorization);
    const valid =
      given !== undefined &&
      sameSecret(given.username, ADMIN_CREDENTIALS.username) &&
      sameSecret(given.password, ADMIN_CREDENTIALS.password);
    if (!valid) {
      return sendJson(
        response,
        401,
        { error: 'authentication required' },
        {
          'WWW-Authenticate': 'Basic realm="Acme Admin", charset="UTF-8"',
        },
      );
    }
    if (request.method !== 'GET') return methodNotAllowed(response, 'GET');
    if (path === '/') {
      const body =
        '<h1>Acme Admin</h1>\n<p>Signed in as ops.</p>\n<ul><li>Users</li><li>Jobs</li><li>Audit log</li></ul>';
      return sendHtml(response, 200, page('Acme Admin', body));
    }
    if (path === '/.env') {
      // The weakness: a deployment copied the whole project folder into the web root.
      return sendText(response, 200, DOTENV);
    }
    return notFound(response);
  };
}
