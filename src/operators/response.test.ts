import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesToText, replaceInvalidBytes, textToBytes, toText } from '../dsl/index.js';
import { goJson } from './go-json.js';
import {
  indexedResponseData,
  mergeResponseData,
  responseCookies,
  responseVariables,
  variablesOnly,
} from './response.js';
import { loginPage, response } from './testing/fixtures.js';

describe('responseVariables', () => {
  const data = response(loginPage);
  const v = data.variables;

  it('holds the parts nuclei’s responseToDSLMap builds', () => {
    expect(v.get('status_code')).toBe(200);
    expect(v.get('body')).toBe(loginPage.body);
    expect(v.get('content_length')).toBe(412);
    expect(v.get('duration')).toBe(0.125);
    expect(v.get('host')).toBe('https://app.test');
    expect(v.get('matched')).toBe('https://app.test/login');
    expect(v.get('request')).toBe('GET /login HTTP/1.1\r\nHost: app.test\r\n\r\n');
    expect(v.get('type')).toBe('http');
  });

  it('dumps the status line and headers as header and all_headers, and the whole response as raw', () => {
    const head =
      'HTTP/1.1 200 OK\r\nServer: Apache/2.4.57 (Debian)\r\nX-Powered-By: PHP/8.2.7\r\n' +
      'Set-Cookie: PHPSESSID=9b1f0c2a7d; path=/; HttpOnly\r\nSet-Cookie: csrftoken="tok-42"; Secure\r\n' +
      'Content-Type: text/html; charset=UTF-8\r\nContent-Length: 412\r\n\r\n';
    expect(v.get('header')).toBe(head);
    expect(v.get('all_headers')).toBe(head);
    expect(v.get('raw')).toBe(head + loginPage.body);
    expect(v.get('response')).toBe(head + loginPage.body);
    expect(v.get('all')).toBe(loginPage.body + head);
  });

  it('names each header lower-case with - as _, joining repeated ones, and each cookie by name', () => {
    expect(v.get('x_powered_by')).toBe('PHP/8.2.7');
    expect(v.get('content_type')).toBe('text/html; charset=UTF-8');
    expect(v.get('set_cookie')).toBe('PHPSESSID=9b1f0c2a7d; path=/; HttpOnly csrftoken="tok-42"; Secure');
    expect(v.get('phpsessid')).toBe('9b1f0c2a7d');
    expect(v.get('csrftoken')).toBe('tok-42');
  });

  it('lists its values in the order nuclei fills its map: variables, cookies, headers, then the fixed parts', () => {
    const withVars = response({ ...loginPage, variables: [['username', 'admin']] });
    expect([...withVars.variables.keys()]).toEqual([
      'username',
      'phpsessid',
      'csrftoken',
      'server',
      'x_powered_by',
      'set_cookie',
      'content_type',
      'content_length',
      'host',
      'type',
      'matched',
      'request',
      'response',
      'raw',
      'status_code',
      'body',
      'all_headers',
      'header',
      'all',
      'duration',
    ]);
    expect(withVars.variables.size).toBe(20);
    expect(new Map(withVars.variables).get('content_length')).toBe(412);
  });

  it('makes the request text only when it is read, once', () => {
    let made = 0;
    const data = responseVariables({
      response: { status: 200, headers: [], body: Buffer.from('ok') },
      request: () => {
        made += 1;
        return 'GET / HTTP/1.1\r\n\r\n';
      },
      host: 'https://app.test',
      matched: 'https://app.test/',
      durationMs: 1,
    });
    expect(data.variables.get('body')).toBe('ok');
    expect(made).toBe(0);
    expect(data.variables.get('request')).toBe('GET / HTTP/1.1\r\n\r\n');
    expect(data.variables.get('request')).toBe('GET / HTTP/1.1\r\n\r\n');
    expect(made).toBe(1);
  });

  it('lets response values win over template variables of the same name', () => {
    const withVars = response({
      status: 302,
      variables: [
        ['status_code', 1],
        ['username', 'admin'],
      ],
    });
    expect(withVars.variables.get('status_code')).toBe(302);
    expect(withVars.variables.get('username')).toBe('admin');
  });

  it('counts the body when there is no Content-Length, and takes an explicit length first', () => {
    expect(response({ body: 'héllo' }).variables.get('content_length')).toBe(6);
    const inflated = responseVariables({
      response: {
        status: 200,
        headers: [['Content-Length', '20']],
        body: Buffer.from('0123456789'),
        contentLength: 10,
      },
      request: '',
      host: 'h',
      matched: 'm',
      durationMs: 0,
    });
    expect(inflated.variables.get('content_length')).toBe(10);
  });

  it('holds a body that is not UTF-8 as text that maps back to the exact bytes', () => {
    const bytes = Uint8Array.from([0x47, 0x49, 0x46, 0xff, 0x00, 0xc3, 0xa9, 0xc3]);
    const body = response({ body: bytes }).variables.get('body') as string;
    expect(body).toBe('GIF\udcff\u0000é\udcc3');
    expect([...textToBytes(body)]).toEqual([...bytes]);
  });

  it('uses the head exactly as received when given', () => {
    const head = Buffer.from('HTTP/1.0 200 Fine\r\nx-odd:  spaced \r\n\r\n');
    const exact = responseVariables({
      response: { status: 200, headers: [['x-odd', 'spaced']], body: Buffer.from('b'), head },
      request: '',
      host: 'h',
      matched: 'm',
      durationMs: 0,
    });
    expect(exact.variables.get('raw')).toBe('HTTP/1.0 200 Fine\r\nx-odd:  spaced \r\n\r\nb');
  });
});

