import { describe, expect, it } from 'vitest';
import type { ResultEvent } from '../../event/index.js';
import { type Finding, servedFindingFields } from '../../store/index.js';
import { resultsPage, resultsPageText } from './result-items.js';

const event = {
  'template-id': 'git-config',
  info: {
    name: 'Käse "quoted" \\ </script>',
    severity: 'high',
    description: 'line\nbreak \u2028 ünïcode',
    reference: ['https://a.test/', 7, null],
    remediation: 42,
    classification: { 'cve-id': null },
  },
  type: 'http',
  'matched-at': 'https://app.test/\u2028/.git/config',
  'extracted-results': null,
  'matcher-status': true,
  meta: { user: 'ünïcode' },
} as unknown as ResultEvent;

function finding(overrides: Partial<Finding> = {}): Finding {
  return {
    id: 'c0ffee00000000000000',
    teamId: 'team0000000000000000',
    scanId: 's0000000000000000000',
    vulnHash: 'abc',
    vulnStatus: 'open',
    severity: 'high',
    templateId: 'git-config',
    templatePath: '/t/git-config.yaml',
    templateUrl: '',
    templateEncoded: 'aWQ6IGdpdC1jb25maWcK',
    target: 'https://app.test/"quoted"',
    event,
    createdAt: 1_710_426_096_884,
    updatedAt: 1_710_426_097_000,
    ...overrides,
  };
}

describe('resultsPageText', () => {
  it('is the results page the schema would serialise, with the stored event members spliced in', () => {
    const findings = [
      finding(),
      finding({ id: 'c0ffee00000000000001', vulnStatus: 'fixed', severity: 'low' }),
    ];
    const served = findings.map(({ event: stored, ...rest }) => ({
      ...rest,
      servedFields: servedFindingFields(stored),
    }));
    for (const window of [
      { offset: 0, limit: 2 },
      { offset: 40, limit: 20 },
    ]) {
      const text = resultsPageText(served, 57, window);
      expect(JSON.parse(text)).toEqual(resultsPage(findings, 57, window));
    }
  });

  it('keeps the members in the order of the listing schema', () => {
    const { event: stored, ...rest } = finding();
    const text = resultsPageText([{ ...rest, servedFields: servedFindingFields(stored) }], 1, {
      offset: 0,
      limit: 1,
    });
    const item = (JSON.parse(text) as { data: object[] }).data[0] ?? {};
    expect(Object.keys(item)).toEqual(
      Object.keys(resultsPage([finding()], 1, { offset: 0, limit: 1 }).data[0] ?? {}),
    );
  });

  it('serves an empty page', () => {
    expect(JSON.parse(resultsPageText([], 0, { offset: 0, limit: 10 }))).toEqual(
      resultsPage([], 0, { offset: 0, limit: 10 }),
    );
  });
});
