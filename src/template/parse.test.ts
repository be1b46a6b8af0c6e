import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../source/index.js';
import { type ParsedTemplate, type ParseOptions, parseTemplate, type TemplateResult } from './parse.js';
import type { PayloadFileReader } from './payloads.js';
import { writesOastName } from './placeholders.js';

const HEADER = 'id: t-1\ninfo:\n  name: T\n  author: me\n';

function parse(yaml: string, options?: ParseOptions): TemplateResult {
  return parseTemplate('t.yaml', yaml, options);
}

function ok(yaml: string, options?: ParseOptions): ParsedTemplate {
  const result = parse(yaml, options);
  if (result.status !== 'ok') {
    throw new Error(
      `expected OK, got ${result.status}: ${result.diagnostics.map(formatDiagnostic).join('\n')}`,
    );
  }
  return result.template;
}

function errors(yaml: string, options?: ParseOptions): string[] {
  const result = parse(yaml, options);
  return result.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
}

function warnings(yaml: string): string[] {
  return parse(yaml)
    .diagnostics.filter((d) => d.severity === 'warning')
    .map(formatDiagnostic);
}

function unsupported(yaml: string): string[] {
  const result = parse(yaml);
  if (result.status !== 'unsupported') throw new Error(`expected unsupported, got ${result.status}`);
  return result.features.map((f) => `${f.line}:${f.col} ${f.feature}`);
}

const GET = 'http:\n  - method: GET\n    path:\n      - "{{BaseURL}}/x"\n';

describe('parseTemplate: a minimal template', () => {
  it('reads with nuclei defaults: GET, body part, or-matchers, cookie jar on, no redirects', () => {
    const t = ok(
      `${HEADER}http:\n  - path: ["{{BaseURL}}"]\n    matchers:\n      - type: word\n        words: [x]\n`,
    );
    expect(t.id).toBe('t-1');
    const block = t.http[0];
    expect(block?.requests).toMatchObject({ kind: 'path', method: 'GET' });
    expect(block?.requests.kind === 'path' && block.requests.paths.map((p) => p.template.text)).toEqual([
      '{{BaseURL}}',
    ]);
    expect(block?.operators.model.matchersCondition).toBe('or');
    expect(block?.operators.model.matchers[0]).toMatchObject({
      type: 'word',
      part: 'body',
      condition: 'or',
      negative: false,
    });
    expect(block).toMatchObject({
      cookieJar: true,
      unsafe: false,
      redirects: { follow: 'none' },
      skipSecretFile: false,
    });
    expect(t.requestCount).toBe(1);
  });

  it('accepts the legacy "requests:" key', () => {
    expect(ok(`${HEADER}requests:\n  - path: ["{{BaseURL}}"]\n`).http).toHaveLength(1);
  });

  it('rejects "http:" and "requests:" together', () => {
    expect(errors(`${HEADER}${GET}requests:\n  - path: ["{{BaseURL}}"]\n`)[0]).toMatch(
      /t\.yaml:9:1: requests: use "http" or the older "requests", not both/,
    );
  });

  it('reports a template without requests', () => {
    expect(errors(HEADER)[0]).toMatch(/the template has no requests/);
  });

  it('reports YAML syntax errors with their position instead of throwing', () => {
    const result = parse('id: x\ninfo: [\n');
    expect(result.status).toBe('error');
    expect(result.diagnostics[0]?.line).toBeGreaterThan(0);
  });

  it('reports an empty file', () => {
    expect(errors('')).toEqual(['t.yaml:1:1: the template file is empty']);
  });
});

describe('id', () => {
  it.each(['CVE-2024-0204', 'grafana-default-login', 'a_b-c', 'x1'])('accepts %s', (id) => {
    expect(ok(`id: ${id}\ninfo:\n  name: T\n  author: me\n${GET}`).id).toBe(id);
  });

  it.each(['bad id', 'a--b', '-a', 'a-', 'ünï'])('rejects "%s" with the rule and an example', (id) => {
    expect(errors(`id: "${id}"\ninfo:\n  name: T\n  author: me\n${GET}`)[0]).toMatch(
      /t\.yaml:1:5: id: .* is not a valid template id; use letters and digits joined by single "-" or "_"/,
    );
  });

  it('is required', () => {
    expect(errors(`info:\n  name: T\n  author: me\n${GET}`)[0]).toMatch(/needs an "id"/);
  });
});

