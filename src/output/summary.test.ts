import { describe, expect, it } from 'vitest';
import { formatElapsed, formatFindings, formatSummary } from './summary.js';

const none = { critical: 0, high: 0, medium: 0, low: 0, info: 0, unknown: 0 };

describe('the scan summary', () => {
  it('shows targets, templates, requests and their rate, findings by severity, errors', () => {
    expect(
      formatSummary({
        outcome: 'finished',
        targets: 3,
        templates: 5,
        unsupportedTemplates: 1,
        runsDone: 15,
        runsTotal: 15,
        requests: 420,
        findings: { ...none, high: 1, info: 3 },
        errors: 2,
        elapsedMs: 12_345,
      }),
    ).toBe(
      [
        'scan finished in 12.3s',
        '  targets    3',
        '  templates  5 (+1 unsupported, skipped)',
        '  requests   420 (34/s)',
        '  findings   4: 1 high, 3 info',
        '  errors     2',
        '',
      ].join('\n'),
    );
  });

  it('says how far an interrupted scan got', () => {
    const text = formatSummary({
      outcome: 'interrupted',
      targets: 1,
      templates: 2,
      unsupportedTemplates: 0,
      runsDone: 1,
      runsTotal: 2,
      requests: 3,
      findings: none,
      errors: 0,
      elapsedMs: 800,
    });
    expect(text.split('\n')[0]).toBe('scan interrupted after 800ms: 1 of 2 template runs done');
  });

  it('orders severities from critical down', () => {
    expect(formatFindings({ ...none, info: 2, critical: 1, unknown: 1 })).toBe(
      '4: 1 critical, 2 info, 1 unknown',
    );
    expect(formatFindings(none)).toBe('0');
  });

  it('writes durations the way Go does past a minute', () => {
    expect(formatElapsed(65_000)).toBe('1m5s');
    expect(formatElapsed(3_723_000)).toBe('1h2m3s');
  });
});
