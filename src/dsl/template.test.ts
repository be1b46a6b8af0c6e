import { describe, expect, it } from 'vitest';
import { compileTemplateString, type DslSyntaxError, type TemplateString } from './index.js';
import { scopeOf, type Variables } from './testing/evaluate.js';

function template(text: string): TemplateString {
  const compiled = compileTemplateString(text);
  if (!('render' in compiled))
    throw new Error(`expected ${JSON.stringify(text)} to compile: ${compiled.message}`);
  return compiled;
}

function render(text: string, variables: Variables = {}): string {
  return template(text).render(scopeOf(variables)).text;
}

function templateError(text: string): DslSyntaxError {
  const compiled = compileTemplateString(text);
  if ('render' in compiled) throw new Error(`expected ${JSON.stringify(text)} not to compile`);
  return compiled;
}

describe('plain placeholders', () => {
  it('are replaced by the value of the variable', () => {
    expect(render('Host: {{Hostname}}', { Hostname: 'app.test' })).toBe('Host: app.test');
  });

  it('allow spaces inside the braces', () => {
    expect(render('user={{ username }}', { username: 'admin' })).toBe('user=admin');
  });

  it('take hyphenated names whole, as nuclei substitutes them textually', () => {
    const text = template('Cookie: {{wp-admin-cookie}}');
    expect(text.variables).toEqual(['wp-admin-cookie']);
    expect(text.render(scopeOf({ 'wp-admin-cookie': 'a=b' })).text).toBe('Cookie: a=b');
  });

  it('fall back to evaluating a hyphenated name as a subtraction when only its parts are known', () => {
    expect(render('{{a-b}}', { a: 5, b: 2 })).toBe('3');
  });

  it('render numbers in plain decimal and booleans as words', () => {
    expect(
      render('{{n}} {{big}} {{flag}} {{nothing}}', { n: 1.5, big: 1e21, flag: true, nothing: null }),
    ).toBe('1.5 1000000000000000000000 true ');
  });

  it('substitute the payload marker §name§', () => {
    expect(render('user=§username§', { username: 'root' })).toBe('user=root');
  });

  it('leave text between § that is not a marker name as it is', () => {
    expect(render('§ 5 BGB § and §§')).toBe('§ 5 BGB § and §§');
  });
});

describe('expression placeholders', () => {
  it('are evaluated when all their variables are known', () => {
    const text = "Authorization: Basic {{base64(username + ':' + password)}}";
    expect(render(text, { username: 'guest', password: 'guest' })).toBe(
      'Authorization: Basic Z3Vlc3Q6Z3Vlc3Q=',
    );
  });

  it('may call helpers without variables', () => {
    expect(render('{{base64("karaf:karaf")}}')).toBe('a2FyYWY6a2FyYWY=');
    expect(render("{{hex_encode('PING')}}\r\n")).toBe('50494e47\r\n');
  });

  it('resolve placeholders nested in string literals as values (nuclei audiocodes template)', () => {
    expect(render('psw={{url_encode(base64("{{password}}"))}}', { password: '1234' })).toBe(
      'psw=MTIzNA%3D%3D',
    );
    expect(render("{{base64('{{Host}}')}}", { Host: '127.0.0.1' })).toBe('MTI3LjAuMC4x');
  });

  it('never splice a nested value into the expression source', () => {
    const injected = { body: "value', 'missing') || print('x') || contains('" };
    expect(render("{{contains('{{body}}', 'needle')}}", injected)).toBe('false');
    expect(render("{{concat('{{body}}')}}", { body: 'a\nb\'c"d\\e' })).toBe('a\nb\'c"d\\e');
  });

  it('find the }} that closes a valid expression, skipping }} inside strings', () => {
    expect(render('{{concat("{{", 123, "*", 123, "}}")}}')).toBe('{{123*123}}');
    expect(render("{{hex_encode('{{')}}")).toBe('7b7b');
    expect(render("{{url_encode('test}aaa')}}")).toBe('test%7Daaa');
  });

  it('unescape string literals the way govaluate does', () => {
    const text = '_P_{{base64("{\\"iwp_action\\":\\"add_site\\",\\"params\\":{\\"username\\":\\"\\"}}")}}';
    expect(render(text)).toBe('_P_eyJpd3BfYWN0aW9uIjoiYWRkX3NpdGUiLCJwYXJhbXMiOnsidXNlcm5hbWUiOiIifX0=');
  });

  it('report a helper name that looks like a typo at compile time', () => {
    const error = templateError('X-Auth: {{base46(token)}}');
    expect(error.message).toBe('unknown function "base46" (did you mean "base64"?)');
    expect(error.offset).toBe(10);
  });

  it('report a helper called with the wrong number of arguments at compile time', () => {
    expect(templateError('{{base64()}}').message).toBe('base64() takes 1 argument, not 0');
  });

  it('list the variables they read, nested ones included', () => {
    expect(template('{{url_encode(base64("{{password}}"))}} {{user}}').variables).toEqual([
      'password',
      'user',
    ]);
  });
});

