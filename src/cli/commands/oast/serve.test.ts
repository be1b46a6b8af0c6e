import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../../oast/index.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';

describe('keyhole oast serve', () => {
  it('asks for the domain', async () => {
    const io = memoryIo();
    expect(await run(['oast', 'serve'], io)).toBe(1);
    expect(io.err()).toContain("required option '--domain <name>' not specified");
  });

  it('says how to write a listen address it cannot read', async () => {
    const io = memoryIo();
    expect(await run(['oast', 'serve', '--domain', 'oast.test', '--listen', 'localhost'], io)).toBe(1);
    expect(io.err()).toContain('expected HOST:PORT, such as 0.0.0.0:80');
  });

  it('asks for the address DNS answers give when it listens on every address', async () => {
    const io = memoryIo();
    expect(await run(['oast', 'serve', '--domain', 'oast.test', '--listen', '0.0.0.0:0'], io)).toBe(1);
    expect(io.err()).toContain('give it with --ip (or --no-dns)');
  });

  it('says when the port is taken, without a stack trace', async () => {
    const blocker = await import('node:net').then(({ createServer }) => createServer());
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const io = memoryIo();
      expect(
        await run(
          ['oast', 'serve', '--domain', 'oast.test', '--listen', `127.0.0.1:${port}`, '--no-dns'],
          io,
        ),
      ).toBe(1);
      expect(io.err()).toContain(`cannot listen for HTTP on 127.0.0.1:${port}: the port is in use`);
      expect(io.err()).not.toMatch(/\n\s+at /);
    } finally {
      blocker.close();
    }
  });

  it('names the flag and the file of a certificate or key it cannot use, without a stack trace', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keyhole-oast-tls-'));
    try {
      const mine = selfSignedCertificate('oast.test');
      await writeFile(join(dir, 'oast.crt'), mine.cert);
      await writeFile(join(dir, 'other.key'), selfSignedCertificate('oast.test').key);
      await writeFile(join(dir, 'garbage.key'), 'not a key\n');
      const serve = ['oast', 'serve', '--domain', 'oast.test', '--listen', '127.0.0.1:0', '--no-dns'];
      const tls = [...serve, '--https-listen', '127.0.0.1:0', '--tls-cert', 'oast.crt', '--tls-key'];
      const cases: [string[], string][] = [
        [[...tls, 'other.key'], '--tls-key other.key is not the private key of --tls-cert oast.crt'],
        [[...tls, 'garbage.key'], '--tls-key garbage.key is not an unencrypted PEM private key'],
        [[...tls, 'missing.key'], '--tls-key missing.key: cannot read it (no such file)'],
        [[...serve, '--tls-cert', 'oast.crt'], '--tls-cert FILE and --tls-key FILE go together'],
      ];
      for (const [argv, message] of cases) {
        const io = memoryIo({ cwd: dir });
        expect(await run(argv, io)).toBe(1);
        expect(io.err()).toContain(message);
        expect(io.err()).not.toMatch(/\n\s+at /);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
