import { describe, expect, it } from 'vitest';
import { csvExport } from './csv.js';
import { finding } from './testing/finding.js';

describe('the CSV export', () => {
  it('has a header row and one row per finding with its id and status', () => {
    const lines = csvExport([{ id: 'v1', status: 'open', event: finding() }]).split('\r\n');
    expect(lines[0]).toBe(
      'vuln_id,status,template_id,name,severity,host,matched_at,matcher_name,extractor_name,extracted_results,cve_id,cwe_id,timestamp',
    );
    expect(lines[1]).toBe(
      'v1,open,exposed-env,Exposed .env file,high,app.example.com,https://app.example.com/.env?q=a b,body,,DB_PASSWORD=[REDACTED],,cwe-200,2026-01-02T03:04:05Z',
    );
    expect(lines[2]).toBe('');
  });

  it('quotes commas, quotes and line breaks, and defuses spreadsheet formulas', () => {
    const event = finding({ 'extracted-results': ['a,"b"\nc', '=HYPERLINK("x")'] });
    const row = csvExport([{ id: 'v1', status: 'open', event }])
      .split('\r\n')
      .slice(1)
      .join('\r\n');
    expect(row).toContain('"a,""b""\nc; =HYPERLINK(""x"")"');
    const formula = finding({ 'extracted-results': ['=1+1'] });
    expect(csvExport([{ id: 'v1', status: 'open', event: formula }])).toContain(",'=1+1,");
  });
});
