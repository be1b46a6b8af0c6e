import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTarget, describeTargetProblem, parseTargetList, readTargetList } from './targets.js';

describe('target lists', () => {
  it('accepts URLs, hosts, host:port and IP addresses', () => {
    for (const target of [
      'https://app.example.test',
      'http://app.example.test:8080/login?next=/',
      'app.example.test',
      'app.example.test:8443',
      'internal_host',
      'bücher.example',
      '10.0.0.1',
      '10.0.0.1:8080',
      '::1',
      '2001:db8::1',
      '[2001:db8::1]:8443',
      'http://[::1]:8080/',
      'example.test.',
    ]) {
      expect(checkTarget(target), target).toMatchObject({ ok: true });
    }
  });

  it('refuses what is not a target, saying why', () => {
    const cases: [string, RegExp][] = [
      ['exa mple.test', /no spaces/],
      ['ftp://files.test', /unsupported scheme "ftp"/],
      ['https://', /not a valid URL/],
      ['999.1.1.1', /not a valid IPv4/],
      ['1.2.3', /not a valid IPv4/],
      ['app.test:99999', /out of range/],
      ['app.test:http', /not a number/],
      ['10.0.0.0/24', /CIDR/],
      ['app.test/admin', /needs a scheme/],
      ['-bad-.test', /not a valid host name/],
      ['1:2:3', /not a valid IPv6/],
      ['[zz::1]:80', /IPv6/],
      [':8080', /empty/],
    ];
    for (const [text, message] of cases) {
      const checked = checkTarget(text);
      expect(checked.ok, text).toBe(false);
      if (!checked.ok) expect(checked.message, text).toMatch(message);
    }
  });

  it('skips blank lines and comments, drops duplicates and numbers bad lines', () => {
    const list = parseTargetList(
      [
        '# production hosts',
        'https://app.example.test',
        '',
        '   ',
        'HTTPS://APP.example.test:443   # same as line 2',
        'api.example.test:8443',
        'api.example.test:8443',
        'not a host',
        '10.0.0.1',
        '\tftp://x.test',
      ].join('\r\n'),
    );
    expect(list.targets).toEqual(['https://app.example.test', 'api.example.test:8443', '10.0.0.1']);
    expect(list.duplicates).toBe(2);
    expect(list.problems.map((p) => p.line)).toEqual([8, 10]);
    expect(list.problems[0]).toMatchObject({
      text: 'not a host',
      message: expect.stringContaining('no spaces'),
    });
  });

  it('reports a line over 64 KiB by number and size without keeping it, and reads on', async () => {
    const line = Buffer.alloc(1 << 20, 'a');
    async function* file() {
      yield 'https://one.test\n';
      for (let i = 0; i < 100; i++) yield line;
      yield '\ntwo.test\n';
    }
    const list = await readTargetList(file());
    expect(list.targets).toEqual(['https://one.test', 'two.test']);
    expect(list.problems.map((p) => [p.line, describeTargetProblem(p)])).toEqual([
      [2, 'the line is 100 MiB long, over the limit of 64 KiB for a target'],
    ]);
  });

  it('never throws on any input, and every kept target checks out on its own', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        const list = parseTargetList(text);
        for (const target of list.targets) expect(checkTarget(target).ok).toBe(true);
        expect(new Set(list.targets).size).toBe(list.targets.length);
      }),
      { numRuns: 2000 },
    );
  });
});