describe('info', () => {
  const info = (body: string) => ok(`id: t\ninfo:\n  name: T\n${body}${GET}`).info;

  it('splits a comma-separated author string, trims and lower-cases', () => {
    expect(info('  author: pdteam, SinKettu,nybble04\n').authors).toEqual(['pdteam', 'sinkettu', 'nybble04']);
  });

  it('takes authors and tags as lists too', () => {
    const i = info('  author: [A, b]\n  tags: [Tech, "x"]\n');
    expect([i.authors, i.tags]).toEqual([
      ['a', 'b'],
      ['tech', 'x'],
    ]);
  });

  it('takes tags as a comma-separated string', () => {
    expect(info('  author: me\n  tags: cve,cve2024, RCE\n').tags).toEqual(['cve', 'cve2024', 'rce']);
  });

  it('takes reference as a string or a list, keeping case', () => {
    expect(info('  author: me\n  reference: https://A.test/X\n').references).toEqual(['https://A.test/X']);
    expect(info('  author: me\n  reference:\n    - https://a\n    - https://b\n').references).toEqual([
      'https://a',
      'https://b',
    ]);
  });

  it('reads severity case-insensitively and leaves it undefined when absent', () => {
    expect(info('  author: me\n  severity: HIGH\n').severity).toBe('high');
    expect(info('  author: me\n').severity).toBeUndefined();
  });

  it('suggests the closest severity for a typo', () => {
    expect(errors(`id: t\ninfo:\n  name: T\n  author: me\n  severity: critcal\n${GET}`)[0]).toMatch(
      /5:13: info\.severity: unknown severity "critcal" \(did you mean "critical"\?\)/,
    );
  });

  it('types the classification: id lists lower-cased, scores as numbers', () => {
    const c = info(
      '  author: me\n  classification:\n    cve-id: CVE-2024-0204\n    cwe-id: CWE-346,CWE-942\n    cvss-metrics: CVSS:3.1/AV:N\n    cvss-score: 9.8\n    epss-score: 0.93048\n    epss-percentile: 0.99768\n    cpe: cpe:2.3:a:x\n',
    ).classification;
    expect(c).toEqual({
      'cve-id': ['cve-2024-0204'],
      'cwe-id': ['cwe-346', 'cwe-942'],
      'cvss-metrics': 'CVSS:3.1/AV:N',
      'cvss-score': 9.8,
      'epss-score': 0.93048,
      'epss-percentile': 0.99768,
      cpe: 'cpe:2.3:a:x',
    });
  });

  it('rejects a score that is not a number', () => {
    expect(
      errors(`id: t\ninfo:\n  name: T\n  author: me\n  classification:\n    cvss-score: high\n${GET}`)[0],
    ).toMatch(/info\.classification\.cvss-score: expected a number/);
  });

  it('keeps metadata value types: numbers, booleans, strings, lists', () => {
    const m = info(
      '  author: me\n  metadata:\n    max-request: 4\n    verified: true\n    ratio: 0.5\n    quoted: "4"\n    shodan-query:\n      - a\n      - b\n    empty:\n',
    ).metadata;
    expect(m).toEqual({
      'max-request': 4,
      verified: true,
      ratio: 0.5,
      quoted: '4',
      'shodan-query': ['a', 'b'],
      empty: null,
    });
  });

  it('reads description, impact and remediation', () => {
    const i = info('  author: me\n  description: d\n  impact: |\n    i\n  remediation: r\n');
    expect([i.description, i.impact, i.remediation]).toEqual(['d', 'i\n', 'r']);
  });

  it('requires a name and an author', () => {
    const found = errors(`id: t\ninfo:\n  severity: info\n${GET}`);
    expect(found.join('\n')).toMatch(/info\.name: info needs a "name"/);
    expect(found.join('\n')).toMatch(/info\.author: info needs an "author"/);
  });

  it('reports an unknown info key with a suggestion', () => {
    expect(errors(`id: t\ninfo:\n  name: T\n  author: me\n  tag: x\n${GET}`)[0]).toMatch(
      /5:3: info\.tag: unknown key "tag" \(did you mean "tags"\?\)/,
    );
  });
});

