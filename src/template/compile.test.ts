import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../source/index.js';
import { type ParsedTemplate, parseTemplate } from './parse.js';
import type { PayloadFileReader } from './payloads.js';

const HEADER = 'id: t-1\ninfo:\n  name: T\n  author: me\n';

function lines(...body: string[]): string {
  return `${HEADER}${body.join('\n')}\n`;
}

function errors(text: string, payloadFiles?: PayloadFileReader): string[] {
  const result = parseTemplate('t.yaml', text, payloadFiles === undefined ? {} : { payloadFiles });
  return result.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
}

function ok(text: string, payloadFiles?: PayloadFileReader): ParsedTemplate {
  const result = parseTemplate('t.yaml', text, payloadFiles === undefined ? {} : { payloadFiles });
  if (result.status !== 'ok') {
    throw new Error(
      `expected OK, got ${result.status}: ${result.diagnostics.map(formatDiagnostic).join('\n')}`,
    );
  }
  return result.template;
}

describe('placeholders of request text are compiled when the template is read', () => {
  it('reports an unknown helper in a raw request at its line and column, with the closest name', () => {
    const text = lines(
      'http:',
      '  - raw:',
      '      - |',
      '        GET /?q={{url_encode(query)}} HTTP/1.1',
      '        Host: {{Hostname}}',
      '        Authorization: Basic {{base46(username + ":" + password)}}',
      '',
    );
    expect(errors(text)).toEqual([
      't.yaml:10:32: http[0].raw[0]: unknown function "base46" (did you mean "base64"?)',
    ]);
  });

  it('reports an unknown helper in a header value at its column inside the quotes', () => {
    const text = lines(
      'http:',
      '  - method: GET',
      '    path:',
      '      - "{{BaseURL}}/api"',
      '    headers:',
      '      X-Token: "{{sha256(to_lowr(token))}}"',
    );
    expect(errors(text)).toEqual([
      't.yaml:10:26: http[0].headers.X-Token: unknown function "to_lowr" (did you mean "to_lower"?)',
    ]);
  });

  it('reports an unknown helper in a variables value, counting escapes as written', () => {
    const text = lines(
      'variables:',
      "  greeting: 'it''s {{to_uper(name)}}'",
      'http:',
      '  - path: ["{{BaseURL}}/?g={{greeting}}"]',
    );
    expect(errors(text)).toEqual([
      't.yaml:6:22: variables.greeting: unknown function "to_uper" (did you mean "to_upper"?)',
    ]);
  });

  it('reports a helper called with the wrong number of arguments in a body', () => {
    const text = lines(
      'http:',
      '  - method: POST',
      '    path: ["{{BaseURL}}/login"]',
      '    body: "user={{url_encode(user, 1)}}"',
    );
    expect(errors(text)).toEqual(['t.yaml:8:19: http[0].body: url_encode() takes 1 argument, not 2']);
  });

  it('reports an unknown helper in a path and in an inline payload value', () => {
    const text = lines(
      'http:',
      '  - path:',
      '      - "{{BaseURL}}/{{md6(path)}}"',
      '    payloads:',
      '      path:',
      '        - admin',
      '        - "{{rand_bse(8)}}"',
    );
    expect(errors(text)).toEqual([
      't.yaml:7:24: http[0].path[0]: unknown function "md6" (did you mean "md5"?)',
      't.yaml:11:14: http[0].payloads.path[1]: unknown function "rand_bse" (did you mean "rand_base"?)',
    ]);
  });

  it('reports a payload file value that does not compile at the file reference', () => {
    const reader: PayloadFileReader = {
      read: () => ({ path: '/t/users.txt', values: ['admin', '{{bas64(user)}}'] }),
    };
    const text = lines(
      'http:',
      '  - path: ["{{BaseURL}}/{{user}}"]',
      '    payloads:',
      '      user: users.txt',
    );
    expect(errors(text, reader)).toEqual([
      't.yaml:8:13: http[0].payloads.user: value 2 of payload file "users.txt" ("{{bas64(user)}}"): ' +
        'unknown function "bas64" (did you mean "base64"?)',
    ]);
  });

  it('reports every fault of a template at once', () => {
    const text = lines(
      'variables:',
      '  a: "{{bse64(x)}}"',
      'http:',
      '  - raw:',
      '      - |',
      '        GET /{{md6(a)}} HTTP/1.1',
      '        Host: {{Hostname}}',
      '    headers:',
      '      X: "{{sha5(a)}}"',
    );
    expect(errors(text).map((e) => e.split(': ')[0])).toEqual(['t.yaml:6:9', 't.yaml:10:16', 't.yaml:13:13']);
  });

  it('leaves text that only looks like a placeholder as written: SSTI and XSS probes are not errors', () => {
    const t = ok(
      lines(
        'http:',
        '  - raw:',
        '      - |',
        '        POST /render HTTP/1.1',
        '        Host: {{Hostname}}',
        '',
        "        name={{7*7}}&x={{constructor.constructor('alert(1)')()}}&y={{#each}}&p={{probe}}",
        '    payloads:',
        '      probe:',
        '        - "{{7*7}}"',
        '        - "#{{7*7}}"',
        '        - "{{\'\'.__class__.__mro__}}"',
        '        - "{{probe}}"',
        '    matchers:',
        '      - type: word',
        '        words: ["{{7*7}}", "49"]',
      ),
    );
    const block = t.http[0];
    const raw = block?.requests.kind === 'raw' ? block.requests.raw[0] : undefined;
    const rendered = raw?.template.render(
      new Map([
        ['Hostname', 'app.test'],
        ['probe', '{{7*7}}'],
      ]),
    );
    expect(rendered?.text).toBe(
      "POST /render HTTP/1.1\r\nHost: app.test\r\n\r\nname={{7*7}}&x={{constructor.constructor('alert(1)')()}}&y={{#each}}&p={{7*7}}\r\n",
    );
    expect(rendered?.unresolved).toEqual([]);
    expect(block?.payloads?.sets[0]?.values.map((v) => [v.text, v.hasPlaceholders])).toEqual([
      ['{{7*7}}', false],
      ['#{{7*7}}', false],
      ["{{''.__class__.__mro__}}", false],
      ['{{probe}}', true],
    ]);
  });

  it('ends a placeholder at the }} that closes its expression, not at one inside a string', () => {
    const t = ok(lines('http:', '  - path:', '      - \'{{BaseURL}}/?q={{concat("{{", user, "}}")}}\''));
    const path = t.http[0]?.requests.kind === 'path' ? t.http[0].requests.paths[0] : undefined;
    expect(path?.template.variables).toEqual(['BaseURL', 'user']);
    expect(
      path?.template.render(
        new Map([
          ['BaseURL', 'https://app.test'],
          ['user', 'x'],
        ]),
      ).text,
    ).toBe('https://app.test/?q={{x}}');
  });

  it('holds compiled forms that render with the values of a run', () => {
    const t = ok(
      lines(
        'variables:',
        '  auth: "{{base64(username + \':\' + password)}}"',
        'http:',
        '  - method: POST',
        '    path: ["{{BaseURL}}/login"]',
        '    headers:',
        '      Authorization: Basic {{auth}}',
        '      X-Empty:',
        '    body: |',
        '      user={{url_encode(username)}}',
        '      pass={{password}}',
      ),
    );
    const scope = new Map([
      ['username', 'admin'],
      ['password', 'p@ss word'],
    ]);
    const auth = t.variables[0]?.template.render(scope).text ?? '';
    expect(auth).toBe('YWRtaW46cEBzcyB3b3Jk');
    const block = t.http[0];
    expect(block?.headers.map((h) => [h.name, h.template.render(new Map([['auth', auth]])).text])).toEqual([
      ['Authorization', `Basic ${auth}`],
      ['X-Empty', ''],
    ]);
    expect(block?.body?.template.render(scope).text).toBe('user=admin\r\npass=p@ss word\r\n');
    expect(block?.body?.template.render(new Map()).unresolved).toEqual(['url_encode(username)', 'password']);
  });

  it('gives an out-of-band marker the callback name of the request, also inside a helper call', () => {
    const result = parseTemplate(
      't.yaml',
      lines('http:', '  - path:', '      - \'{{BaseURL}}/?u={{base64("{{interactsh-url}}")}}\''),
    );
    expect(result.status).toBe('ok');
    const block = result.status === 'ok' ? result.template.http[0] : undefined;
    const path = block?.requests.kind === 'path' ? block.requests.paths[0] : undefined;
    const scope = new Map([
      ['BaseURL', 'http://t'],
      ['interactsh-url', 'abc.oast.test'],
    ]);
    expect(path?.template.render(scope).text).toBe(
      `http://t/?u=${Buffer.from('abc.oast.test').toString('base64')}`,
    );
  });
});

