import type { KeyObject } from 'node:crypto';
import { encryptKey, encryptMessage, newAesKey } from './crypto.js';
import type { Interaction, PollResponse } from './protocol.js';

interface Registration {
  readonly secret: string;
  readonly publicKey: KeyObject;
  readonly aesKey: Buffer;
  /** Encrypted interactions not yet polled. */
  pending: string[];
}

/** What a client's request to the API came to. */
export type RegistryOutcome<T> = { ok: true; value: T } | { ok: false; status: 400 | 401; message: string };

/**
 * The server's clients by correlation id: who registered with which key, and the interactions
 * waiting for their next poll (encrypted once, when recorded). A client polls with its secret; a
 * correlation id keeps its first registration until it is deregistered.
 */
export class Registry {
  readonly #clients = new Map<string, Registration>();

  /** At most this many interactions wait for one client; older ones are dropped first. */
  constructor(private readonly maxPending = 10_000) {}

  register(correlationId: string, secret: string, publicKey: KeyObject): RegistryOutcome<void> {
    const known = this.#clients.get(correlationId);
    if (known !== undefined) {
      if (known.secret !== secret)
        return { ok: false, status: 401, message: 'correlation id already registered' };
      return { ok: true, value: undefined };
    }
    this.#clients.set(correlationId, { secret, publicKey, aesKey: newAesKey(), pending: [] });
    return { ok: true, value: undefined };
  }

  deregister(correlationId: string, secret: string): RegistryOutcome<void> {
    const known = this.#clients.get(correlationId);
    if (known === undefined || known.secret !== secret) {
      return {
        ok: false,
        status: 400,
        message: 'could not deregister: unknown correlation id or wrong secret',
      };
    }
    this.#clients.delete(correlationId);
    return { ok: true, value: undefined };
  }

  poll(correlationId: string, secret: string): RegistryOutcome<PollResponse> {
    const known = this.#clients.get(correlationId);
    if (known === undefined || known.secret !== secret) {
      return {
        ok: false,
        status: 400,
        message: 'could not get interactions: unknown correlation id or wrong secret',
      };
    }
    const data = known.pending;
    known.pending = [];
    return {
      ok: true,
      value: { data, extra: [], aes_key: encryptKey(known.publicKey, known.aesKey), tlddata: [] },
    };
  }

  isRegistered(correlationId: string): boolean {
    return this.#clients.has(correlationId);
  }

  /** Keeps `interaction` for the client that registered `correlationId`; false when none did. */
  record(correlationId: string, interaction: Interaction): boolean {
    const known = this.#clients.get(correlationId);
    if (known === undefined) return false;
    known.pending.push(encryptMessage(known.aesKey, JSON.stringify(interaction)));
    if (known.pending.length > this.maxPending) known.pending.shift();
    return true;
  }

  get size(): number {
    return this.#clients.size;
  }
}