describe('variables and flow', () => {
  it('keeps variables in declaration order with values as written', () => {
    const t = ok(`${HEADER}variables:\n  b: "{{rand_base(5)}}"\n  a: 0123\n${GET}`);
    expect(t.variables.map((v) => [v.name, v.template.text])).toEqual([
      ['b', '{{rand_base(5)}}'],
      ['a', '0123'],
    ]);
  });

  it('rejects a variable that is not a single value', () => {
    expect(errors(`${HEADER}variables:\n  a: [1, 2]\n${GET}`)[0]).toMatch(
      /variables\.a: a variable holds one text value/,
    );
  });

  const twoBlocks = 'http:\n  - id: first\n    path: ["{{BaseURL}}/a"]\n  - path: ["{{BaseURL}}/b"]\n';

  it('reads a flow of http(N) joined by && into block indexes', () => {
    const t = ok(`${HEADER}flow: http(1) && http(2)\n${twoBlocks}`);
    expect(t.flow?.expression).toEqual({
      kind: 'and',
      left: { kind: 'http', block: 0 },
      right: { kind: 'http', block: 1 },
    });
  });

  it('accepts ||, parentheses and block ids', () => {
    const t = ok(`${HEADER}flow: (http("first") || http(2)) && http(1);\n${twoBlocks}`);
    expect(t.flow?.expression?.kind).toBe('and');
  });

  it('reports a flow that names a block that does not exist', () => {
    expect(errors(`${HEADER}flow: http(1) && http(3)\n${twoBlocks}`)[0]).toMatch(
      /flow: http\(3\) names no request block; the template has 2/,
    );
  });

  it('keeps a JavaScript flow as its source, with no chain expression', () => {
    const flow = 'http(1)\n  for (let x of iterate(template.ids)) {\n    set("x", x)\n    http("first")\n  }';
    const t = ok(`${HEADER}flow: |\n  ${flow}\n${twoBlocks}`);
    expect(t.flow?.source).toBe(`${flow.replaceAll('\n  ', '\n')}\n`);
    expect(t.flow?.expression).toBeUndefined();
  });

  it('reports a flow that is not valid JavaScript with its line and column', () => {
    expect(errors(`${HEADER}flow: |\n  http(1)\n  if (http(2) {\n    http(1)\n  }\n${twoBlocks}`)[0]).toMatch(
      /^t\.yaml:7:15: flow: the flow is not valid JavaScript: Unexpected token/,
    );
  });

  it('reports a literal http() reference in a JavaScript flow that names no block', () => {
    expect(errors(`${HEADER}flow: |\n  if (http(1)) {\n    http("second")\n  }\n${twoBlocks}`)[0]).toMatch(
      /^t\.yaml:7:5: flow: http\("second"\) names no request block; the template has 2/,
    );
  });

  it('marks flows that call other protocols as unsupported, by name', () => {
    expect(
      unsupported(`${HEADER}flow: |\n  dns()\n  for (let x of iterate(list)) { tcp(1) }\n${twoBlocks}`),
    ).toEqual(['6:3 flow calling dns()', '7:34 flow calling tcp()']);
  });
});

