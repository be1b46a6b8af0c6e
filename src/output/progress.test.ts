import { describe, expect, it } from 'vitest';
import { ProgressBar } from './progress.js';

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

const figures = { done: 3, total: 12, requests: 40, findings: 2, errors: 1, elapsedMs: 2000 };

describe('the progress bar', () => {
  it('shows template runs done of total, requests per second, findings and errors', () => {
    const screen = terminal();
    const bar = new ProgressBar(screen.sink);
    bar.start(figures);
    bar.stop();
    expect(screen.text()).toContain('3/12 templates | 20 req/s | 2 findings | 1 errors');
  });

  it('clears its line before other output, and draws itself again after it', () => {
    const screen = terminal();
    const bar = new ProgressBar(screen.sink);
    bar.start(figures);
    const before = screen.text().length;
    bar.above(() => screen.sink.write('[finding] line\n'));
    const after = screen.text().slice(before);
    expect(after.startsWith('\r\u001b[2K[finding] line\n')).toBe(true);
    expect(after).toContain('3/12 templates');
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
