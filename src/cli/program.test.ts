import { describe, expect, it } from 'vitest';
import { memoryIo } from './io.js';
import { run } from './program.js';

/** ESC, BEL, a C1 CSI and a right-to-left override: none may reach a terminal as it is. */
const HOSTILE = '\x1b]0;owned\x07\x9b2J\u202e';
const SHOWN = '\\x1b]0;owned\\x07\\x9b2J\\u202e';

async function keyhole(...argv: string[]) {
  const io = memoryIo();
  const code = await run(argv, io);
  return { code, err: io.err() };
}

describe('error messages of the CLI', () => {
  it('show the control characters of an argument they quote as escapes', async () => {
    const result = await keyhole('import', `${HOSTILE}.jsonl`);
    expect(result).toEqual({ code: 1, err: `error: cannot read ${SHOWN}.jsonl: no such file\n` });
  });

  it('show the control characters of an unknown option as escapes', async () => {
    const result = await keyhole('scan', `--x${HOSTILE}`);
    expect(result.code).toBe(1);
    expect(result.err).toContain(`unknown option '--x${SHOWN}'`);
    expect(result.err).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
  });
});