describe('request blocks', () => {
  const block = (yaml: string, options?: ParseOptions) => {
    const b = ok(`${HEADER}http:\n${yaml}`, options).http[0];
    if (b === undefined) throw new Error('no block');
    return b;
  };

  it('turns raw request line endings into CRLF', () => {
    const b = block('  - raw:\n      - |\n        GET / HTTP/1.1\n        Host: {{Hostname}}\n\n');
    expect(b.requests.kind === 'raw' && b.requests.raw.map((r) => r.template.text)).toEqual([
      'GET / HTTP/1.1\r\nHost: {{Hostname}}\r\n',
    ]);
  });

  it('warns of a malformed raw request line at the raw request, which is not sent (nuclei runs the template and fails that request)', () => {
    const yaml = `${HEADER}http:\n  - raw:\n      - |\n        GET\n        Host: x\n`;
    expect(ok(yaml).http[0]?.requests).toMatchObject({ kind: 'raw' });
    expect(warnings(yaml)[0]).toMatch(
      /t\.yaml:7:9: warning: http\[0\]\.raw\[0\]: malformed request line "GET"; .* it is not sent/,
    );
  });

  it('runs the raw requests of a block with raw and path, as nuclei does, and warns that the paths are ignored', () => {
    const yaml = `${HEADER}http:\n  - raw: ["GET /r HTTP/1.1"]\n    path: ["{{BaseURL}}/p"]\n`;
    expect(ok(yaml).http[0]?.requests).toMatchObject({ kind: 'raw' });
    expect(warnings(yaml)).toEqual([
      't.yaml:7:5: warning: http[0].path: "path:" is ignored: a block with "raw:" runs its raw requests, as nuclei does; move the paths to a block of their own to send them',
    ]);
  });

  it('reads method case-insensitively and rejects unknown methods', () => {
    expect(block('  - method: post\n    path: ["{{BaseURL}}"]\n').requests).toMatchObject({ method: 'POST' });
    expect(errors(`${HEADER}http:\n  - method: FETCH\n    path: ["{{BaseURL}}"]\n`)[0]).toMatch(
      /unknown HTTP method "FETCH"/,
    );
  });

  it('keeps headers in order with their casing and turns the body into CRLF lines', () => {
    const b = block(
      '  - method: POST\n    path: ["{{BaseURL}}"]\n    headers:\n      X-B: 2\n      x-a: "1"\n    body: |\n      a\n      b\n',
    );
    expect(b.headers.map((h) => [h.name, h.template.text])).toEqual([
      ['X-B', '2'],
      ['x-a', '1'],
    ]);
    expect(b.body?.template.text).toBe('a\r\nb\r\n');
  });

  it('reads the request flags', () => {
    const b = block(
      '  - raw: ["GET / HTTP/1.1\\r\\n\\r\\n"]\n    threads: 30\n    stop-at-first-match: true\n    disable-cookie: true\n    unsafe: true\n    skip-secret-file: true\n    skip-variables-check: true\n    disable-path-automerge: true\n    self-contained: true\n    max-size: 2048\n    cookie-reuse: true\n    req-condition: true\n',
    );
    expect(b).toMatchObject({
      threads: 30,
      stopAtFirstMatch: true,
      cookieJar: false,
      unsafe: true,
      skipSecretFile: true,
      skipVariablesCheck: true,
      disablePathAutomerge: true,
      selfContained: true,
      maxSize: 2048,
    });
  });

  it('applies template-level self-contained to every block', () => {
    expect(ok(`${HEADER}self-contained: true\n${GET}`).http[0]?.selfContained).toBe(true);
  });

  it('follows no redirects unless asked; host-redirects limits them to the same host', () => {
    expect(block('  - path: ["{{BaseURL}}"]\n    max-redirects: 3\n').redirects).toEqual({ follow: 'none' });
    expect(block('  - path: ["{{BaseURL}}"]\n    redirects: true\n').redirects).toEqual({
      follow: 'all',
      max: 10,
    });
    expect(
      block('  - path: ["{{BaseURL}}"]\n    host-redirects: true\n    max-redirects: 3\n').redirects,
    ).toEqual({
      follow: 'same-host',
      max: 3,
    });
  });

  it('ignores a matcher encoding other than hex, as nuclei does, with a warning', () => {
    const yaml = `${HEADER}http:\n  - path: ["{{BaseURL}}"]\n    matchers:\n      - type: word\n        encoding: base64\n        words: [x]\n`;
    expect(ok(yaml).http[0]?.operators.model.matchers).toHaveLength(1);
    expect(warnings(yaml)[0]).toMatch(/unknown encoding "base64" is ignored/);
  });

  it('sends method/path requests with unsafe as ordinary requests, as nuclei does, with a warning', () => {
    const yaml = `${HEADER}http:\n  - path: ["{{BaseURL}}"]\n    unsafe: true\n`;
    expect(ok(yaml).http[0]?.requests).toMatchObject({ kind: 'path' });
    expect(warnings(yaml)[0]).toMatch(
      /applies to raw requests only: these paths are sent as ordinary requests/,
    );
  });

  it('reports an unknown key with a suggestion and its position', () => {
    expect(errors(`${HEADER}http:\n  - path: ["{{BaseURL}}"]\n    stop-at-first-mach: true\n`)).toEqual([
      't.yaml:7:5: http[0].stop-at-first-mach: unknown key "stop-at-first-mach" (did you mean "stop-at-first-match"?)',
    ]);
  });

  it('reports a wrongly typed flag', () => {
    expect(errors(`${HEADER}http:\n  - path: ["{{BaseURL}}"]\n    redirects: yes please\n`)[0]).toMatch(
      /http\[0\]\.redirects: expected true or false/,
    );
  });
});

