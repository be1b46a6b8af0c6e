import { describe, expect, it } from 'vitest';
import { formatStatsJson, formatStatsLine, type StatsFigures } from './stats-lines.js';

const FIGURES: StatsFigures = {
  startedAt: new Date('2026-01-02T03:04:05.000Z'),
  elapsedMs: 3_725_400,
  templates: 3,
  hosts: 2,
  requests: 7450,
  totalRequests: 10000,
  matched: 1,
  errors: 4,
};

describe('stats lines', () => {
  it("read as nuclei's -stats line", () => {
    expect(formatStatsLine(FIGURES)).toBe(
      '[1:02:05] | Templates: 3 | Hosts: 2 | RPS: 1 | Matched: 1 | Errors: 4 | Requests: 7450/10000 (74%)\n',
    );
  });

  it("read as nuclei's -sj object, every figure a string", () => {
    expect(JSON.parse(formatStatsJson(FIGURES))).toEqual({
      duration: '1:02:05',
      errors: '4',
      hosts: '2',
      matched: '1',
      percent: '74',
      requests: '7450',
      rps: '1',
      startedAt: '2026-01-02T03:04:05.000Z',
      templates: '3',
      total: '10000',
    });
  });

  it('stop at 100% when redirects and retries take the requests past the plan', () => {
    expect(formatStatsLine({ ...FIGURES, requests: 12000 })).toContain('Requests: 12000/10000 (100%)');
  });

  it('take the requests made as the total when nothing was planned', () => {
    expect(formatStatsLine({ ...FIGURES, elapsedMs: 0, totalRequests: 0, requests: 5 })).toBe(
      '[0:00:00] | Templates: 3 | Hosts: 2 | RPS: 0 | Matched: 1 | Errors: 4 | Requests: 5/5 (100%)\n',
    );
  });
});
