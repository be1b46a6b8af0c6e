import { describe, expect, it } from 'vitest';
import { freshRead } from './fresh-read.js';

/** A read whose answers the test releases one at a time, counting how many were started. */
function controlledRead() {
  const pending: ((value: number) => void)[] = [];
  let started = 0;
  const read = () =>
    new Promise<number>((resolve) => {
      started++;
      pending.push(resolve);
    });
  return {
    read,
    started: () => started,
    answer: async (value: number) => {
      pending.shift()?.(value);
      // let the settled read's continuations (and any read they start) run
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('freshRead', () => {
  it('reads once for a call made while nothing is under way', async () => {
    const source = controlledRead();
    const token = freshRead(source.read);
    const first = token();
    await source.answer(1);
    expect(await first).toBe(1);
    expect(source.started()).toBe(1);
  });

  it('never answers a call with a read that started before the call', async () => {
    const source = controlledRead();
    const token = freshRead(source.read);
    const early = token();
    const late = token();
    await source.answer(1);
    expect(await early).toBe(1);
    expect(source.started()).toBe(2);
    await source.answer(2);
    expect(await late).toBe(2);
  });

  it('shares the next read among every call made while one is under way', async () => {
    const source = controlledRead();
    const token = freshRead(source.read);
    const early = token();
    const waiting = [token(), token(), token()];
    await source.answer(1);
    await source.answer(2);
    expect(await early).toBe(1);
    expect(await Promise.all(waiting)).toEqual([2, 2, 2]);
    expect(source.started()).toBe(2);
  });

  it('starts a new read after a failed one', async () => {
    let calls = 0;
    const token = freshRead(async () => {
      calls++;
      if (calls === 1) throw new Error('down');
      return calls;
    });
    const failing = token();
    const after = token();
    await expect(failing).rejects.toThrow('down');
    expect(await after).toBe(2);
  });
});