describe('payloads', () => {
  const withPayloads = (payloads: string, use = '{{user}}{{pass}}') =>
    `${HEADER}http:\n  - path: ["{{BaseURL}}/${use}"]\n${payloads}`;

  it('turn YAML numbers into their source text and count requests per attack', () => {
    const t = ok(
      withPayloads(
        '    attack: clusterbomb\n    payloads:\n      user: [root, mysql]\n      pass: [123456, 0123, true]\n',
      ),
    );
    const payloads = t.http[0]?.payloads;
    expect(payloads?.attack).toBe('clusterbomb');
    expect(payloads?.sets.map((s) => s.values.map((v) => v.text))).toEqual([
      ['root', 'mysql'],
      ['123456', '0123', 'true'],
    ]);
    expect(t.requestCount).toBe(6);
  });

  it('default to batteringram, which takes a single set', () => {
    expect(
      ok(withPayloads('    payloads:\n      user: [a, b]\n', '{{user}}')).http[0]?.payloads?.attack,
    ).toBe('batteringram');
    expect(errors(withPayloads('    payloads:\n      user: [a]\n      pass: [b]\n'))[0]).toMatch(
      /batteringram takes a single payload set, but 2 are given \(user, pass\); use "attack: pitchfork"/,
    );
  });

  it('reject an unknown attack type with a suggestion', () => {
    expect(
      errors(withPayloads('    attack: pitchfrok\n    payloads:\n      user: [a]\n      pass: [b]\n'))[0],
    ).toMatch(/unknown attack type "pitchfrok" \(did you mean "pitchfork"\?\)/);
  });

  it('drop a set no request or operator uses, with a warning', () => {
    const result = parse(
      withPayloads(
        '    attack: pitchfork\n    payloads:\n      user: [a]\n      unused_set: [b]\n',
        '{{user}}',
      ),
    );
    expect(result.status).toBe('ok');
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([
      't.yaml:10:7: warning: http[0].payloads.unused_set: payload "unused_set" is not used by any request or operator; it is ignored',
    ]);
  });

  it('take a multi-line string as one value per line', () => {
    const t = ok(withPayloads('    payloads:\n      user: |-\n        a\n        b\n', '{{user}}'));
    expect(t.http[0]?.payloads?.sets[0]?.values.map((v) => v.text)).toEqual(['a', 'b']);
  });

  it('read a payload file through the reader, recording where it came from', () => {
    const reader: PayloadFileReader = {
      read: (ref) =>
        ref === 'helpers/users.txt'
          ? { path: '/t/helpers/users.txt', values: ['x', 'y'] }
          : { error: 'nope' },
    };
    const t = ok(withPayloads('    payloads:\n      user: helpers/users.txt\n', '{{user}}'), {
      payloadFiles: reader,
    });
    expect(t.http[0]?.payloads?.sets[0]).toMatchObject({
      source: { kind: 'file', path: '/t/helpers/users.txt' },
    });
    expect(t.http[0]?.payloads?.sets[0]?.values.map((v) => v.text)).toEqual(['x', 'y']);
  });

  it('report a missing payload file at its value', () => {
    const reader: PayloadFileReader = { read: (ref) => ({ error: `payload file "${ref}" not found` }) };
    expect(
      errors(withPayloads('    payloads:\n      user: missing.txt\n', '{{user}}'), { payloadFiles: reader }),
    ).toEqual(['t.yaml:8:13: http[0].payloads.user: payload file "missing.txt" not found']);
  });
});

