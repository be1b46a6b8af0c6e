import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '../http/index.js';
import { rejectionOf } from './rejection.js';

function answer(url: string, statusCode: number, location?: string): HttpResponse {
  return {
    httpVersion: 'HTTP/1.1',
    statusCode,
    reason: '',
    headers: location === undefined ? [] : [['Location', location]],
    rawHead: '',
    rawHeadBytes: Buffer.alloc(0),
    body: Buffer.alloc(0),
    truncatedAt: undefined,
    durationMs: 1,
    remoteAddress: '127.0.0.1',
    url,
  };
}

describe('a response turns away the secret of its request', () => {
  it('when it is a 401, whatever the page', () => {
    expect(rejectionOf(answer('https://app.test/api/me', 401))).toBe('unauthorized');
  });

  it.each([
    '/login',
    '/login?next=%2Fadmin',
    'https://app.test/users/sign_in',
    '/wp-login.php?redirect_to=x',
    '/accounts/login/',
    '/Account/LogOn',
    '/signin.aspx',
    '/auth',
    '/sso/start',
    '/cas/login',
    '/session/new',
    '/log-in',
  ])('when a page redirects to the login page %s', (location) => {
    expect(rejectionOf(answer('https://app.test/admin/users', 302, location))).toBe('login-page');
  });
});

describe('a response does not turn away the secret', () => {
  it.each([200, 204, 403, 404, 500, 304])('when its status is %i', (status) => {
    expect(rejectionOf(answer('https://app.test/admin', status))).toBeUndefined();
  });

  it.each(['/dashboard', '/authors/1', '/oauth/callback', '/blogin', '/catalog', '/pages/loginless'])(
    'when a redirect goes to %s, no login page',
    (location) => {
      expect(rejectionOf(answer('https://app.test/admin', 302, location))).toBeUndefined();
    },
  );

  it('when a login page redirects to a login page (a default password tried and refused)', () => {
    expect(rejectionOf(answer('https://app.test/login', 302, '/login?error=1'))).toBeUndefined();
    expect(rejectionOf(answer('https://app.test/wp-login.php', 302, '/wp-login.php'))).toBeUndefined();
  });

  it('when a redirect has no Location, or one that is not a URL', () => {
    expect(rejectionOf(answer('https://app.test/admin', 302))).toBeUndefined();
    expect(rejectionOf(answer('https://app.test/admin', 302, 'http://[::1'))).toBeUndefined();
    expect(rejectionOf(answer('https://app.test/admin', 302, '/%E0%A4%A'))).toBeUndefined();
  });
});
