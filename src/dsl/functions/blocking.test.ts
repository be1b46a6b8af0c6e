import { describe, expect, it } from 'vitest';
import { runBlocking } from './blocking.js';

describe('runBlocking', () => {
  it('gives the value the worker computed, the calling thread having waited for it', () => {
    const outcome = runBlocking(
      async (input: { n: number }) => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return input.n * 2;
      },
      { n: 21 },
      10_000,
    );
    expect(outcome).toEqual({ kind: 'done', value: 42 });
  });

  it("reports a failure by the error's code only, never its message, which may quote a secret", () => {
    const outcome = runBlocking(
      async (input: { secret: string }) => {
        throw Object.assign(new Error(`cannot reach ${input.secret}`), { code: 'ECONNREFUSED' });
      },
      { secret: 'hunter2' },
      10_000,
    );
    expect(outcome).toEqual({ kind: 'failed', code: 'ECONNREFUSED' });
    expect(JSON.stringify(outcome)).not.toContain('hunter2');
  });

  it('stops waiting at the time limit', () => {
    const started = Date.now();
    const outcome = runBlocking(() => new Promise<never>(() => {}), {}, 300);
    expect(outcome).toEqual({ kind: 'timed-out' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
