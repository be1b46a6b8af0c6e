import { describe, expect, it } from 'vitest';
import { sarifExport, sarifLog } from './sarif.js';
import { finding } from './testing/finding.js';
import { validSarif } from './testing/sarif-schema.js';

const TOOL = { name: 'keyhole', version: '0.1.0' };

describe('the SARIF export', () => {
  it('is valid against the SARIF 2.1.0 schema, with rules and results with locations', () => {
    const events = [
      finding(),
      finding({ 'matched-at': 'app.example.com:8443', info: { ...finding().info, severity: 'medium' } }),
      finding({ 'template-id': 'info-banner', info: { author: null, tags: null, severity: '' } }),
    ];
    const log = JSON.parse(sarifExport(events, TOOL));
    const valid = validSarif(log);
    expect(validSarif.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('is valid with no findings at all', () => {
    expect(validSarif(JSON.parse(sarifExport([], TOOL)))).toBe(true);
  });

  it('makes one rule per template from its metadata, and results point at their rule', () => {
    const run = sarifLog(
      [finding(), finding({ 'template-id': 'other' }), finding({ 'matched-at': 'https://b.example/' })],
      TOOL,
    ).runs[0];
    expect(run?.tool.driver.rules.map((r) => r.id)).toEqual(['exposed-env', 'other']);
    expect(run?.results.map((r) => [r.ruleId, r.ruleIndex])).toEqual([
      ['exposed-env', 0],
      ['other', 1],
      ['exposed-env', 0],
    ]);
    const rule = run?.tool.driver.rules[0];
    expect(rule?.name).toBe('Exposed .env file');
    expect(rule?.fullDescription?.text).toBe('The .env file is served.');
    expect(rule?.helpUri).toBe('https://templates.example/exposed-env');
    expect(rule?.properties['security-severity']).toBe('8');
    expect(rule?.properties['cwe-id']).toEqual(['cwe-200']);
  });

  it('locates each result at the URL it matched and levels it by severity', () => {
    const result = sarifLog([finding()], TOOL).runs[0]?.results[0];
    expect(result?.level).toBe('error');
    expect(result?.locations[0]?.physicalLocation.artifactLocation.uri).toBe(
      'https://app.example.com/.env?q=a%20b',
    );
    expect(result?.message.text).toBe('Exposed .env file (exposed-env:body) found on app.example.com');
  });
});
