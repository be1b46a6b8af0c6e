import { describe, expect, it } from 'vitest';
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
});
