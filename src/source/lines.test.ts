import { describe, expect, it } from 'vitest';
import { boundedLines, type Line } from './lines.js';

async function linesOf(chunks: readonly (string | Buffer)[], maxBytes = 1024): Promise<Line[]> {
  async function* stream() {
    yield* chunks;
  }
  const lines: Line[] = [];
  for await (const line of boundedLines(stream(), maxBytes)) lines.push(line);
  return lines;
}

describe('boundedLines', () => {
  it('splits on \\n and \\r\\n across chunks and keeps a last line without a newline', async () => {
    expect(await linesOf(['a\r', '\nb', 'c\n\nd'])).toEqual([
      { number: 1, text: 'a' },
      { number: 2, text: 'bc' },
      { number: 3, text: '' },
      { number: 4, text: 'd' },
    ]);
  });

  it('decodes a character whose UTF-8 bytes arrive in two chunks', async () => {
    const bytes = Buffer.from('é€\n', 'utf8');
    expect(await linesOf([bytes.subarray(0, 1), bytes.subarray(1, 3), bytes.subarray(3)])).toEqual([
      { number: 1, text: 'é€' },
    ]);
  });

  it('reports a line over the limit with its length and reads the lines after it', async () => {
    const long = Buffer.alloc(4096, 'x');
    expect(await linesOf(['first\n', long, long, '\r\nlast\n'], 1024)).toEqual([
      { number: 1, text: 'first' },
      { number: 2, tooLong: { bytes: 8192, limit: 1024 } },
      { number: 3, text: 'last' },
    ]);
  });

  it('keeps a line of exactly the limit, with or without \\r', async () => {
    const text = 'y'.repeat(16);
    expect(await linesOf([`${text}\r\n${text}\n${text}y`], 16)).toEqual([
      { number: 1, text },
      { number: 2, text },
      { number: 3, tooLong: { bytes: 17, limit: 16 } },
    ]);
  });
});
