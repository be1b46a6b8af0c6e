/**
 * `keyhole scan` runs templates calling the helpers that reach another service (public_ip,
 * llm_prompt) with the command's environment, and says on stderr what they send and where
 * (docs/cli.md#helpers-that-reach-other-services).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StandIn, startStandIn } from '../../../dsl/testing/http-stand-in.js';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { Workspace } from '../../../scan/testing/workspace.js';

let host: TestHost;
let checkIp: StandIn;
let ws: Workspace;

const template = (id: string, header: string) => `id: ${id}
info:
  name: ${id}
  author: keyhole
  severity: info
http:
  - method: GET
    path: ["{{BaseURL}}/echo"]
    headers:
      X-Asked: '${header}'
    matchers:
      - type: word
        words: ["asked 203.0.113.9"]
`;

beforeAll(async () => {
  host = await startHost('127.0.0.1', (request) => ({ body: `asked ${request.headers['x-asked'] ?? ''}` }));
  checkIp = await startStandIn({ '/': { status: 200, body: '203.0.113.9\n' } });
  ws = new Workspace();
  ws.file('public-ip.yaml', template('public-ip', '{{public_ip()}}'));
  ws.file('llm.yaml', template('llm', '{{llm_prompt("hello")}}'));
});

afterAll(async () => {
  await Promise.all([host.close(), checkIp.close()]);
  ws.remove();
});

describe('scan with a template calling public_ip()', () => {
  it("asks the service the command's environment names, says so on stderr, and uses the answer", async () => {
    const result = await ws.cli(['scan', '-u', host.origin, '-t', 'public-ip.yaml', '--no-store'], {
      KEYHOLE_PUBLIC_IP_URL: `${checkIp.origin}/`,
    });
    expect(result.code, result.err).toBe(0);
    expect(result.err).toContain(
      `[INF] public_ip() asks ${checkIp.origin}/ for this machine's public address (once per run)`,
    );
    expect(result.out).toContain('[public-ip]');
    expect(host.requests.map((request) => request.headers['x-asked'])).toContain('203.0.113.9');
  });
});

describe('scan with a template calling llm_prompt()', () => {
  it('sends nothing without OPENAI_API_KEY, and says why on stderr once, and once for the template', async () => {
    const result = await ws.cli(
      ['scan', '-u', host.origin, '-u', `${host.origin}/other`, '-t', 'llm.yaml', '--no-store'],
      {},
    );
    expect(result.code, result.err).toBe(0);
    const warnings = result.err.split('\n').filter((line) => line.includes('OPENAI_API_KEY'));
    expect(warnings).toEqual([
      '[WRN] llm_prompt: OPENAI_API_KEY is not set: keyhole sends prompts to an LLM service only with a key (what needs its value is skipped)',
      '[WRN] [llm] requests not sent: {{llm_prompt("hello")}} failed: llm_prompt: OPENAI_API_KEY is not set: keyhole sends prompts to an LLM service only with a key',
    ]);
    expect(result.out).not.toContain('[llm]');
  });
});
