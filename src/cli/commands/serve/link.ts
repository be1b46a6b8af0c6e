/**
 * What the processes of `keyhole serve --processes N` say to each other over Node's IPC channel.
 * A connection lands on any process, so what must hold across connections lives in the first
 * process: the dashboard's sessions (a browser signed in on one process is signed in on all) and
 * each key's request count (its rate limit holds for the whole server, see rate-leases.ts in the
 * API). The others ask for them.
 *
 * Hand-written over `process.send` rather than a library: five questions, one answer each.
 */
import {
  type GivenBack,
  type Lease,
  type LeaseAsk,
  LeasedCounts,
  type RateCounts,
  type RateLeases,
} from '../../../api/index.js';
import type { Opened, Session, SessionStore } from '../../../dashboard/index.js';
import type { Principal } from '../../../store/index.js';

/** The environment variable that carries `serve`'s flags to each serving process, as JSON. */
export const FLAGS_VARIABLE = 'KEYHOLE_SERVE_FLAGS';

/** A question from a serving process to the first, answered by {@link Answer} with the same `id`. */
export type Ask =
  | { readonly id: number; readonly what: 'lease'; readonly lease: LeaseAsk }
  | { readonly id: number; readonly what: 'giveBack'; readonly back: GivenBack }
  | { readonly id: number; readonly what: 'open'; readonly principal: Principal }
  | { readonly id: number; readonly what: 'find'; readonly session: string }
  | { readonly id: number; readonly what: 'close'; readonly session: string };

/**
 * The questions a serving process asked in one turn of its event loop, sent as one message and
 * answered as one ({@link Answers}): a message costs both processes far more than its size does.
 */
export interface Asks {
  readonly keyhole: 'asks';
  readonly asks: readonly Ask[];
}

/** What a serving process tells the first of itself. */
export type Told =
  | { readonly keyhole: 'listening'; readonly port: number }
  | { readonly keyhole: 'failed'; readonly message: string; readonly exitCode: number };

export type Answer =
  | { readonly id: number; readonly value: unknown }
  | { readonly id: number; readonly error: string };

export interface Answers {
  readonly keyhole: 'answers';
  readonly answers: readonly Answer[];
}

/** The first process's one order. */
export interface Stop {
  readonly keyhole: 'stop';
}

export type FromServing = Asks | Told;

/** What the first process keeps for all. */
export interface Kept {
  readonly sessions: SessionStore;
  readonly rateLeases: RateLeases;
}

/** The first process's answers to `asks`. */
export async function answer(asks: Asks, kept: Kept): Promise<Answers> {
  return { keyhole: 'answers', answers: await Promise.all(asks.asks.map((ask) => answerOne(ask, kept))) };
}

async function answerOne(ask: Ask, kept: Kept): Promise<Answer> {
  try {
    return { id: ask.id, value: (await keptAnswer(ask, kept)) ?? null };
  } catch (error) {
    return { id: ask.id, error: error instanceof Error ? error.message : String(error) };
  }
}

async function keptAnswer(ask: Ask, kept: Kept): Promise<unknown> {
  switch (ask.what) {
    case 'lease':
      return kept.rateLeases.lease(ask.lease);
    case 'giveBack':
      return kept.rateLeases.giveBack(ask.back);
    case 'open':
      return kept.sessions.open(ask.principal);
    case 'find':
      return kept.sessions.find(ask.session);
    case 'close':
      return kept.sessions.close(ask.session);
  }
}

/** Whether a message on the channel is one of ours (Node's cluster sends its own on it too). */
export function isOurs(message: unknown): message is { readonly keyhole: string } {
  return (
    typeof message === 'object' &&
    message !== null &&
    typeof (message as { keyhole?: unknown }).keyhole === 'string'
  );
}

/** The first process, as a serving process sees it. */
export interface FirstProcess {
  readonly sessions: SessionStore;
  readonly rateCounts: RateCounts;
  /** Tells the first process this one listens. */
  listening(port: number): void;
  /** Resolves when the first process says stop, or is gone. */
  stopRequested(): Promise<void>;
}

/** The channel a serving process has to its parent: `process` in a cluster worker. */
export interface Channel {
  send(message: unknown, callback?: (error: Error | null) => void): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
  readonly connected: boolean;
}

/** {@link FirstProcess} over the process's IPC channel. */
export class LinkToFirst implements FirstProcess {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  /** Asked in this turn of the event loop, sent together at its end. */
  private unsent: Ask[] = [];
  private readonly stopped: Promise<void>;
  private stopNow: () => void = () => undefined;

  readonly rateCounts: RateCounts = new LeasedCounts({
    lease: (lease) => this.ask<Lease>({ what: 'lease', lease }),
    giveBack: async (back) => {
      await this.ask({ what: 'giveBack', back });
    },
  });

  readonly sessions: SessionStore = {
    open: (principal) => this.ask<Opened>({ what: 'open', principal }),
    find: async (session) => (await this.ask<Session | null>({ what: 'find', session })) ?? undefined,
    close: async (session) => {
      await this.ask({ what: 'close', session });
    },
  };

  constructor(private readonly channel: Channel) {
    this.stopped = new Promise((resolve) => {
      this.stopNow = resolve;
      channel.on('message', (message) => {
        if (!isOurs(message)) return;
        if (message.keyhole === 'stop') resolve();
        if (message.keyhole === 'answers')
          for (const answered of (message as Answers).answers) this.settle(answered);
      });
      channel.on('disconnect', () => {
        this.failWaiting();
        resolve();
      });
    });
  }

  listening(port: number): void {
    this.tell({ keyhole: 'listening', port });
  }

  stopRequested(): Promise<void> {
    return this.stopped;
  }

  /** Stops as if the first process had said so (SIGTERM sent to this process alone). */
  stop(): void {
    this.stopNow();
  }

  /** Tells the first process this one could not start; resolves once it is sent. */
  failed(message: string, exitCode: number): Promise<void> {
    return new Promise((resolve) => {
      if (!this.channel.connected) resolve();
      else this.channel.send({ keyhole: 'failed', message, exitCode } satisfies Told, () => resolve());
    });
  }

  private tell(told: Told): void {
    if (this.channel.connected) this.channel.send(told);
  }

  private ask<T>(question: DistributiveOmit<Ask, 'id'>): Promise<T> {
    if (!this.channel.connected) return Promise.reject(new Error(GONE));
    const id = this.nextId++;
    if (this.unsent.length === 0) setImmediate(() => this.sendAsked());
    this.unsent.push({ id, ...question });
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
  }

  private sendAsked(): void {
    const asks = this.unsent;
    this.unsent = [];
    if (this.channel.connected) this.channel.send({ keyhole: 'asks', asks } satisfies Asks);
    else this.failWaiting();
  }

  private settle(answered: Answer): void {
    const waiting = this.waiting.get(answered.id);
    if (waiting === undefined) return;
    this.waiting.delete(answered.id);
    if ('error' in answered) waiting.reject(new Error(answered.error));
    else waiting.resolve(answered.value);
  }

  private failWaiting(): void {
    for (const waiting of this.waiting.values()) waiting.reject(new Error(GONE));
    this.waiting.clear();
  }
}

const GONE = 'the first keyhole serve process is gone';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
