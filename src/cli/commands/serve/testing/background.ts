import { setTimeout as sleep } from 'node:timers/promises';
import type { Workspace } from '../../../../scan/testing/workspace.js';
import { memoryIo } from '../../../io.js';
import { run } from '../../../program.js';

/** The first value `read` gives, asked every 50 ms; throws after `timeoutMs`. */
export async function until<T>(read: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

/** `keyhole CMD …` in-process until `stop()`. */
export function background(ws: Workspace, argv: readonly string[]) {
  const io = memoryIo({ cwd: ws.dir });
  const exit = run(argv, io);
  return {
    io,
    async stop(): Promise<number> {
      io.interrupt();
      return exit;
    },
  };
}
