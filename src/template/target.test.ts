import { describe, expect, it } from 'vitest';
import { parseTargetUrl, TargetError, type TargetUrl } from '../targets/index.js';
import {
  mergePaths,
  newRandstr,
  pathHasTrailingSlash,
  portOverride,
  targetVariables,
  withPort,
} from './target.js';

function target(url: string): TargetUrl {
  const parsed = parseTargetUrl(url);
  if (parsed instanceof TargetError) throw parsed;
  return parsed;
}

describe('targetVariables', () => {
  it('derives every variable of a URL with port, path and file', () => {
    expect(targetVariables(target('https://www.app.example.co.uk:8443/blog/index.php?x=1'))).toEqual({
      BaseURL: 'https://www.app.example.co.uk:8443/blog/index.php',
      RootURL: 'https://www.app.example.co.uk:8443',
      Hostname: 'www.app.example.co.uk:8443',
      Host: 'www.app.example.co.uk',
      Port: '8443',
      Path: '/blog',
      File: 'index.php',
      Query: '?x=1',
      Scheme: 'https',
      Input: 'https://www.app.example.co.uk:8443/blog/index.php',
      FQDN: 'www.app.example.co.uk',
      RDN: 'example.co.uk',
      DN: 'example',
      TLD: 'co.uk',
      SD: 'www.app',
    });
  });

  it('gives Query the parameters grouped by name, the names sorted, as Go encodes url.Values', () => {
    expect(targetVariables(target('http://app.test/?b=2&a=1&b=1&c')).Query).toBe('?a=1&b=2&b=1&c');
    expect(targetVariables(target('http://app.test/?')).Query).toBe('');
  });

  it('takes the port from the scheme when the URL has none', () => {
    expect(targetVariables(target('http://app.test')).Port).toBe('80');
    expect(targetVariables(target('https://app.test')).Port).toBe('443');
  });

  it('gives empty Path and File for a bare origin', () => {
    const vars = targetVariables(target('https://app.test'));
    expect([vars.BaseURL, vars.Path, vars.File]).toEqual(['https://app.test', '', '']);
  });

  it('keeps a trailing slash in BaseURL unless the path template starts with {{BaseURL}}/', () => {
    const t = target('https://app.test/blog/');
    expect(targetVariables(t).BaseURL).toBe('https://app.test/blog/');
    expect(targetVariables(t, { trimTrailingSlash: true }).BaseURL).toBe('https://app.test/blog');
    expect(pathHasTrailingSlash('{{BaseURL}}/login')).toBe(true);
    expect(pathHasTrailingSlash('{{BaseURL}}')).toBe(false);
    expect(pathHasTrailingSlash('{{BaseURL}}{{paths}}')).toBe(false);
  });

  it('so that {{BaseURL}}/x on a target with a path joins without a double slash', () => {
    const vars = targetVariables(target('https://app.test/blog/'), { trimTrailingSlash: true });
    expect(`${vars.BaseURL}/x`).toBe('https://app.test/blog/x');
  });

  it('treats a target without a scheme as nuclei does: empty scheme and port, host-only root', () => {
    const vars = targetVariables(target('app.test/x'));
    expect([vars.Scheme, vars.RootURL, vars.BaseURL, vars.Port]).toEqual(['', 'app.test', 'app.test/x', '']);
  });

  it('leaves out the DNS parts for IP addresses and names without a public suffix', () => {
    for (const url of ['http://127.0.0.1:8080', 'http://[::1]:8080', 'http://localhost']) {
      const vars = targetVariables(target(url));
      expect(vars.RDN).toBeUndefined();
      expect(vars.FQDN).toBe(target(url).hostname);
    }
  });

  it('keeps IPv6 brackets in Hostname and drops them in Host', () => {
    const vars = targetVariables(target('http://[::1]:8080/'));
    expect([vars.Hostname, vars.Host, vars.Port]).toEqual(['[::1]:8080', '::1', '8080']);
  });

  it('does not normalise the target path', () => {
    expect(targetVariables(target('http://a.test/x/../y/%2e/')).BaseURL).toBe('http://a.test/x/../y/%2e/');
  });
});

describe('path helpers', () => {
  it('merge paths like nuclei: join, keep the longer when one contains the other', () => {
    expect(mergePaths('/blog', '/admin')).toBe('/blog/admin');
    expect(mergePaths('/blog/', '/admin')).toBe('/blog/admin');
    expect(mergePaths('/blog', 'admin')).toBe('/blog/admin');
    expect(mergePaths('/blog/admin', '/blog/admin/profile')).toBe('/blog/admin/profile');
    expect(mergePaths('/blog/admin', '/admin')).toBe('/blog/admin');
    expect(mergePaths('', '/x')).toBe('/x');
    expect(mergePaths('/x', '')).toBe('/x');
  });

  it('find a port override after {{BaseURL}} and remove it from the path', () => {
    expect(portOverride('{{BaseURL}}:11434/api/tags')).toEqual({
      port: '11434',
      path: '{{BaseURL}}/api/tags',
    });
    expect(portOverride('{{BaseURL}}/api')).toBeUndefined();
    expect(withPort(target('http://a.test:80/x'), '11434').host).toBe('a.test:11434');
  });

  it('makes 27-character base62 randstr values that differ', () => {
    const a = newRandstr();
    expect(a).toMatch(/^[0-9A-Za-z]{27}$/);
    expect(newRandstr()).not.toBe(a);
  });
});
