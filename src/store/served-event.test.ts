import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { servedFindingHead, servedFindingItems } from './served-event.js';
import { formatTimestamp } from './time.js';

/** The item as the API writes it from a finding's columns (`resultsPageText`), for comparison. */
function fromColumns(f: {
  id: string;
  target: string;
  template_url: string;
  created_at: number;
  updated_at: number;
  scan_id: string;
  template_id: string;
  template_path: string;
  template: string;
  vuln_status: string;
  vuln_hash: string;
  severity: string;
  fields: string;
}): string {
  return `{"matcher_status":true,"vuln_id":${JSON.stringify(f.id)},"target":${JSON.stringify(f.target)},"template_url":${JSON.stringify(f.template_url)},"created_at":"${formatTimestamp(f.created_at)}","updated_at":"${formatTimestamp(f.updated_at)}","scan_id":${JSON.stringify(f.scan_id)},"template_id":${JSON.stringify(f.template_id)},"template_path":${JSON.stringify(f.template_path)},"template_encoded":${JSON.stringify(f.template)},"vuln_status":${JSON.stringify(f.vuln_status)},"vuln_hash":${JSON.stringify(f.vuln_hash)},"severity":${JSON.stringify(f.severity)},${f.fields},"result_type":"matched"}`;
}

// Any text, control characters and the separator's own among them, and lone surrogates.
const text = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '\u0001', 'a\u0001b', '"\\', '\u2028', '\ud800', '東京 🙂'),
);
const instant = fc.integer({ min: 0, max: 253_402_300_799_999 });
const finding = fc.record({
  id: text,
  target: text,
  template_url: text,
  created_at: instant,
  updated_at: instant,
  scan_id: text,
  template_id: text,
  template_path: text,
  template: text,
  vuln_status: text,
  vuln_hash: text,
  severity: text,
  fields: fc.constant('"description":"","labels":[]'),
});

describe("a finding's served head", () => {
  it('joins into the item the API writes from its columns, byte for byte, whatever its texts hold', () => {
    fc.assert(
      fc.property(fc.array(finding, { maxLength: 4 }), (findings) => {
        const items = servedFindingItems(
          findings.map((f) => ({
            head: servedFindingHead(f),
            fields: f.fields,
            updatedAt: f.updated_at,
            templateEncoded: f.template,
            vulnStatus: f.vuln_status,
          })),
        );
        expect(items).toBe(findings.map(fromColumns).join(','));
      }),
      { numRuns: 500 },
    );
  });

  it('is valid JSON once joined, with the values it was written from', () => {
    fc.assert(
      fc.property(finding, (f) => {
        const [item] = JSON.parse(
          `[${servedFindingItems([
            {
              head: servedFindingHead(f),
              fields: f.fields,
              updatedAt: f.updated_at,
              templateEncoded: f.template,
              vulnStatus: f.vuln_status,
            },
          ])}]`,
        );
        expect(item).toMatchObject({ vuln_id: f.id, target: f.target, template_encoded: f.template });
      }),
      { numRuns: 300 },
    );
  });
});
