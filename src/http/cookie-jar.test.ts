import { describe, expect, it } from 'vitest';
import { HttpClient } from './client.js';
import { CookieJar } from './cookie-jar.js';
import { cookieLimits } from './cookie-limits.js';
import { type HeaderList, type HttpRequest, headerValue } from './message.js';
import { sendFollowingRedirects } from './redirect.js';
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

/** `count` cookies named `prefix0`, `prefix1`, … with the value `value`. */
function numbered(prefix: string, count: number, value = 'x', attributes = ''): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i}=${value}${attributes}`);
}

/** `prefix0` … `prefix{count - 1}`. */
function names(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i}`);
}

/** The names of the cookies the jar sends to `url`. */
function sentNames(jar: CookieJar, url: string): string[] {
  return (cookieHeader(jar, url) ?? '').split('; ').map((pair) => pair.slice(0, pair.indexOf('=')));
}

describe('CookieJar limits', () => {
  it('refuses a cookie whose name and value pass 4096 bytes, and keeps the one it would replace', () => {
    const jar = new CookieJar();
    setCookies(jar, 'http://app.test/', 'sid=short', `big=${'b'.repeat(4094)}`);
    setCookies(jar, 'http://app.test/', `sid=${'s'.repeat(4094)}`);
    expect(cookieHeader(jar, 'http://app.test/')).toBe('sid=short');
    setCookies(jar, 'http://app.test/', `fits=${'f'.repeat(4092)}`);
    expect(jar.size).toBe(2);
  });

  it('holds 50 cookies per domain, and a flood after a cookie in use leaves that cookie in place', () => {
    const jar = new CookieJar();
    setCookies(jar, 'http://www.app.test/login', 'session=s3cret; Path=/');
    expect(cookieHeader(jar, 'http://www.app.test/')).toBe('session=s3cret');
    for (let hop = 0; hop < 5; hop++) {
      setCookies(jar, 'http://www.app.test/', ...numbered(`junk${hop}-`, 10_000));
      setCookies(jar, 'http://api.app.test/', ...numbered(`api${hop}-`, 100, 'x', '; Domain=app.test'));
      expect(jar.size).toBe(cookieLimits.perDomain);
      expect(sentNames(jar, 'http://www.app.test/')[0]).toBe('session');
    }
  });

  it('makes room in a full domain by dropping the cookie sent least recently, the newest of those first', () => {
    const jar = new CookieJar();
    setCookies(
      jar,
      'http://app.test/',
      ...numbered('a', 25, 'x', '; Path=/a'),
      ...numbered('b', 25, 'x', '; Path=/b'),
    );
    cookieHeader(jar, 'http://app.test/a');
    cookieHeader(jar, 'http://app.test/b');
    setCookies(jar, 'http://app.test/', 'fresh=1; Path=/');
    expect(jar.size).toBe(50);
    expect(sentNames(jar, 'http://app.test/a')).toEqual([...names('a', 24), 'fresh']);
    expect(sentNames(jar, 'http://app.test/b')).toHaveLength(26);
  });

  it('refuses new cookies while a full domain holds one not sent yet, and a deleted cookie frees its place', () => {
    const jar = new CookieJar();
    setCookies(jar, 'http://app.test/', ...numbered('c', 50));
    setCookies(jar, 'http://app.test/', 'late=1');
    expect(sentNames(jar, 'http://app.test/')).not.toContain('late');
    setCookies(jar, 'http://app.test/', 'c7=; Max-Age=0', 'late=1');
    expect(jar.size).toBe(50);
    expect(sentNames(jar, 'http://app.test/')).toContain('late');
    expect(sentNames(jar, 'http://app.test/')).not.toContain('c7');
  });

  it('holds 1000 cookies in all, across domains', () => {
    const jar = new CookieJar();
    for (let domain = 0; domain < 25; domain++)
      setCookies(jar, `http://d${domain}.test/`, ...numbered('c', 50));
    expect(jar.size).toBe(cookieLimits.total);
    expect(cookieHeader(jar, 'http://d24.test/')).toBeUndefined();
  });

  it('adds to a Cookie header only what keeps it within 8192 bytes, older cookies first', () => {
    const jar = new CookieJar();
    setCookies(jar, 'http://app.test/', ...numbered('c', 10, 'v'.repeat(2000)), 'small=1');
    const header = cookieHeader(jar, 'http://app.test/') ?? '';
    expect(Buffer.byteLength(header)).toBeLessThanOrEqual(cookieLimits.headerBytes);
    expect(sentNames(jar, 'http://app.test/')).toEqual(['c0', 'c1', 'c2', 'c3', 'small']);
    const own = cookieHeader(jar, 'http://app.test/', [['Cookie', `own=${'o'.repeat(6200)}`]]) ?? '';
    expect(own.split('; ').map((pair) => pair.slice(0, pair.indexOf('=')))).toEqual(['own', 'small']);
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

  it('stays bounded along redirects that each set 10,000 cookies, and keeps sending the login session', async () => {
    const server = await httpServer((incoming, response) => {
      const hop = Number(incoming.url?.slice(1));
      if (incoming.url === '/login') {
        response.setHeader('Set-Cookie', 'sid=s3cret; Path=/');
        response.writeHead(302, { Location: '/0' }).end();
      } else if (hop < 5) {
        response.setHeader('Set-Cookie', numbered(`junk${hop}-`, 10_000));
        response.writeHead(302, { Location: `/${hop + 1}` }).end();
      } else response.end(incoming.headers.cookie ?? 'none');
    });
    const http = new HttpClient();
    defer(
      () => server.close(),
      () => http.close(),
    );
    const jar = new CookieJar();
    let lastSent = get(server.port, '/login');
    const hops = await sendFollowingRedirects(lastSent, {
      send: (clean) => {
        lastSent = jar.apply(clean);
        return http.send(lastSent).then((response) => {
          jar.store(response);
          return response;
        });
      },
      policy: 'any',
    });
    const last = hops.at(-1);
    expect(last?.response.statusCode).toBe(200);
    const sent = headerValue(lastSent.headers, 'cookie') ?? '';
    expect(sent.startsWith('sid=s3cret; ')).toBe(true);
    expect(Buffer.byteLength(sent)).toBeLessThanOrEqual(cookieLimits.headerBytes);
    expect(last?.response.body.toString()).toBe(sent);
    expect(jar.size).toBe(cookieLimits.perDomain);
  });
});
