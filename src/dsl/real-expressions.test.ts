import { describe, expect, it } from 'vitest';
import { compileExpression, compileTemplateString, type DslValue, type TemplateString } from './index.js';
import { compiled, scopeOf } from './testing/evaluate.js';
import { REAL_DSL, REAL_TEMPLATE_TEXT } from './testing/real-expressions.js';

/** A value for every variable a template may read, so that rendering leaves nothing unresolved. */
function fullScope(names: readonly string[]): ReadonlyMap<string, DslValue> {
  return new Map(names.map((name) => [name, `<${name}>`]));
}

function template(text: string): TemplateString {
  const result = compileTemplateString(text);
  if (!('render' in result)) throw new Error(`${JSON.stringify(text)} does not compile: ${result.message}`);
  return result;
}

describe('dsl expressions of public templates', () => {
  it('holds at least 30 expressions', () => {
    expect(REAL_DSL.length).toBeGreaterThanOrEqual(30);
  });

  it.each(REAL_DSL.map((entry) => [entry.dsl, entry.from]))('compiles %s (%s)', (dsl) => {
    const result = compileExpression(dsl);
    expect('evaluate' in result ? '' : result.message).toBe('');
  });

  it('evaluate against realistic responses as the templates intend', () => {
    const composer = compiled(REAL_DSL[0]?.dsl as string);
    expect(
      composer.evaluate(
        scopeOf({
          body: '{"packages": []}',
          header: 'Content-Type: application/octet-stream\r\n',
          status_code: 200,
        }),
      ),
    ).toBe(true);
    expect(compiled('body == "{\\"code\\":0}"').evaluate(scopeOf({ body: '{"code":0}' }))).toBe(true);
    expect(
      compiled('contains_any(body, "alt=\\"Superset\\"", "<title>Superset</title>")').evaluate(
        scopeOf({ body: '<img alt="Superset" src="/logo.png">' }),
      ),
    ).toBe(true);
    expect(
      compiled('status_code_1 == 200 && !contains(body_1,"flag=0")').evaluate(
        scopeOf({ status_code_1: 200, body_1: 'window.open("/index.htm")' }),
      ),
    ).toBe(true);
    expect(
      compiled("contains(body, '\u0000@\u0000')").evaluate(
        scopeOf({ body: '\u0000\u0000\u0000\u0001Bud1\u0000@\u0000' }),
      ),
    ).toBe(true);
  });

  it('resolve placeholders inside their string literals from the variables', () => {
    const upload = compiled('contains(body, "\\"name\\":\\"{{filename}}.php\\"")');
    expect(upload.variables).toEqual(['body', 'filename']);
    expect(upload.evaluate(scopeOf({ body: '{"name":"xkcdaa.php"}', filename: 'xkcdaa' }))).toBe(true);
    expect(upload.evaluate(scopeOf({ body: '{"name":"other.php"}', filename: 'xkcdaa' }))).toBe(false);

    const cors = compiled("contains(tolower(header), 'access-control-allow-origin: {{cors_origin}}')");
    expect(
      cors.evaluate(
        scopeOf({
          header: 'Access-Control-Allow-Origin: https://abcde.evil.com\r\n',
          cors_origin: 'https://abcde.evil.com',
        }),
      ),
    ).toBe(true);
  });

  it('compare a detected plugin version with the latest known one', () => {
    const outdated = compiled('compare_versions(internal_detected_version, concat("< ", last_version))');
    expect(outdated.evaluate(scopeOf({ internal_detected_version: '5.7.4', last_version: '5.9.3' }))).toBe(
      true,
    );
    expect(outdated.evaluate(scopeOf({ internal_detected_version: '5.9.3', last_version: '5.9.3' }))).toBe(
      false,
    );
  });
});

describe('request text of public templates', () => {
  it.each(REAL_TEMPLATE_TEXT.map((entry) => [entry.text, entry.from]))('compiles %j (%s)', (text) => {
    const compiledText = template(text);
    const rendered = compiledText.render(fullScope(compiledText.variables));
    expect(rendered.unresolved).toEqual([]);
  });

  it("render nuclei's helper-function examples to the documented values", () => {
    const expected: Record<string, string> = {
      '01: {{base64("Hello")}}': '01: SGVsbG8=',
      '02: {{base64(1234)}}': '02: MTIzNA==',
      '03: {{base64_decode("SGVsbG8=")}}': '03: Hello',
      '04: {{base64_py("Hello")}}': '04: SGVsbG8=\n',
      "05: {{compare_versions('v1.0.0', '>v0.0.1', '<v1.0.1')}}": '05: true',
      '06: {{concat("Hello", "world")}}': '06: Helloworld',
      '15: {{dec_to_hex(11111)}}': '15: 2b67',
      '18: {{gzip_decode(hex_decode("1f8b08000000000000fff248cdc9c907040000ffff8289d1f705000000"))}}':
        '18: Hello',
      '21: {{hmac("sha1", "test", "scrt")}}': '21: 8856b111056d946d5c6c92a21b43c233596623c6',
      '24: {{html_escape("<body>test</body>")}}': '24: &lt;body&gt;test&lt;/body&gt;',
      '26: {{join("_", "hello", "world")}}': '26: hello_world',
      '28: {{len(5555)}}': '28: 4',
      '31: {{mmh3("Hello")}}': '31: 316307400',
      '56: {{replace_regex("He123llo", "(\\\\d+)", "")}}': '56: Hello',
      '71: {{url_encode("https://projectdiscovery.io/test?a=1")}}':
        '71: https%3A%2F%2Fprojectdiscovery.io%2Ftest%3Fa%3D1',
      '74: {{zlib_decode(hex_decode("789cf248cdc9c907040000ffff058c01f5"))}}': '74: Hello',
      '80: {{sort("a1b2c3d4e5")}}': '80: 12345abcde',
      '82: {{join(" ", sort("b", "a", "2", "c", "3", "1", "d", "4"))}}': '82: 1 2 3 4 a b c d',
      '85: {{split("ab,cd,efg", ",", 2)}}': '85: [ab cd,efg]',
    };
    for (const [text, rendered] of Object.entries(expected)) {
      expect(template(text).render(scopeOf()).text).toBe(rendered);
    }
  });

  it('renders a Basic authorization header from payload credentials (rabbitmq-default-login)', () => {
    const text = template(REAL_TEMPLATE_TEXT[0]?.text as string);
    const rendered = text.render(
      scopeOf({ Hostname: 'mq.test:15672', username: 'guest', password: 'guest' }),
    );
    expect(rendered.text).toBe(
      'GET /api/whoami HTTP/1.1\nHost: mq.test:15672\nContent-Type: application/x-www-form-urlencoded\nAuthorization: Basic Z3Vlc3Q6Z3Vlc3Q=\n',
    );
  });

  it('skips nothing in a request whose variables are all known but leaves unknown ones listed', () => {
    const text = template('csrf_token={{csrf}}&section=general&this_install_title={{string}}');
    const rendered = text.render(scopeOf({ csrf: 'abc' }));
    expect(rendered.text).toBe('csrf_token=abc&section=general&this_install_title={{string}}');
    expect(rendered.unresolved).toEqual(['string']);
  });
});
