import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../source/index.js';
import { loadSecretFiles } from './load.js';
import { SecretResolver } from './resolver.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

const DEMO_ENV = {
  DEMO_API_KEY: 'k',
  DEMO_ADMIN_PASSWORD: 'p',
  DEMO_REPORTS_KEY: 'r',
  DEMO_STAGING_COOKIE: 'flags=beta',
  DEMO_USER: 'alice',
  DEMO_PASSWORD: 'wonderland',
  DEMO_TOTP_SECRET: 'JBSWY3DPEHPK3PXP',
  DEMO_CLIENT_SECRET: 'cs',
  PATH: process.env.PATH,
};

async function errorsOf(file: string, env: Record<string, string | undefined> = {}) {
  const result = await loadSecretFiles([file], { cwd: root, env, checkPermissions: false });
  return {
    result,
    errors: result.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic),
    warnings: result.diagnostics.filter((d) => d.severity === 'warning').map(formatDiagnostic),
  };
}

describe('bundled examples', () => {
  it('the nuclei documentation example validates with variables written as key:', async () => {
    const { result, errors, warnings } = await errorsOf('examples/secrets/nuclei-docs.yaml');
    expect(errors).toEqual([]);
    expect(warnings).toEqual([
      'examples/secrets/nuclei-docs.yaml:66:11: warning: dynamic[0].domains[0]: ".*wp.*projectdiscovery.io" looks like a regular expression, but domains are compared literally; use domains-regex for patterns',
    ]);
    expect(result.secrets?.entries.map((e) => e.kind)).toEqual([
      'static',
      'static',
      'static',
      'static',
      'static',
      'dynamic',
    ]);
    expect(result.secrets?.logins[0]?.variables).toEqual([
      { name: 'username', value: 'pdteam' },
      { name: 'password', value: 'nuclei-fuzz' },
    ]);
  });

  it('the nuclei documentation example validates with variables written as name:', async () => {
    const { result, errors } = await errorsOf('examples/secrets/nuclei-docs-name.yaml');
    expect(errors).toEqual([]);
    expect(result.secrets?.logins[0]?.placeholders).toEqual([
      'wp-global-cookie',
      'wp-admin-cookie',
      'wp-plugin-cookie',
    ]);
  });

  it('the nuclei documentation example applies its first matching secret to scanme.sh', async () => {
    const { result } = await errorsOf('examples/secrets/nuclei-docs.yaml');
    const resolver = new SecretResolver(result.secrets ?? { entries: [], logins: [] });
    // basicauth (static[0]) and cookie (static[4]) both list scanme.sh; the first wins.
    const chosen = resolver.choose({ scheme: 'https', hostname: 'scanme.sh', port: 443 });
    expect(chosen?.origin.index).toBe(0);
    // Only the bearertoken regex entry covers subdomains.
    expect(resolver.choose({ scheme: 'https', hostname: 'a.scanme.sh', port: 443 })?.origin.index).toBe(2);
  });

  it('the demo secret file validates: a static entry per type but cookie, and a form login', async () => {
    const { result, errors, warnings } = await errorsOf('examples/secrets.yaml');
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(
      result.secrets?.entries.map((e) => (e.kind === 'static' ? e.credential.type : e.spec.type)),
    ).toEqual(['bearertoken', 'basicauth', 'header', 'query', 'cookie']);
    expect(result.secrets?.logins[0]?.method).toEqual({
      kind: 'template',
      template: `${root}examples/templates/login.yaml`,
    });
  });

  it('the every-feature example validates and shows every type', async () => {
    const { result, errors, warnings } = await errorsOf('examples/secrets/all-features.yaml', DEMO_ENV);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    const types = result.secrets?.entries.map((e) => (e.kind === 'static' ? e.credential.type : e.spec.type));
    expect(new Set(types)).toEqual(new Set(['header', 'basicauth', 'bearertoken', 'query', 'cookie']));
    expect(result.secrets?.entries.some((e) => e.scope.kind === 'domains-regex')).toBe(true);
    expect(result.secrets?.entries.some((e) => e.kind === 'static' && e.verify !== undefined)).toBe(true);
    expect(result.secrets?.logins.map((l) => l.method.kind)).toEqual([
      'template',
      'form',
      'form',
      'oauth2',
      'browser',
    ]);
  });

  it('the every-feature example reports each missing environment variable at its field', async () => {
    const { errors } = await errorsOf('examples/secrets/all-features.yaml', { PATH: process.env.PATH });
    expect(errors.map((e) => e.split(': ')[1])).toEqual([
      'static[0].headers[0].value',
      'static[3].params[0].value',
      'static[4].cookies[0].raw',
      'dynamic[0].variables[0].value',
      'dynamic[0].variables[1].value',
      'dynamic[1].login.username',
      'dynamic[1].login.password',
      'dynamic[1].login.totp',
      'dynamic[2].login.username',
      'dynamic[2].login.password',
      'dynamic[3].oauth2.client-secret',
      'dynamic[4].login.username',
      'dynamic[4].login.password',
      'dynamic[4].login.totp',
    ]);
  });
});
