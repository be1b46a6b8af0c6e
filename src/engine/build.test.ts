import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTargetUrl, type TargetUrl } from '../targets/index.js';
import { BuildError, type BuildSettings, buildPathRequest, buildRawRequest } from './build.js';

const target = parseTargetUrl('https://app.example:8443/base?t=1') as TargetUrl;
const settings: BuildSettings = {
  blockHeaders: [['X-Block', 'b']],
  extraHeaders: [['X-Cli', 'c']],
  userAgent: 'ua',
  disablePathAutomerge: false,
};

describe('building requests from rendered text', () => {
  it('never throws on any rendered raw text, and sends to the target unless an @Host annotation says otherwise', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.boolean(), (text, unsafe) => {
        const built = buildRawRequest(text, target, settings, unsafe);
        if (built instanceof BuildError) return;
        const where = built.kind === 'http' ? built.request : built.destination;
        if (!text.trimStart().startsWith('@')) {
          expect([where.hostname, where.port]).toEqual(['app.example', 8443]);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on any rendered path, and keeps the target query first', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (suffix) => {
        const built = buildPathRequest(
          { method: 'GET', url: `https://app.example:8443/base${suffix}`, targetQuery: 't=1' },
          settings,
        );
        if (built instanceof BuildError || built.kind !== 'http') return;
        expect(built.request.hostname).toBe('app.example');
        if (built.request.target.includes('?'))
          expect(built.request.target.split('?')[1]?.startsWith('t=1')).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('sets block headers over the raw request and -H headers over both', () => {
    const built = buildRawRequest(
      'GET /x HTTP/1.1\r\nX-Block: raw\r\nX-Cli: raw\r\n\r\n',
      target,
      settings,
      false,
    );
    if (built instanceof BuildError || built.kind !== 'http') throw new Error('not built');
    expect(built.request.headers).toEqual([
      ['Host', 'app.example:8443'],
      ['X-Block', 'b'],
      ['X-Cli', 'c'],
      ['User-Agent', 'ua'],
    ]);
    expect(built.request.target).toBe('/base/x?t=1');
  });

  it('sends an @Host request to the annotated host', () => {
    const built = buildRawRequest(
      '@Host: http://other.example:81\r\nGET /x HTTP/1.1\r\n\r\n',
      target,
      settings,
      false,
    );
    if (built instanceof BuildError || built.kind !== 'http') throw new Error('not built');
    expect([built.request.scheme, built.request.hostname, built.request.port]).toEqual([
      'http',
      'other.example',
      81,
    ]);
  });
});

describe('request annotations', () => {
  const built = (text: string) => {
    const request = buildRawRequest(text, target, settings, false);
    if (request instanceof BuildError || request.kind !== 'http') throw new Error('not built');
    return request;
  };

  it('@tls-sni: request.host presents the Host header, without its port', () => {
    expect(built('@tls-sni: request.host\r\nGET / HTTP/1.1\r\nHost: test\r\n\r\n').tlsServerName).toBe(
      'test',
    );
    expect(built('@tls-sni:request.host\r\nGET / HTTP/1.1\r\n\r\n').tlsServerName).toBe('app.example');
  });

  it('@tls-sni: NAME presents NAME, its scheme dropped; an IP address is no server name', () => {
    expect(built('@tls-sni: https://sni.example\r\nGET / HTTP/1.1\r\n\r\n').tlsServerName).toBe(
      'sni.example',
    );
    expect(built('@tls-sni: 10.0.0.1\r\nGET / HTTP/1.1\r\n\r\n').tlsServerName).toBeUndefined();
  });

  it("@Host: NAME without a port keeps the request's own port", () => {
    const request = built('@Host: other.example\r\nGET / HTTP/1.1\r\n\r\n').request;
    expect([request.scheme, request.hostname, request.port]).toEqual(['https', 'other.example', 8443]);
  });

  it('@timeout: sets the request timeout', () => {
    expect(built('@timeout: 25s\r\nGET / HTTP/1.1\r\n\r\n').timeoutMs).toBe(25_000);
  });
});
