import type { StaticSecret } from './model.js';
import type { Redactor } from './redact.js';
import { checkSecret, type SessionCheck } from './verify.js';

/** A static entry's `verify:` as it runs: before its first request, and again every `every`. */
export type SecretCheckEvent =
  | { readonly kind: 'secret-check'; readonly secret: StaticSecret; readonly again: boolean }
  | { readonly kind: 'secret-check-ok'; readonly secret: StaticSecret }
  | { readonly kind: 'secret-check-failed'; readonly secret: StaticSecret; readonly reason: string };

export type CheckResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

interface CheckState {
  pending: Promise<CheckResult> | undefined;
  result: CheckResult | undefined;
  checkedAt: number;
}

export interface SecretCheckOptions {
  /** Sends a check as it is made (the entry's secret applied, nothing else); unset: every check fails. */
  readonly send: SessionCheck | undefined;
  readonly redactor: Redactor;
  readonly onEvent: ((event: SecretCheckEvent) => void) | undefined;
  readonly now: () => number;
}

const PASSED: CheckResult = { ok: true };

/**
 * The checks of the static entries that have a `verify:`: each runs once, before the first request
 * that would carry its secret (single-flight: requests that come meanwhile wait for the one check),
 * and with `every` again on the first request after the period, requests waiting for it. A failed
 * check is remembered: the entry's requests are refused, never sent with a secret known bad nor
 * without it.
 */
export class SecretChecks {
  private readonly states = new Map<StaticSecret, CheckState>();

  constructor(private readonly options: SecretCheckOptions) {}

  /** The entry's known result, or the check to wait for (started when none runs). */
  result(secret: StaticSecret): CheckResult | Promise<CheckResult> {
    const state = this.state(secret);
    const known = state.result;
    if (known !== undefined && !this.due(secret, state)) return known;
    return state.pending ?? this.start(secret, state, known !== undefined);
  }

  /** Runs the checks now (`-prefetch-secrets`); returns the failures. */
  async prefetch(secrets: readonly StaticSecret[]): Promise<{ secret: StaticSecret; reason: string }[]> {
    const failures: { secret: StaticSecret; reason: string }[] = [];
    for (const secret of secrets) {
      const result = await this.result(secret);
      if (!result.ok) failures.push({ secret, reason: result.reason });
    }
    return failures;
  }

  /** Lets failed checks run again on their entry's next request (see `forgetFailedLogins`). */
  forgetFailed(): void {
    for (const state of this.states.values())
      if (state.pending === undefined && state.result?.ok === false) state.result = undefined;
  }

  private due(secret: StaticSecret, state: CheckState): boolean {
    const every = secret.verify?.everyMs;
    if (every === undefined || state.result?.ok !== true) return false;
    return this.options.now() - state.checkedAt >= every;
  }

  private start(secret: StaticSecret, state: CheckState, again: boolean): Promise<CheckResult> {
    const { send, redactor, onEvent } = this.options;
    state.checkedAt = this.options.now();
    // A secret due for its check is not trusted until it passes again: requests wait for it.
    state.result = undefined;
    onEvent?.({ kind: 'secret-check', secret, again });
    const checked =
      send === undefined
        ? Promise.resolve('no secret check runner is configured')
        : checkSecret(secret, send).catch(
            (error: unknown) =>
              `the secret check could not run: ${error instanceof Error ? error.message : String(error)}`,
          );
    const pending = checked.then((problem): CheckResult => {
      const result: CheckResult =
        problem === undefined ? PASSED : { ok: false, reason: redactor.redact(problem) };
      state.result = result;
      state.pending = undefined;
      onEvent?.(
        result.ok
          ? { kind: 'secret-check-ok', secret }
          : { kind: 'secret-check-failed', secret, reason: result.reason },
      );
      return result;
    });
    state.pending = pending;
    return pending;
  }

  private state(secret: StaticSecret): CheckState {
    let state = this.states.get(secret);
    if (state === undefined) {
      state = { pending: undefined, result: undefined, checkedAt: 0 };
      this.states.set(secret, state);
    }
    return state;
  }
}
