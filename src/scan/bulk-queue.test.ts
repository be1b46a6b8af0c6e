import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { BulkQueue } from './bulk-queue.js';

type Job = readonly [template: string, target: number];

/** Target-major jobs, as a scan plans them. */
function* plan(templates: readonly string[], targets: number, read: { count: number }): Generator<Job> {
  for (let target = 0; target < targets; target++) {
    for (const template of templates) {
      read.count++;
      yield [template, target];
    }
  }
}

const templateOf = (job: Job) => job[0];

describe('BulkQueue', () => {
  it('gives jobs out in plan order when -bs cannot bind', async () => {
    const queue = new BulkQueue(plan(['a', 'b'], 3, { count: 0 }), templateOf, 4, 4);
    const taken: Job[] = [];
    for (;;) {
      const job = await queue.take();
      if (job === undefined) break;
      taken.push(job);
      queue.finish(job);
    }
    expect(taken).toEqual([...plan(['a', 'b'], 3, { count: 0 })]);
  });

  it('holds a job whose template is at its cap and lets later templates go first', async () => {
    const queue = new BulkQueue(plan(['a', 'b'], 2, { count: 0 }), templateOf, 1, 4);
    const first = await queue.take();
    const second = await queue.take();
    expect([first, second]).toEqual([
      ['a', 0],
      ['b', 0],
    ]);
    let third: Job | undefined;
    const waiting = queue.take().then((job) => {
      third = job;
    });
    await Promise.resolve();
    expect(third).toBeUndefined();
    if (second !== undefined) queue.finish(second);
    await waiting;
    expect(third).toEqual(['b', 1]);
    if (first !== undefined) queue.finish(first);
    expect(await queue.take()).toEqual(['a', 1]);
  });

  it('stops reading ahead when one slow template holds many jobs', async () => {
    const read = { count: 0 };
    const queue = new BulkQueue(plan(['slow', 'fast'], 10_000, read), templateOf, 1, 2);
    const slow = await queue.take();
    expect(slow).toEqual(['slow', 0]);
    // The fast template's runs end at once; the slow one's does not until the queue waits.
    let pending = queue.take();
    for (let run = 0; run < 5000; run++) {
      const job = await Promise.race([pending, sleep(20).then(() => 'waiting' as const)]);
      if (job === 'waiting') break;
      expect(job?.[0]).toBe('fast');
      if (job !== undefined) queue.finish(job);
      pending = queue.take();
    }
    expect(read.count).toBeLessThan(300);
    if (slow !== undefined) queue.finish(slow);
    expect(await pending).toEqual(['slow', 1]);
  });

  it('ends when the plan is read and nothing is held', async () => {
    const queue = new BulkQueue(plan(['a'], 1, { count: 0 }), templateOf, 1, 1);
    const job = await queue.take();
    if (job !== undefined) queue.finish(job);
    expect(await queue.take()).toBeUndefined();
  });
});
