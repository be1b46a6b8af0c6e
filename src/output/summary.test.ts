import { describe, expect, it } from 'vitest';
import { formatElapsed, formatFindings, formatSummary, formatTruncatedBodies } from './summary.js';

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

  it('counts the hosts skipped as unresponsive and the requests they were not sent, after the errors', () => {
    const text = formatSummary({
      outcome: 'finished',
      targets: 2,
      templates: 1,
      unsupportedTemplates: 0,
      runsDone: 2,
      runsTotal: 2,
      requests: 31,
      findings: none,
      errors: 30,
      skippedHosts: { hosts: 1, requestsNotSent: 70 },
      elapsedMs: 1000,
    });
    expect(text.split('\n').slice(-3)).toEqual([
      '  errors         30',
      '  hosts skipped  1 (unresponsive; 70 requests not sent)',
      '',
    ]);
    const noneSkipped = formatSummary({
      outcome: 'finished',
      targets: 1,
      templates: 1,
      unsupportedTemplates: 0,
      runsDone: 1,
      runsTotal: 1,
      requests: 1,
      findings: none,
      errors: 0,
      skippedHosts: { hosts: 0, requestsNotSent: 0 },
      elapsedMs: 1,
    });
    expect(noneSkipped).not.toContain('hosts skipped');
  });

  it('counts the templates of folders skipped for errors beside the unsupported ones', () => {
    const text = formatSummary({
      outcome: 'finished',
      targets: 1,
      templates: 7,
      unsupportedTemplates: 2,
      brokenTemplates: 1,
      runsDone: 7,
      runsTotal: 7,
      requests: 7,
      findings: none,
      errors: 0,
      elapsedMs: 1000,
    });
    expect(text).toContain('  templates      7 (+2 unsupported, +1 with errors, skipped)\n');
  });

  const accepted = { unauthorized: 0, loginPage: 0 };
  const unused = { refused: 0, logins: 0, loginFailures: 0, relogins: 0 };

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
          {
            label: 'static[0] of s.yaml',
            requests: 4,
            refused: 0,
            rejected: accepted,
            logins: 0,
            loginFailures: 0,
            relogins: 0,
          },
          {
            label: 'dynamic[0] of s.yaml',
            requests: 3,
            refused: 0,
            rejected: accepted,
            logins: 3,
            loginFailures: 0,
            relogins: 2,
          },
          {
            label: 'dynamic[1] of s.yaml',
            requests: 0,
            refused: 4,
            rejected: accepted,
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

  it('does not count as authenticated the requests whose secret the target refused, and says which entry', () => {
    const text = formatSummary({
      outcome: 'failed',
      targets: 1,
      templates: 3,
      unsupportedTemplates: 0,
      runsDone: 3,
      runsTotal: 3,
      requests: 9,
      findings: none,
      errors: 0,
      elapsedMs: 900,
      authentication: {
        requests: 9,
        authenticated: 8,
        entries: [
          {
            ...unused,
            label: 'static[0] of s.yaml',
            requests: 5,
            rejected: { unauthorized: 5, loginPage: 0 },
          },
          {
            ...unused,
            label: 'static[1] of s.yaml',
            requests: 3,
            rejected: { unauthorized: 1, loginPage: 1 },
          },
        ],
      },
    });
    expect(text.split('\n').slice(4, 7)).toEqual([
      '  authenticated  1 of 9 requests (7 more carried a secret the target refused)',
      '    static[0] of s.yaml  5 requests, 5 refused by the target (401)',
      '    static[1] of s.yaml  3 requests, 2 refused by the target (1 401, 1 sent to a login page)',
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

describe('the note on bodies cut at their limit', () => {
  it('says nothing when no body was cut', () => {
    expect(formatTruncatedBodies(new Map())).toBeUndefined();
  });

  it('counts the cut responses, per limit when there were several, and names the event marker', () => {
    expect(formatTruncatedBodies(new Map([[10_485_760, 1]]))).toBe(
      '1 response was cut at 10485760 bytes, its body limit: matchers saw only those bytes, and findings on it carry "response-truncated": true (a template\'s max-size sets the limit)',
    );
    expect(
      formatTruncatedBodies(
        new Map([
          [2048, 1],
          [10_485_760, 3],
        ]),
      ),
    ).toBe(
      '4 responses were cut at their body limit (3 at 10485760 bytes, 1 at 2048 bytes): matchers saw only those bytes, and findings on them carry "response-truncated": true (a template\'s max-size sets the limit)',
    );
  });
});
