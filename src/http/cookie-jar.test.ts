import { describe, expect, it } from 'vitest';
import { HttpClient } from './client.js';
import { CookieJar } from './cookie-jar.js';
import type { HeaderList, HttpRequest } from './message.js';
import { closedAfterEach } from './testing/cleanups.js';
import { get, httpServer } from './testing/servers.js';

function request(url: string, headers: HeaderList = []): HttpRequest {
  const parsed = new URL(url);
  const scheme = parsed.protocol === 'https:' ? 'https' : 'http';
  const port = parsed.port === '' ? (scheme === 'https' ? 443 : 80) : Number(parsed.port);
  return {
    method: 'GET',
    scheme,
    hostname: parsed.hostname,
    port,
    target: parsed.pathname,
    headers,
    body: '',
  };
}

function setCookies(jar: CookieJar, url: string, ...cookies: string[]): void {
  jar.store({ url, headers: cookies.map((cookie) => ['Set-Cookie', cookie] as const) });
}

function cookieHeader(jar: CookieJar, url: string, headers: HeaderList = []): string | undefined {
  return jar.apply(request(url, headers)).headers.find(([name]) => name.toLowerCase() === 'cookie')?.[1];
}

describe('CookieJar', () => {
  it('leaves requests untouched while it holds no cookie', () => {
    const jar = new CookieJar();
    const plain = request('http://www.app.test/home', [['Cookie', 'own=1']]);
    expect(jar.apply(plain)).toBe(plain);
    jar.store({ url: 'http://www.app.test/', headers: [['Content-Type', 'text/html']] });
    setCookies(jar, 'http://com/', 'tld=1; Domain=com');
    expect(jar.apply(plain)).toBe(plain);
    setCookies(jar, 'http://www.app.test/', 'session=abc');
    expect(cookieHeader(jar, 'http://www.app.test/home', [['Cookie', 'own=1']])).toBe('own=1; session=abc');
  });

  it('sends a host-only cookie back to its host only', () => {
    const jar = new CookieJar();
    setCookies(jar, 'http://www.app.test/login', 'session=abc');
    expect(cookieHeader(jar, 'http://www.app.test/home')).toBe('session=abc');
    expect(cookieHeader(jar, 'http://api.app.test/home')).toBeUndefined();
    expect(cookieHeader(jar, 'http://evil.test/home')).toBeUndefined();
  });

  it('sends a domain cookie to the domain and its subdomains', () => {
    const jar = new CookieJar();
    setCookies(jar, 'http://www.app.test/', 'shared=1; Domain=app.test');
    expect(cookieHeader(jar, 'http://api.app.test/')).toBe('shared=1');
    expect(cookieHeader(jar, 'http://app.test/')).toBe('shared=1');
    expect(cookieHeader(jar, 'http://notapp.test/')).toBeUndefined();
  });

  it('refuses cookies for another domain or a public suffix', () => {
    const jar = new CookieJar();
    setCookies(jar, 'http://www.app.test/', 'stolen=1; Domain=evil.test', 'wide=1; Domain=com');
    expect(cookieHeader(jar, 'http://evil.test/')).toBeUndefined();
    expect(cookieHeader(jar, 'http://www.app.test/')).toBeUndefined();
  });

  it('matches paths', () => {
    const jar = new CookieJar();
    setCookies(jar, 'http://app.test/admin/login', 'admin=1; Path=/admin');
    expect(cookieHeader(jar, 'http://app.test/admin/users')).toBe('admin=1');
    expect(cookieHeader(jar, 'http://app.test/public')).toBeUndefined();
  });

  it('forgets expired and deleted cookies', () => {
    const jar = new CookieJar();
    setCookies(jar, 'http://app.test/', 'old=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT', 'gone=1', 'kept=1');
    setCookies(jar, 'http://app.test/', 'gone=; Max-Age=0');
    expect(cookieHeader(jar, 'http://app.test/')).toBe('kept=1');
  });

  it('sends Secure cookies over https only, also on localhost', () => {
    const jar = new CookieJar();
    setCookies(jar, 'https://127.0.0.1:8443/', 'secret=1; Secure', 'plain=1');
    expect(cookieHeader(jar, 'https://127.0.0.1:8443/')).toBe('secret=1; plain=1');
    expect(cookieHeader(jar, 'http://127.0.0.1:8080/')).toBe('plain=1');
  });

  it('lets the cookies a request sets win and appends the others to its Cookie header', () => {
    const jar = new CookieJar();
    setCookies(jar, 'http://app.test/', 'session=from-jar', 'theme=dark');
    const applied = jar.apply(
      request('http://app.test/', [
        ['X-A', '1'],
        ['cookie', 'session=explicit;'],
      ]),
    );
    expect(applied.headers).toEqual([
      ['X-A', '1'],
      ['cookie', 'session=explicit; theme=dark'],
    ]);
  });

  it('leaves a request without matching cookies untouched', () => {
    const original = request('http://app.test/');
    expect(new CookieJar().apply(original)).toBe(original);
  });
});

describe('CookieJar with a real server', () => {
  const { defer } = closedAfterEach();

  it('carries a login session across requests of a run', async () => {
    const server = await httpServer((incoming, response) => {
      if (incoming.url === '/login')
        response.setHeader('Set-Cookie', ['sid=s3cret; HttpOnly; Path=/', 'lang=en']);
      response.end(`cookie: ${incoming.headers.cookie ?? 'none'}`);
    });
    const http = new HttpClient();
    defer(
      () => server.close(),
      () => http.close(),
    );
    const jar = new CookieJar();
    const send = async (target: string) => {
      const response = await http.send(jar.apply(get(server.port, target)));
      jar.store(response);
      return response.body.toString();
    };
    expect(await send('/login')).toBe('cookie: none');
    expect(await send('/private')).toBe('cookie: sid=s3cret; lang=en');
  });
});
