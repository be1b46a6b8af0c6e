/**
 * The interactsh wire protocol, as public interactsh servers and `interactsh-server` speak it: a
 * client registers an RSA public key with a correlation id and a secret, gets its interactions by
 * polling, and forgets them by deregistering. Names under the server's domain carry the correlation
 * id followed by a nonce, so a callback is traced back to the client that made the name.
 */

/** Characters of a correlation id (an xid, lower-case base32hex). */
export const CORRELATION_ID_LENGTH = 20;
/** Characters of the nonce after the correlation id; id + nonce make one label of a callback name. */
export const NONCE_LENGTH = 13;
/** Characters of the label that names one callback. */
export const UNIQUE_ID_LENGTH = CORRELATION_ID_LENGTH + NONCE_LENGTH;

export interface RegisterRequest {
  /** Base64 of the PEM of the client's RSA public key (PKIX). */
  readonly 'public-key': string;
  readonly 'secret-key': string;
  readonly 'correlation-id': string;
}

export interface DeregisterRequest {
  readonly 'correlation-id': string;
  readonly 'secret-key': string;
}

export interface PollResponse {
  /** Interactions as JSON, each AES-256-CFB encrypted (IV first) and base64-encoded. */
  readonly data: readonly string[] | null;
  /** The AES key, RSA-OAEP (SHA-256) encrypted with the registered public key, base64. */
  readonly aes_key: string;
  readonly extra?: readonly string[] | null;
  readonly tlddata?: readonly string[] | null;
}

/** One callback a target made, as the server records it. */
export interface Interaction {
  readonly protocol: 'http' | 'dns' | 'smtp' | (string & {});
  /** The label that named the callback: correlation id + nonce. */
  readonly 'unique-id': string;
  /** Every label before the server's domain. */
  readonly 'full-id': string;
  readonly 'q-type'?: string;
  readonly 'raw-request': string;
  readonly 'raw-response': string;
  readonly 'smtp-from'?: string;
  readonly 'remote-address': string;
  readonly timestamp: string;
}

const ID_CHARS = /^[0-9a-z]+$/;

/**
 * The callback labels of `name` (a host name or a URL path): labels of at least
 * {@link UNIQUE_ID_LENGTH} characters, each read as correlation id + nonce.
 */
export function callbackLabels(name: string): { uniqueId: string; correlationId: string }[] {
  const out: { uniqueId: string; correlationId: string }[] = [];
  for (const label of name.toLowerCase().split(/[./?&=_\-\s]+/)) {
    if (label.length < UNIQUE_ID_LENGTH || !ID_CHARS.test(label)) continue;
    const uniqueId = label.slice(0, UNIQUE_ID_LENGTH);
    out.push({ uniqueId, correlationId: uniqueId.slice(0, CORRELATION_ID_LENGTH) });
  }
  return out;
}
