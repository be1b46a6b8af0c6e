import { describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import { type RetestResult, servedEventsJson, servedRetestFields } from '../store/index.js';
import { retestItem, retestPage } from './serialize.js';

const events = [
  {
    'template-id': 'git-config',
    info: { name: 'Käse "quoted" \\ </script>', severity: 'high', classification: { 'cve-id': null } },
    type: 'http',
    'matched-at': 'https://app.test/\u2028/.git/config',
    'extracted-results': null,
    'matcher-status': true,
    port: '443',
    meta: { user: 'ünïcode' },
  },
  { 'template-id': 'git-config', 'matcher-status': false, error: 'timeout' },
] as unknown as ResultEvent[];

function result(overrides: Partial<RetestResult> = {}): RetestResult {
  return {
    id: 'c0ffee00000000000000',
    teamId: 'team0000000000000000',
    vulnId: 'v0000000000000000000',
    scanId: 's0000000000000000000',
    target: 'https://app.test/"quoted"',
    templateId: 'git-config',
    templatePath: '/t/git-config.yaml',
    templateUrl: '',
    templateEncoded: 'aWQ6IGdpdC1jb25maWcK',
    matcherStatus: true,
    resultType: 'matched',
    vulnStatus: 'open',
    events,
    createdAt: 1_710_426_096_884,
    updatedAt: 1_710_426_097_000,
    ...overrides,
  };
}

describe('retestPage', () => {
  it('reads as the items retestItem makes, field for field, with the served fields spliced in', () => {
    const results = [
      result(),
      result({ events: [], matcherStatus: false, resultType: 'error', templateEncoded: '' }),
    ];
    const served = results.map((r) => ({
      ...r,
      fields: servedRetestFields({ ...r, eventsJson: servedEventsJson(r.events) }),
    }));
    const text = retestPage('Successfully retrieved retest results', served);
    expect(JSON.parse(text)).toEqual({
      message: 'Successfully retrieved retest results',
      results: results.map(retestItem),
    });
    expect(Object.keys(JSON.parse(text).results[0])).toEqual(Object.keys(retestItem(results[0]!)));
  });

  it('answers an empty page with an empty list', () => {
    expect(JSON.parse(retestPage('m', []))).toEqual({ message: 'm', results: [] });
  });
});
