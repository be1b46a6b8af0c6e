import { describe, expect, it } from 'vitest';
import { ProgressBar, RATE_WINDOW_MS, RequestRate } from './progress.js';

function terminal() {
  let text = '';
  return {
    sink: {
      isTTY: true,
      write: (t: string) => {
        text += t;
      },
    },
    text: () => text,
  };
}

const figures = { done: 3, total: 12, requests: 40, findings: 2, errors: 1 };

/** A clock the test moves by hand. */
function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('the progress bar', () => {
  it('shows template runs done of total, requests per second, findings and errors', () => {
    const screen = terminal();
    const time = clock();
    const bar = new ProgressBar(screen.sink, time.now);
    bar.start({ ...figures, requests: 0 });
    time.advance(2000);
    bar.update(figures);
    bar.stop();
    expect(screen.text()).toContain('3/12 runs | 20 req/s | 2 findings | 1 errors');
  });

  it('clears its line before other output, and draws itself again after it', () => {
    const screen = terminal();
    const bar = new ProgressBar(screen.sink);
    bar.start(figures);
    const before = screen.text().length;
    bar.above(() => screen.sink.write('[finding] line\n'));
    const after = screen.text().slice(before);
    expect(after.startsWith('\r\u001b[2K[finding] line\n')).toBe(true);
    expect(after).toContain('3/12 runs');
    bar.stop();
  });

  it('writes straight through once stopped', () => {
    const screen = terminal();
    const bar = new ProgressBar(screen.sink);
    bar.start(figures);
    bar.stop();
    const before = screen.text().length;
    bar.above(() => screen.sink.write('done\n'));
    expect(screen.text().slice(before)).toBe('done\n');
  });
});

describe('the request rate', () => {
  /** Samples the rate every 250 ms (as the bar is updated) while `perSecond(t)` requests go out. */
  function drive(rate: RequestRate, time: ReturnType<typeof clock>, seconds: number, perSecond: number) {
    let count = 0;
    let last = 0;
    for (let tick = 0; tick < seconds * 4; tick++) {
      time.advance(250);
      count += perSecond / 4;
      last = rate.sample(count);
    }
    return { count, last };
  }

  it('is the rate over the last five seconds, not the average since the start', () => {
    const time = clock();
    const rate = new RequestRate(time.now);
    rate.sample(0);
    const fast = drive(rate, time, 10, 100);
    expect(fast.last).toBeCloseTo(100);
    // Slowed to 30/s: after one window the average since the start would still say 65.
    let count = fast.count;
    let last = 0;
    for (let tick = 0; tick < (RATE_WINDOW_MS / 1000) * 4; tick++) {
      time.advance(250);
      count += 30 / 4;
      last = rate.sample(count);
    }
    expect(last).toBeCloseTo(30);
  });

  it('is not the rate of the last instant: a burst is spread over the window', () => {
    const time = clock();
    const rate = new RequestRate(time.now);
    rate.sample(0);
    drive(rate, time, 6, 0);
    time.advance(250);
    expect(rate.sample(50)).toBeCloseTo(50 / (RATE_WINDOW_MS / 1000));
  });

  it('counts from the first sample until a window has passed, and is 0 before any time has', () => {
    const time = clock();
    const rate = new RequestRate(time.now);
    expect(rate.sample(0)).toBe(0);
    expect(rate.sample(10)).toBe(0);
    time.advance(1000);
    expect(rate.sample(30)).toBeCloseTo(30);
  });
});
