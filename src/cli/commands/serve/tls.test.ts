import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptedKey, makeTestCertificate } from '../../../api/testing/tls.js';
import { ExitCode } from '../../exit.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';
import { readTlsPair } from './tls.js';

describe('keyhole serve --tls-cert/--tls-key', () => {
  let dir: string;
  const pair = makeTestCertificate();
  const other = makeTestCertificate();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keyhole-serve-tls-'));
    await writeFile(join(dir, 'cert.pem'), pair.cert);
    await writeFile(join(dir, 'key.pem'), pair.key);
    await writeFile(join(dir, 'other-key.pem'), other.key);
    await writeFile(join(dir, 'encrypted-key.pem'), encryptedKey(pair.key));
    await writeFile(join(dir, 'garbage.pem'), 'hello\n');
    await mkdir(join(dir, 'folder'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads a matching pair, relative to the working folder', async () => {
    expect(await readTlsPair('cert.pem', 'key.pem', dir)).toEqual({ cert: pair.cert, key: pair.key });
  });

  it('reads nothing when neither flag is given (plain HTTP)', async () => {
    expect(await readTlsPair(undefined, undefined, dir)).toBeUndefined();
  });

  const refusals: [string, string[], RegExp][] = [
    ['a certificate without its key', ['--tls-cert', 'cert.pem'], /--tls-cert needs --tls-key/],
    ['a key without its certificate', ['--tls-key', 'key.pem'], /--tls-key needs --tls-cert/],
    [
      'a certificate file that does not exist',
      ['--tls-cert', 'missing.pem', '--tls-key', 'key.pem'],
      /--tls-cert .*missing\.pem: cannot read it: no such file/,
    ],
    [
      'a key that is a folder',
      ['--tls-cert', 'cert.pem', '--tls-key', 'folder'],
      /--tls-key .*folder: cannot read it: it is a folder/,
    ],
    [
      'a certificate file holding no certificate',
      ['--tls-cert', 'garbage.pem', '--tls-key', 'key.pem'],
      /--tls-cert garbage\.pem: no PEM certificate in it/,
    ],
    [
      'swapped files',
      ['--tls-cert', 'key.pem', '--tls-key', 'cert.pem'],
      /--tls-cert key\.pem: .*it holds a private key: were the two files swapped\?/,
    ],
    [
      'an encrypted key',
      ['--tls-cert', 'cert.pem', '--tls-key', 'encrypted-key.pem'],
      /--tls-key encrypted-key\.pem: the key is encrypted; give it unencrypted/,
    ],
    [
      'a key that is not the certificate’s',
      ['--tls-cert', 'cert.pem', '--tls-key', 'other-key.pem'],
      /--tls-key other-key\.pem is not the private key of the certificate in --tls-cert cert\.pem/,
    ],
  ];

  it.each(refusals)(
    'refuses %s before opening the store, naming the flag and file',
    async (_, flags, message) => {
      const io = memoryIo({ cwd: dir });
      const code = await run(['serve', '--port', '0', '--db', join(dir, 'never-created.db'), ...flags], io);
      expect(code).toBe(ExitCode.usage);
      expect(io.err()).toMatch(message);
      expect(io.err()).not.toMatch(/\n\s+at /);
      for (const secretLine of [pair.key, other.key].map((key) => key.split('\n')[1] ?? ''))
        expect(io.err()).not.toContain(secretLine);
    },
  );
});
