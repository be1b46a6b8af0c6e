import type { Logger } from 'pino';
import { REDACTED } from '../secretfile/index.js';
import { API_KEY_PREFIX } from '../store/index.js';
import { ExportQuery, ResultsQuery } from './routes/results-schemas.js';
import { AssetsQuery, RetestQuery, ScansQuery } from './schemas.js';

/** The API's own query parameters: none holds a secret, so their values are logged. */
const LOGGED_PARAMETERS: ReadonlySet<string> = new Set(
  [ScansQuery, AssetsQuery, RetestQuery, ResultsQuery, ExportQuery].flatMap((schema) =>
    Object.keys(schema.properties),
  ),
);

/** Text that starts like an API key, its `_` written as is or percent-encoded. */
const API_KEY_TEXT = new RegExp(`${API_KEY_PREFIX.replace('_', '(?:_|%5f)')}[\\w%-]+`, 'gi');

/** Headers that carry credentials, should anything log a request's headers. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'x-api-key', 'cookie'];

/**
 * A request's URL as the log shows it: its path, and the values of the API's own query
 * parameters. Any other parameter, which a client may have used to send a key
 * (`?api_key=…`), is shown as `[REDACTED]`, name and value; and anything shaped like an API key,
 * in the path too, as `kh_[REDACTED]`.
 */
export function urlForLog(url: string): string {
  const queryAt = url.indexOf('?');
  const shown =
    queryAt === -1
      ? url
      : `${url.slice(0, queryAt)}?${url
          .slice(queryAt + 1)
          .split('&')
          .map((pair) => (LOGGED_PARAMETERS.has(nameOf(pair)) ? pair : REDACTED))
          .join('&')}`;
  return shown.replace(API_KEY_TEXT, `${API_KEY_PREFIX}${REDACTED}`);
}

function nameOf(pair: string): string {
  const name = pair.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}

interface LoggedRequest {
  readonly method: string;
  readonly url: string;
  readonly host?: string;
  readonly ip?: string;
  readonly socket?: { readonly remotePort?: number };
}

/** A request in the log: no header, and its URL through {@link urlForLog}. */
function requestForLog(request: LoggedRequest) {
  return {
    method: request.method,
    url: urlForLog(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * The logger the API writes to, whatever logger it was given: requests are logged through
 * {@link requestForLog}, and credential headers are censored should anything log them.
 */
export function apiLogger(base: Logger): Logger {
  return base.child(
    {},
    {
      serializers: { req: requestForLog },
      redact: {
        paths: CREDENTIAL_HEADERS.flatMap((name) => [`req.headers["${name}"]`, `headers["${name}"]`]),
        censor: REDACTED,
      },
    },
  );
}