describe('request history', () => {
  it('copies every response value under its indexed name', () => {
    const first = indexedResponseData(
      response({ status: 302, headers: [['Location', '/home']], body: 'moved' }),
      1,
    );
    expect(first.variables.get('status_code_1')).toBe(302);
    expect(first.variables.get('location_1')).toBe('/home');
    expect(first.variables.get('body_1')).toBe('moved');
    expect(first.variables.has('body')).toBe(false);
  });

  it('merges layers with the later one winning', () => {
    const merged = mergeResponseData(response({ body: 'old' }), variablesOnly([['body', 'replaced']]));
    expect(merged.variables.get('body')).toBe('replaced');
    expect(merged.variables.get('status_code')).toBe(200);
  });
});

describe('responseCookies', () => {
  it('reads Set-Cookie as Go does: quotes removed, invalid values and names dropped', () => {
    expect(
      responseCookies([
        ['Set-Cookie', 'a=1; Path=/'],
        ['set-cookie', 'b="two"'],
        ['Set-Cookie', 'bad name=x'],
        ['Set-Cookie', 'c=has space'],
        ['Set-Cookie', 'e=back\\slash'],
        ['Set-Cookie', 'novalue'],
        ['Set-Cookie', 'd=x=y'],
      ]),
    ).toEqual([
      ['a', '1'],
      ['b', 'two'],
      ['c', 'has space'],
      ['d', 'x=y'],
    ]);
  });
});

describe('text of values, as nuclei prints them', () => {
  it('prints numbers without exponents, as strconv.FormatFloat(f, f, -1)', () => {
    expect(toText(1e21)).toBe('1000000000000000000000');
    expect(toText(1.5e-7)).toBe('0.00000015');
    expect(toText(-2.5e22)).toBe('-25000000000000000000000');
    expect(toText(200)).toBe('200');
    expect(toText(0.1)).toBe('0.1');
  });

  it('prints lists as Go’s %v and null as nothing', () => {
    expect(toText(['a', 1, true])).toBe('[a 1 true]');
    expect(toText(null)).toBe('');
  });

  it('writes JSON with sorted keys and HTML characters escaped', () => {
    expect(goJson({ z: 1, a: ['<', '&', '>'], m: { y: null, b: 'x\u2028' } })).toBe(
      '{"a":["\\u003c","\\u0026","\\u003e"],"m":{"b":"x\\u2028","y":null},"z":1}',
    );
    expect(goJson(JSON.parse('{"__proto__":1}'))).toBe('{"__proto__":1}');
  });
});

describe('byte strings', () => {
  it('map any bytes to text and back exactly', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect([...textToBytes(bytesToText(bytes))]).toEqual([...bytes]);
      }),
      { numRuns: 1000 },
    );
  });

  it('keep valid UTF-8 as its characters and show other bytes as U+FFFD when printed', () => {
    expect(bytesToText(Buffer.from('добро 😀'))).toBe('добро 😀');
    expect(replaceInvalidBytes(bytesToText(Uint8Array.from([0x61, 0xed, 0xa0, 0x80, 0x62])))).toBe(
      'a\uFFFD\uFFFD\uFFFDb',
    );
  });
});
