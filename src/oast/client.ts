import { randomBytes, randomUUID } from 'node:crypto';
import { type ClientKeys, decryptKey, decryptMessage, generateClientKeys } from './crypto.js';
import { CORRELATION_ID_LENGTH, type Interaction, NONCE_LENGTH, type PollResponse } from './protocol.js';

/** Why talking to the interactsh server failed, said for the user. */
export class OastClientError extends Error {}

export interface OastClientOptions {
  /** The server's API, `https://oast.fun` or `http://10.0.0.5:8080`; a bare name means https. */
  readonly server: string;
  /**
   * The domain callback names end with; when absent, the one keyhole's server says it has, else the
   * server's host name (as a public interactsh server's).
   */
  readonly domain?: string;
  readonly token?: string;
  /** Milliseconds one API call may take. */
  readonly timeoutMs?: number;
}

/**
 * One registration with an interactsh server: callback names for this client, and the
 * interactions they received, decrypted.
 */
export class OastClient {
  #domain: string;
  readonly #domainGiven: boolean;
  readonly correlationId = randomId(CORRELATION_ID_LENGTH, 'base32hex');
  readonly #secret = randomUUID();
  readonly #keys: ClientKeys;
  readonly #api: URL;
  readonly #token: string | undefined;
  readonly #timeoutMs: number;
  #aes: { encrypted: string; key: Buffer } | undefined;

  private constructor(options: OastClientOptions, keys: ClientKeys) {
    this.#api = serverUrl(options.server);
    this.#domain = domainName(options.domain ?? this.#api.hostname);
    this.#domainGiven = options.domain !== undefined;
    this.#token = options.token;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#keys = keys;
  }

  /** Registers a new client with the server. */
  static async register(
    options: OastClientOptions,
    keys: ClientKeys = generateClientKeys(),
  ): Promise<OastClient> {
    const client = new OastClient(options, keys);
    const answer = await client.call('POST', '/register', {
      'public-key': keys.publicKeyText,
      'secret-key': client.#secret,
      'correlation-id': client.correlationId,
    });
    const said = (answer as { domain?: unknown } | null)?.domain;
    if (!client.#domainGiven && typeof said === 'string' && /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(said)) {
      client.#domain = domainName(said);
    }
    return client;
  }

  /** The domain callback names end with. */
  get domain(): string {
    return this.#domain;
  }

  get server(): string {
    return this.#api.origin;
  }

  /** A new callback name: correlation id and a fresh nonce, under the domain. */
  newName(): { host: string; uniqueId: string } {
    const uniqueId = `${this.correlationId}${randomId(NONCE_LENGTH, 'alnum')}`;
    return { host: `${uniqueId}.${this.domain}`, uniqueId };
  }

  /** The interactions recorded since the last poll. */
  async poll(): Promise<Interaction[]> {
    const query = `?id=${encodeURIComponent(this.correlationId)}&secret=${encodeURIComponent(this.#secret)}`;
    const answer = (await this.call('GET', `/poll${query}`)) as Partial<PollResponse>;
    const data = Array.isArray(answer.data) ? answer.data : [];
    if (data.length === 0) return [];
    if (typeof answer.aes_key !== 'string')
      throw new OastClientError(`${this.server} answered a poll without a key`);
    const key = this.aesKey(answer.aes_key);
    const out: Interaction[] = [];
    for (const item of data) {
      const interaction = readInteraction(decryptMessage(key, item));
      if (interaction !== undefined) out.push(interaction);
    }
    return out;
  }

  async deregister(): Promise<void> {
    await this.call('POST', '/deregister', {
      'correlation-id': this.correlationId,
      'secret-key': this.#secret,
    });
  }

  private aesKey(encrypted: string): Buffer {
    if (this.#aes?.encrypted !== encrypted) {
      try {
        this.#aes = { encrypted, key: decryptKey(this.#keys.privateKey, encrypted) };
      } catch {
        throw new OastClientError(`${this.server} answered a poll with a key this client cannot decrypt`);
      }
    }
    return this.#aes.key;
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (this.#token !== undefined) headers.Authorization = this.#token;
    const url = new URL(path, this.#api);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw new OastClientError(`cannot reach the interactsh server ${this.server}: ${causeOf(error)}`);
    }
    const text = await response.text().catch(() => '');
    if (response.status === 401) {
      throw new OastClientError(
        `the interactsh server ${this.server} refused the token (give it with -itoken)`,
      );
    }
    if (!response.ok) {
      const said = errorOf(text);
      throw new OastClientError(
        `the interactsh server ${this.server} answered ${response.status}${said ? `: ${said}` : ''}`,
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new OastClientError(
        `the interactsh server ${this.server} answered ${path.split('?')[0]} with something other than JSON`,
      );
    }
  }
}

/** `-iserver` as written: a URL, or a host (`oast.fun`, `10.0.0.5:8080`) reached over https. */
export function serverUrl(server: string): URL {
  const text = server.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new OastClientError(
      `"${server}" is not an interactsh server; give a host such as oast.fun or a URL`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OastClientError(`"${server}": an interactsh server is reached over http or https`);
  }
  return url;
}

function domainName(text: string): string {
  return text.toLowerCase().replace(/\.$/, '');
}

function readInteraction(json: string): Interaction | undefined {
  try {
    const value = JSON.parse(json) as Partial<Interaction>;
    if (typeof value.protocol !== 'string' || typeof value['unique-id'] !== 'string') return undefined;
    return {
      protocol: value.protocol,
      'unique-id': value['unique-id'].toLowerCase(),
      'full-id': String(value['full-id'] ?? ''),
      ...(value['q-type'] ? { 'q-type': String(value['q-type']) } : {}),
      'raw-request': String(value['raw-request'] ?? ''),
      'raw-response': String(value['raw-response'] ?? ''),
      ...(value['smtp-from'] ? { 'smtp-from': String(value['smtp-from']) } : {}),
      'remote-address': String(value['remote-address'] ?? ''),
      timestamp: String(value.timestamp ?? ''),
    };
  } catch {
    return undefined;
  }
}

const ALPHABETS = {
  base32hex: '0123456789abcdefghijklmnopqrstuv',
  alnum: 'abcdefghijklmnopqrstuvwxyz0123456789',
};

function randomId(length: number, alphabet: keyof typeof ALPHABETS): string {
  const chars = ALPHABETS[alphabet];
  return [...randomBytes(length)].map((byte) => chars[byte % chars.length]).join('');
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

function errorOf(text: string): string {
  try {
    const value = JSON.parse(text) as { error?: unknown };
    return typeof value.error === 'string' ? value.error : '';
  } catch {
    return text.slice(0, 200);
  }
}
