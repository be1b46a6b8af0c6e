import { afterEach, describe, expect, it, vi } from 'vitest';
import { evaluate, evaluationFailure } from '../testing/evaluate.js';
import { StandIns } from '../testing/http-stand-in.js';
import { unsupportedNucleiFunction } from './index.js';
import { registerOutbound } from './outbound.js';
import { PUBLIC_IP_SERVICE, publicIp } from './public-ip.js';

const standIns = new StandIns();
const service = (answers: Parameters<StandIns['start']>[0]) => standIns.start(answers);

afterEach(async () => {
  vi.unstubAllEnvs();
  await standIns.closeAll();
});

describe('public_ip()', () => {
  it('asks the service once per run, says so once, and gives its answer trimmed', async () => {
    const checkIp = await service({ '/ip': { status: 200, body: '203.0.113.7\n' } });
    const notices: string[] = [];
    const stop = registerOutbound({
      environment: process.env,
      announce: (notice) => notices.push(notice),
      warn: (message) => notices.push(`warning: ${message}`),
    });
    try {
      vi.stubEnv('KEYHOLE_PUBLIC_IP_URL', `${checkIp.origin}/ip`);
      expect(evaluate('public_ip()')).toBe('203.0.113.7');
      expect(evaluate('publicip() + "/32"')).toBe('203.0.113.7/32');
    } finally {
      stop();
    }
    expect((await checkIp.requests()).map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /ip',
    ]);
    expect(notices).toEqual([
      `public_ip() asks ${checkIp.origin}/ip for this machine's public address (once per run)`,
    ]);
  });

  it('asks nothing when KEYHOLE_PUBLIC_IP gives the address', async () => {
    const checkIp = await service({ '/': { status: 200, body: '198.51.100.1' } });
    const environment = { KEYHOLE_PUBLIC_IP: ' 2001:db8::1 ', KEYHOLE_PUBLIC_IP_URL: `${checkIp.origin}/` };
    expect(publicIp(environment)).toBe('2001:db8::1');
    expect(await checkIp.requests()).toEqual([]);
    expect(evaluationFailure(() => publicIp({ KEYHOLE_PUBLIC_IP: 'my-laptop' }))).toBe(
      'public_ip: KEYHOLE_PUBLIC_IP is not an IP address: "my-laptop"',
    );
  });

  it('fails clearly when the service answers an error or something other than an address', async () => {
    const checkIp = await service({
      '/down': { status: 503, body: 'maintenance' },
      '/html': { status: 200, body: '<html>203.0.113.7</html>' },
    });
    expect(evaluationFailure(() => publicIp({ KEYHOLE_PUBLIC_IP_URL: `${checkIp.origin}/down` }))).toBe(
      `public_ip: ${checkIp.origin}/down answered with status 503`,
    );
    expect(evaluationFailure(() => publicIp({ KEYHOLE_PUBLIC_IP_URL: `${checkIp.origin}/html` }))).toBe(
      `public_ip: ${checkIp.origin}/html answered with something other than an IP address`,
    );
    // a failure is kept for a while: the service is not asked before every request
    expect(evaluationFailure(() => publicIp({ KEYHOLE_PUBLIC_IP_URL: `${checkIp.origin}/down` }))).toMatch(
      /status 503/,
    );
    expect(await checkIp.requests()).toHaveLength(2);
  });

  it('fails clearly without a network path to the service, and on a setting that is not a URL', async () => {
    const closed = await service({});
    const url = `${closed.origin}/`;
    await closed.close();
    expect(evaluationFailure(() => publicIp({ KEYHOLE_PUBLIC_IP_URL: url }))).toBe(
      `public_ip: could not reach ${url} (ECONNREFUSED)`,
    );
    expect(evaluationFailure(() => publicIp({ KEYHOLE_PUBLIC_IP_URL: 'checkip' }))).toBe(
      'public_ip: KEYHOLE_PUBLIC_IP_URL is not a URL: "checkip"',
    );
    expect(evaluationFailure(() => publicIp({ KEYHOLE_PUBLIC_IP_URL: 'file:///etc/hostname' }))).toBe(
      'public_ip: KEYHOLE_PUBLIC_IP_URL must be an http or https URL, not file:',
    );
  });

  it("asks nuclei's service by default, and is no longer refused as unsupported", () => {
    expect(PUBLIC_IP_SERVICE).toBe('https://checkip.amazonaws.com/');
    expect(unsupportedNucleiFunction('public_ip')).toBeUndefined();
  });
});