describe('a template calling wappalyzer()', () => {
  it('is valid wherever the call is, in a request or in a dsl matcher', () => {
    ok(lines('http:', '  - path: ["{{BaseURL}}/{{wappalyzer(header, body)}}"]'));
    ok(
      lines(
        'http:',
        '  - path: ["{{BaseURL}}"]',
        '    matchers:',
        '      - type: dsl',
        '        dsl:',
        '          - status_code == 200 && contains(wappalyzer(header, body), "Nginx")',
      ),
    );
  });
});

describe('matchers and extractors are compiled when the template is read', () => {
  it('reports an unknown helper in a dsl matcher at its line and column', () => {
    const text = lines(
      'http:',
      '  - path: ["{{BaseURL}}"]',
      '    matchers:',
      '      - type: dsl',
      '        dsl:',
      '          - status_code == 200',
      '          - "contains(body, \\"admin\\") && contians(body, \\"panel\\")"',
    );
    expect(errors(text)).toEqual([
      't.yaml:11:43: http[0].matchers[0].dsl[1]: unknown function "contians" (did you mean "contains"?)',
    ]);
  });

  it('follows a quoted expression over the lines YAML folds it from', () => {
    const text = lines(
      'http:',
      '  - path: ["{{BaseURL}}"]',
      '    matchers:',
      '      - type: dsl',
      '        dsl:',
      '          - "status_code == 200 &&',
      "            contians(body, 'admin')\"",
    );
    expect(errors(text)).toEqual([
      't.yaml:11:13: http[0].matchers[0].dsl[0]: unknown function "contians" (did you mean "contains"?)',
    ]);
  });

  it('reports an unknown helper in a dsl extractor and a near-miss in a word', () => {
    const text = lines(
      'http:',
      '  - path: ["{{BaseURL}}"]',
      '    matchers:',
      '      - type: word',
      '        words: ["{{to_uper(name)}}"]',
      '    extractors:',
      '      - type: dsl',
      '        dsl:',
      '          - md6(body)',
    );
    expect(errors(text)).toEqual([
      't.yaml:9:20: http[0].matchers[0].words[0]: unknown function "to_uper" (did you mean "to_upper"?)',
      't.yaml:13:13: http[0].extractors[0].dsl[0]: unknown function "md6" (did you mean "md5"?)',
    ]);
  });

  it('reports a regex that is not RE2 at its value, with the syntax to use', () => {
    const text = lines(
      'http:',
      '  - path: ["{{BaseURL}}"]',
      '    matchers:',
      '      - type: regex',
      '        regex:',
      '          - "ok"',
      "          - 'version (\\d+'",
      '    extractors:',
      '      - type: regex',
      '        regex: ["(?<=v)[0-9]+"]',
    );
    const found = errors(text);
    expect(found[0]).toMatch(
      /^t\.yaml:11:13: http\[0\]\.matchers\[0\]\.regex\[1\]: invalid regular expression .*missing closing \).*Go RE2 syntax/,
    );
    expect(found[1]).toMatch(
      /^t\.yaml:14:17: http\[0\]\.extractors\[0\]\.regex\[0\]: invalid .*Go RE2 syntax/,
    );
    expect(found).toHaveLength(2);
  });

  it('reports an option the operator type does not take at the option', () => {
    const text = lines(
      'http:',
      '  - path: ["{{BaseURL}}"]',
      '    matchers:',
      '      - type: dsl',
      '        case-insensitive: true',
      '        dsl: ["true"]',
    );
    expect(errors(text)).toEqual([
      't.yaml:9:9: http[0].matchers[0].case-insensitive: is supported only by word matchers, not by dsl matchers',
    ]);
  });

  it('gives the block compiled operators the engine runs as they are', () => {
    const t = ok(
      lines(
        'http:',
        '  - path: ["{{BaseURL}}"]',
        '    matchers-condition: and',
        '    matchers:',
        '      - type: dsl',
        '        dsl: ["status_code == 200 && contains(body, \'{{marker}}\')"]',
        '    extractors:',
        '      - type: dsl',
        '        dsl: ["to_upper(marker)"]',
      ),
    );
    const operators = t.http[0]?.operators;
    const result = operators?.execute({
      variables: new Map<string, string | number>([
        ['status_code', 200],
        ['body', 'hello keyhole'],
        ['marker', 'keyhole'],
      ]),
    });
    expect(result?.matched).toBe(true);
    expect(result?.outputExtracts).toEqual(['KEYHOLE']);
  });
});
