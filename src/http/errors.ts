/**
 * Why an exchange failed, in words a scan report can show as is. The `kind` lets the engine decide
 * what to do (count the host as unresponsive on `connect`/`timeout`, report `malformed-response`
 * as a finding-less error, stop quietly on `aborted`).
 */
export type TransportErrorKind =
  | 'connect' // the connection could not be opened (refused, DNS, unreachable, TLS handshake)
  | 'timeout' // the per-request deadline passed
  | 'connection-lost' // the connection broke before the response was whole (its head or its body)
  | 'malformed-response' // the server answered with something that is not HTTP/1.x
  | 'invalid-request' // the request cannot be sent at all (bad host, bad port)
  | 'aborted'; // the caller's signal aborted the exchange

export type ExchangePhase = 'connecting' | 'sending' | 'waiting for the response head' | 'reading the body';

export class TransportError extends Error {
  override readonly name = 'TransportError';

  constructor(
    readonly kind: TransportErrorKind,
    readonly url: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${url}: ${detail}`, options);
  }
}

export function timeoutError(url: string, timeoutMs: number, phase: ExchangePhase): TransportError {
  return new TransportError('timeout', url, `timed out after ${timeoutMs} ms while ${phase}`);
}

export function abortedError(url: string, reason: unknown): TransportError {
  const why = reason instanceof Error ? reason.message : reason === undefined ? '' : String(reason);
  return new TransportError('aborted', url, why === '' ? 'aborted' : `aborted: ${why}`, { cause: reason });
}

const connectCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROXY', // the proxy could not be reached, or would not open the tunnel (see proxy.ts)
]);

/** Maps a socket error to a TransportError whose message says what happened. */
export function describeSocketError(url: string, error: unknown, responseStarted: boolean): TransportError {
  if (error instanceof TransportError) return error;
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  const written = code !== undefined && !message.includes(code) ? `${message} (${code})` : message;
  // nuclei's words for a name that does not resolve, which -ms users look for in `error`.
  const detail = code === 'ENOTFOUND' ? `no address found for host (${written})` : written;
  if (code !== undefined && (connectCodes.has(code) || code.startsWith('ERR_SSL') || code.includes('CERT'))) {
    return new TransportError('connect', url, `could not connect: ${detail}`, { cause: error });
  }
  const where = responseStarted ? 'while reading the body' : 'before a response arrived';
  return new TransportError('connection-lost', url, `connection lost ${where}: ${detail}`, { cause: error });
}

/** The connection ended inside a body its framing announced; `missing` says how much was lacking. */
export function bodyCutShortError(url: string, missing: string, cause: Error | undefined): TransportError {
  const how = cause === undefined ? 'the server closed the connection' : cause.message;
  return new TransportError(
    'connection-lost',
    url,
    `connection lost while reading the body (${how}): ${missing}`,
    {
      cause,
    },
  );
}

export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
