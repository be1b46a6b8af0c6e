import { describe, expect, it } from 'vitest';
import { markdownFileName, markdownFinding, markdownIndexHeader, markdownIndexRow } from './markdown.js';
import { finding } from './testing/finding.js';

const TOOL = { name: 'keyhole', version: '0.1.0' };

describe('the markdown export', () => {
  it("indexes findings in nuclei's table of host, finding and severity, linking to their files", () => {
    const event = finding();
    const name = markdownFileName(event, 1);
    expect(markdownIndexHeader() + markdownIndexRow(event, name)).toBe(
      '| Hostname/IP | Finding | Severity |\n| --- | --- | --- |\n' +
        `| [app.example.com](${name}) | exposed-env body | high |\n`,
    );
  });

  it('names a finding file so that no host or template id can leave the folder', () => {
    const name = markdownFileName(finding({ host: '../../etc/passwd', 'template-id': 'a/b\\c' }), 7);
    expect(name).toBe('a_b_c-____etc_passwd-7-body.md');
    expect(name).not.toMatch(/[/\\]|\.\./);
  });

  it("writes a finding's details, template information, request and response", () => {
    const text = markdownFinding(
      finding({ request: 'GET /.env HTTP/1.1\r\nHost: app', response: 'HTTP/1.1 200 OK\r\n\r\n`x`' }),
      TOOL,
    );
    expect(text).toContain('### Exposed .env file (exposed-env:body) found on app.example.com\n----\n');
    expect(text).toContain('**Full URL**: https://app.example.com/.env?q=a b');
    expect(text).toContain('| Severity | high |');
    expect(text).toContain('| CWE-ID | CWE-200 |');
    expect(text).toContain('**Request**\n```http\nGET /.env HTTP/1.1');
    expect(text).toContain('\\`x\\`');
    expect(text).toContain('- DB_PASSWORD=[REDACTED]');
    expect(text).toContain('References: \n- https://docs.example/env');
  });

  it("cuts a response longer than 5 KiB, as nuclei's exporter does", () => {
    const text = markdownFinding(finding({ response: 'a'.repeat(6000) }), TOOL);
    expect(text).toContain(`${'a'.repeat(5120)}.... Truncated ....`);
    expect(text).not.toContain('a'.repeat(5121));
  });
});