describe('matchers and extractors', () => {
  const ops = (yaml: string) => {
    const b = ok(`${HEADER}http:\n  - path: ["{{BaseURL}}"]\n${yaml}`).http[0];
    if (b === undefined) throw new Error('no block');
    return b.operators.model;
  };

  it('read every matcher type with its values and options', () => {
    const o = ops(
      [
        '    matchers-condition: and',
        '    matchers:',
        '      - type: word',
        '        part: header',
        '        words: ["a", "b"]',
        '        condition: and',
        '        case-insensitive: true',
        '        name: named',
        '      - type: regex',
        '        regex: ["(?i)x"]',
        '        negative: true',
        '      - type: status',
        '        status: [200, 302]',
        '      - type: size',
        '        size: [0, 10]',
        '      - type: binary',
        '        binary: ["504b"]',
        '      - type: dsl',
        '        dsl: ["status_code == 200"]',
        '        internal: true',
        '      - type: xpath',
        '        xpath: ["//a"]',
        '      - type: word',
        '        encoding: hex',
        '        words: ["6869"]',
        '        match-all: true',
        '',
      ].join('\n'),
    );
    expect(o.matchersCondition).toBe('and');
    expect(o.matchers.map((m) => m.type)).toEqual([
      'word',
      'regex',
      'status',
      'size',
      'binary',
      'dsl',
      'xpath',
      'word',
    ]);
    expect(o.matchers[0]).toEqual({
      name: 'named',
      part: 'header',
      condition: 'and',
      negative: false,
      internal: false,
      caseInsensitive: true,
      matchAll: false,
      type: 'word',
      words: ['a', 'b'],
    });
    expect(o.matchers[1]).toMatchObject({ negative: true, regex: ['(?i)x'] });
    expect(o.matchers[2]).toMatchObject({ status: [200, 302] });
    expect(o.matchers[5]).toMatchObject({ internal: true });
    expect(o.matchers[7]).toMatchObject({ encoding: 'hex', matchAll: true });
  });

  it('read every extractor type', () => {
    const o = ops(
      [
        '    extractors:',
        '      - type: regex',
        '        name: token',
        '        internal: true',
        '        group: 1',
        '        part: header',
        '        regex: ["t=(\\\\w+)"]',
        '      - type: kval',
        '        kval: [Server]',
        '      - type: json',
        '        json: [".data.url"]',
        '      - type: xpath',
        '        xpath: ["/html/body/input"]',
        '        attribute: value',
        '      - type: dsl',
        '        dsl: ["len(body)"]',
        '',
      ].join('\n'),
    );
    expect(o.extractors[0]).toEqual({
      name: 'token',
      part: 'header',
      internal: true,
      caseInsensitive: false,
      type: 'regex',
      regex: ['t=(\\w+)'],
      group: 1,
    });
    expect(o.extractors.map((e) => e.type)).toEqual(['regex', 'kval', 'json', 'xpath', 'dsl']);
    expect(o.extractors[3]).toMatchObject({ attribute: 'value' });
  });

  it('require the values field of the matcher type', () => {
    expect(
      errors(
        `${HEADER}http:\n  - path: ["{{BaseURL}}"]\n    matchers:\n      - type: word\n        regex: [x]\n`,
      )[0],
    ).toMatch(/http\[0\]\.matchers\[0\]: a word matcher needs "words:"/);
  });

  it('reject a status that is not an HTTP status code', () => {
    expect(
      errors(
        `${HEADER}http:\n  - path: ["{{BaseURL}}"]\n    matchers:\n      - type: status\n        status: [abc]\n`,
      )[0],
    ).toMatch(/matchers\[0\]\.status\[0\]: expected a whole number, found "abc"/);
  });

  it('reject an unknown condition', () => {
    expect(errors(`${HEADER}http:\n  - path: ["{{BaseURL}}"]\n    matchers-condition: xor\n`)[0]).toMatch(
      /matchers-condition: expected "and" or "or", found "xor"/,
    );
  });
});

