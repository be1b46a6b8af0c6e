import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadStoredTemplate } from './stored-template.js';

const dir = mkdtempSync(join(tmpdir(), 'keyhole-stored-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function template(word: string, extra = ''): string {
  return `id: exposed
info: {name: exposed, author: keyhole, severity: high}
http:
  - method: GET
    path: ["{{BaseURL}}/debug"]
${extra}    matchers:
      - type: word
        words: ["${word}"]
`;
}

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

const withPayloadFile = template(
  'ok',
  `    payloads:
      user: users.txt
`,
).replace('/debug', '/debug?user={{user}}');

describe('a stored template', () => {
  it('is refused without being parsed when its stored text is over the 4 MiB of a template file', async () => {
    const padded = template('x', `    # ${'#'.repeat(5 << 20)}\n`);
    const stored = await loadStoredTemplate({ id: 'exposed', path: '', encoded: base64(padded) });
    expect(stored).toEqual({
      status: 'error',
      reason: 'the stored template is 5 MiB, over the limit of 4 MiB for a template',
    });
  });

  it('read from its file when not stored, is refused when that file is over 4 MiB', async () => {
    const path = join(dir, 'huge.yaml');
    writeFileSync(path, template('x', `    # ${'#'.repeat(5 << 20)}\n`));
    const stored = await loadStoredTemplate({ id: 'exposed', path, encoded: '' });
    expect(stored).toEqual({
      status: 'error',
      reason: `the text of template exposed was not stored and ${path} cannot be read as a template: it is 5 MiB, over the limit of 4 MiB (the largest nuclei templates are a few hundred KiB)`,
    });
  });

  it('is parsed from the stored text, under the path it had, even when the file is gone', async () => {
    const path = join(dir, 'gone.yaml');
    const stored = await loadStoredTemplate({ id: 'exposed', path, encoded: base64(template('DEBUG=on')) });
    expect(stored.status).toBe('ok');
    if (stored.status !== 'ok') return;
    expect(stored.from).toBe('store');
    expect(stored.template.file).toBe(path);
    expect(stored.template.http[0]?.operators.model.matchers[0]).toMatchObject({ words: ['DEBUG=on'] });
  });

  it('is the stored text, not what the file at its path says now', async () => {
    const path = join(dir, 'edited.yaml');
    writeFileSync(path, template('edited since'));
    const stored = await loadStoredTemplate({ id: 'exposed', path, encoded: base64(template('as scanned')) });
    expect(stored.status === 'ok' && stored.template.http[0]?.operators.model.matchers[0]).toMatchObject({
      words: ['as scanned'],
    });
  });

  it('reads payload files beside it only while its file still holds the stored text', async () => {
    const folder = mkdtempSync(join(dir, 'payloads-'));
    writeFileSync(join(folder, 'users.txt'), 'admin\nroot\n');
    const path = join(folder, 'login.yaml');
    writeFileSync(path, withPayloadFile);
    const local = await loadStoredTemplate({ id: 'exposed', path, encoded: base64(withPayloadFile) });
    expect(local.status === 'ok' && local.template.http[0]?.payloads?.sets[0]?.values.length).toBe(2);

    writeFileSync(path, template('changed'));
    const elsewhere = await loadStoredTemplate({ id: 'exposed', path, encoded: base64(withPayloadFile) });
    expect(elsewhere).toEqual({
      status: 'error',
      reason: `the stored template does not parse: line 7, column 13: http[0].payloads.user: payload file "users.txt" is not stored with the template and is read only beside it; ${path} is gone or no longer holds the stored text`,
    });
  });

  it('that no longer parses says where', async () => {
    const stored = await loadStoredTemplate({
      id: 'exposed',
      path: join(dir, 'broken.yaml'),
      encoded: base64(
        'id: exposed\ninfo: {name: x, author: y, severity: high}\nhttp:\n  - method: GET\n    pathz: [x]\n',
      ),
    });
    expect(stored.status).toBe('error');
    expect(stored.status === 'error' && stored.reason).toMatch(
      /^the stored template does not parse: line 4, column 5: http\[0\]: .*"path:".* \(and 1 more\)$/,
    );
  });

  it('that uses what keyhole does not run is unsupported, with the feature named', async () => {
    const oast = template('ok', '    payloads:\n      u: ["{{interactsh-url}}"]\n');
    const stored = await loadStoredTemplate({ id: 'exposed', path: '', encoded: base64(oast) });
    expect(stored).toMatchObject({ status: 'unsupported' });
    expect(stored.status === 'unsupported' && stored.reason).toMatch(/interactsh/);
  });
});

describe('a template whose text was not stored', () => {
  it('is read from its path', async () => {
    const path = join(dir, 'on-disk.yaml');
    writeFileSync(path, template('from disk'));
    const stored = await loadStoredTemplate({ id: 'exposed', path, encoded: '' });
    expect(stored).toMatchObject({ status: 'ok', from: 'file', text: template('from disk') });
  });

  it('is an error when its path is unknown or holds no template', async () => {
    expect(await loadStoredTemplate({ id: 'exposed', path: '', encoded: '' })).toEqual({
      status: 'error',
      reason: 'the text of template exposed was not stored and its path is unknown',
    });
    const missing = join(dir, 'missing.yaml');
    expect(await loadStoredTemplate({ id: 'exposed', path: missing, encoded: '' })).toEqual({
      status: 'error',
      reason: `the text of template exposed was not stored and ${missing} cannot be read as a template: no such file or folder`,
    });
  });

  it('never reads a path that is not a template file, nor quotes one with errors', async () => {
    const secret = join(dir, 'credentials');
    writeFileSync(secret, 'aws_secret_access_key: wJalrXUtnFEMI\n');
    const notTemplate = await loadStoredTemplate({ id: 'x', path: secret, encoded: '' });
    expect(notTemplate).toMatchObject({ status: 'error' });
    const yaml = join(dir, 'config.yaml');
    writeFileSync(yaml, 'aws_secret_access_key: wJalrXUtnFEMI\n');
    const broken = await loadStoredTemplate({ id: 'x', path: yaml, encoded: '' });
    expect(broken).toEqual({
      status: 'error',
      reason: `the text of template x was not stored and ${yaml} has errors (keyhole templates validate ${yaml} lists them)`,
    });
    expect(JSON.stringify([notTemplate, broken])).not.toContain('wJalrXUtnFEMI');
  });
});
