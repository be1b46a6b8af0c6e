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
        '  targets        3',
        '  templates      5 (+1 unsupported, skipped)',
        '  requests       420 (34/s)',
        '  findings       4: 1 high, 3 info',
        '  errors         2',
        '',
      ].join('\n'),
    );
  });

  it('with secret files, shows the authenticated share of requests and what each entry did', () => {
    const text = formatSummary({
      outcome: 'failed',
      targets: 3,
      templates: 2,
      unsupportedTemplates: 0,
      runsDone: 6,
      runsTotal: 6,
      requests: 14,
      findings: none,
      errors: 5,
      elapsedMs: 900,
      authentication: {
        requests: 10,
        authenticated: 7,
        entries: [
          { label: 'static[0] of s.yaml', requests: 4, refused: 0, logins: 0, loginFailures: 0, relogins: 0 },
          {
            label: 'dynamic[0] of s.yaml',
            requests: 3,
            refused: 0,
            logins: 3,
            loginFailures: 0,
            relogins: 2,
          },
          {
            label: 'dynamic[1] of s.yaml',
            requests: 0,
            refused: 4,
            logins: 1,
            loginFailures: 1,
            relogins: 0,
          },
        ],
      },
    });
    expect(text.split('\n').slice(3, 8)).toEqual([
      '  requests       14 (16/s)',
      '  authenticated  7 of 10 requests',
      '    static[0] of s.yaml   4 requests',
      '    dynamic[0] of s.yaml  3 requests; 3 logins (2 re-logins)',
      '    dynamic[1] of s.yaml  0 requests, 4 not sent; 1 login, 1 failed',
    ]);
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