describe('text that is not an expression', () => {
  it('stays as written when it only combines literals (SSTI probes)', () => {
    expect(render('{{7*7}}')).toBe('{{7*7}}');
    expect(render('{{1+1}}')).toBe('{{1+1}}');
    expect(render(`{{"{{" + '123*123' + "}}"}}`)).toBe(`{{"{{" + '123*123' + "}}"}}`);
    expect(template('{{7*7}}').render(scopeOf()).unresolved).toEqual([]);
  });

  it('stays as written when it is not in the language', () => {
    const payload = "<p>{{constructor.constructor('alert(1)')()}}</p> {{#each items}} {{}} {{ }}";
    const rendered = template(payload).render(scopeOf());
    expect(rendered.text).toBe(payload);
    expect(rendered.unresolved).toEqual([]);
  });

  it('keeps JSON braces intact', () => {
    expect(render('{"a":{"b":{{value}}}}', { value: 1 })).toBe('{"a":{"b":1}}');
  });

  it('has nothing to substitute when the text has no placeholder', () => {
    const text = template('GET / HTTP/1.1');
    expect(text.hasPlaceholders).toBe(false);
    expect(text.render(scopeOf()).text).toBe('GET / HTTP/1.1');
  });
});

describe('unresolved placeholders', () => {
  it('stay as written and are listed', () => {
    const rendered = template('{{someTestData}}{{hex_encode("PING")}}').render(scopeOf());
    expect(rendered.text).toBe('{{someTestData}}50494e47');
    expect(rendered.unresolved).toEqual(['someTestData']);
  });

  it('say which variables are missing', () => {
    const rendered = template('{{base64(username + ":" + password)}}').render(scopeOf({ username: 'u' }));
    expect(rendered.text).toBe('{{base64(username + ":" + password)}}');
    expect(rendered.unresolved).toEqual(['base64(username + ":" + password)']);
    expect(rendered.details).toEqual([
      { placeholder: '{{base64(username + ":" + password)}}', missing: ['password'], error: undefined },
    ]);
  });

  it('include a nested placeholder whose variable is missing (no base64 of the literal marker)', () => {
    const rendered = template('{{base64("{{password}}")}}').render(scopeOf());
    expect(rendered.text).toBe('{{base64("{{password}}")}}');
    expect(rendered.details[0]?.missing).toEqual(['password']);
  });

  it('include a placeholder whose evaluation fails, with the reason', () => {
    const rendered = template('{{base64_decode(token)}}').render(scopeOf({ token: '%%%' }));
    expect(rendered.unresolved).toEqual(['base64_decode(token)']);
    expect(rendered.details[0]?.error).toContain('illegal base64');
  });

  it('include an unknown payload marker', () => {
    expect(template('§user§').render(scopeOf()).unresolved).toEqual(['user']);
  });
});

describe('substituted values', () => {
  it('are never scanned for placeholders again', () => {
    const secret = { body: '{{md5("Hello")}}-by-{{secret_token}}', secret_token: 'top-secret' };
    expect(render('/?x={{body}}', secret)).toBe('/?x={{md5("Hello")}}-by-{{secret_token}}');
  });
});

describe('adjacent markers', () => {
  it('resolve the innermost placeholder of doubled braces, as nuclei does', () => {
    expect(render('{{{{username}}}}', { username: 'guest' })).toBe('{{guest}}');
  });
});