describe('unsupported features', () => {
  it.each([
    ['read-all', '    read-all: true\n', 'read-all'],
    ['pipeline', '    pipeline: true\n', 'pipeline'],
    ['digest auth', '    digest-username: u\n', 'digest authentication (digest-username)'],
    ['iterate-all', '    iterate-all: true\n', 'iterate-all'],
  ])('makes a template with %s unsupported, by name and position', (_, yaml, feature) => {
    expect(unsupported(`${HEADER}http:\n  - path: ["{{BaseURL}}"]\n${yaml}`)[0]).toBe(`7:5 ${feature}`);
  });

  it('marks fuzzing templates unsupported even without raw or path', () => {
    expect(unsupported(`${HEADER}http:\n  - fuzzing:\n      - part: query\n`)).toEqual(['6:5 fuzzing']);
  });

  it.each([
    'dns',
    'tcp',
    'network',
    'headless',
    'code',
    'javascript',
    'file',
    'ssl',
    'websocket',
    'whois',
    'workflows',
  ])('marks the %s protocol unsupported', (key) => {
    expect(unsupported(`${HEADER}${key}:\n  - x: 1\n`)[0]).toMatch(new RegExp(`^5:1 ${key}`));
  });

  it('runs {{interactsh-url}} in a request, and interactsh parts and dsl in matchers', () => {
    const raw = `${HEADER}http:\n  - raw:\n      - |\n        GET /?u={{interactsh-url}} HTTP/1.1\n        Host: {{Hostname}}\n`;
    const matchers = `    matchers:\n      - type: word\n        part: interactsh_protocol\n        words: [dns]\n      - type: dsl\n        dsl: ["contains(interactsh_request, 'x')"]\n`;
    expect(parse(`${raw}${matchers}`).status).toBe('ok');
  });

  it('marks {{interactsh-url}} unsupported where no request gives it a callback name: matcher values', () => {
    expect(
      unsupported(
        `${HEADER}${GET}    matchers:\n      - type: word\n        words: ["{{interactsh-url}}"]\n`,
      )[0],
    ).toMatch(/out-of-band testing \(\{\{interactsh-url\}\}\)/);
  });

  it('counts a variable holding {{interactsh-url}} as written by the blocks that use it', () => {
    const t = ok(
      `${HEADER}variables:\n  cb: "http://{{interactsh-url}}"\nhttp:\n  - path: ["{{BaseURL}}/?u={{cb}}"]\n  - path: ["{{BaseURL}}/plain"]\n`,
    );
    expect(t.http.map(writesOastName)).toEqual([true, false]);
  });

  it('reports errors rather than unsupported when a template has both', () => {
    expect(parse(`id: "bad id"\ninfo:\n  name: T\n  author: me\n${GET}    pipeline: true\n`).status).toBe(
      'error',
    );
  });
});

describe('race and constants', () => {
  it('reads race_count as the first request sent that many times, counted so', () => {
    const t = ok(
      `${HEADER}http:\n  - path: ["{{BaseURL}}/a", "{{BaseURL}}/b"]\n    race: true\n    race_count: 10\n`,
    );
    expect(t.http[0]?.race).toEqual({ kind: 'count', count: 10 });
    expect(t.requestCount).toBe(10);
  });

  it('reads race with threads as every request raced threads at a time', () => {
    const t = ok(`${HEADER}${GET}    race: true\n    threads: 5\n`);
    expect(t.http[0]?.race).toEqual({ kind: 'threads' });
  });

  it('warns that race alone sends the requests one after another, as nuclei does', () => {
    const result = parse(`${HEADER}${GET}    race: true\n`);
    expect(result.status).toBe('ok');
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([
      't.yaml:9:5: warning: http[0].race: "race: true" without "race_count" or "threads" sends the requests one after another, as nuclei does; add "race_count: N" to send the first request N times at once',
    ]);
  });

  it('reads constants as written, numbers with their source text', () => {
    const t = ok(`${HEADER}constants:\n  key: "{{not_rendered}}"\n  version: 2.0\n${GET}`);
    expect([...t.constants]).toEqual([
      ['key', '{{not_rendered}}'],
      ['version', '2.0'],
    ]);
  });

  it('refuses a constant that is not one value', () => {
    expect(errors(`${HEADER}constants:\n  keys: [a, b]\n${GET}`)).toEqual([
      't.yaml:6:9: constants.keys: a constant holds one value (text or a number), not a list or a mapping',
    ]);
  });
});

describe('randstr', () => {
  it('lists the randstr names the template uses', () => {
    const t = ok(`${HEADER}http:\n  - path: ["{{BaseURL}}/{{randstr}}/{{randstr_1}}/{{randstr}}"]\n`);
    expect(t.randstrNames).toEqual(['randstr', 'randstr_1']);
  });
});
