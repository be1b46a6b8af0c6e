import { describe, expect, it } from 'vitest';
import { AbortWatch } from './aborts.js';

describe('AbortWatch', () => {
  it('calls every registered callback once with the reason when the signal aborts', () => {
    const controller = new AbortController();
    const seen: string[] = [];
    AbortWatch.add(controller.signal, (reason) => seen.push(`a:${String(reason)}`));
    AbortWatch.add(controller.signal, (reason) => seen.push(`b:${String(reason)}`));
    controller.abort('stop');
    controller.abort('again');
    expect(seen).toEqual(['a:stop', 'b:stop']);
  });

  it('does not call a callback removed before the abort, wherever it sits in the list', () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const first = AbortWatch.add(controller.signal, () => seen.push('first'));
    AbortWatch.add(controller.signal, () => seen.push('middle'));
    const last = AbortWatch.add(controller.signal, () => seen.push('last'));
    AbortWatch.remove(controller.signal, first);
    AbortWatch.remove(controller.signal, last);
    AbortWatch.remove(controller.signal, last);
    controller.abort();
    expect(seen).toEqual(['middle']);
  });

  it('keeps one listener per signal however many callbacks come and go', () => {
    const controller = new AbortController();
    let added = 0;
    const original = controller.signal.addEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
      added += 1;
      original(...args);
    }) as AbortSignal['addEventListener'];
    for (let i = 0; i < 100; i++)
      AbortWatch.remove(
        controller.signal,
        AbortWatch.add(controller.signal, () => {}),
      );
    expect(added).toBe(1);
  });

  it('lets a callback remove others while the signal aborts', () => {
    const controller = new AbortController();
    const seen: string[] = [];
    let second: ReturnType<typeof AbortWatch.add> | undefined;
    AbortWatch.add(controller.signal, () => {
      seen.push('first');
      AbortWatch.remove(controller.signal, second);
    });
    second = AbortWatch.add(controller.signal, () => seen.push('second'));
    AbortWatch.add(controller.signal, () => seen.push('third'));
    controller.abort();
    expect(seen).toEqual(['first', 'third']);
  });
});
