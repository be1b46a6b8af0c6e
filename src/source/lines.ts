/** One line of a line-oriented file, numbered from 1, or the news that it was too long to keep. */
export type Line =
  | { readonly number: number; readonly text: string; readonly tooLong?: undefined }
  | { readonly number: number; readonly tooLong: { readonly bytes: number; readonly limit: number } };

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a byte stream into lines (`\n` or `\r\n`), holding at most `maxBytes` of one line: a
 * longer line is not kept but counted to its end and reported as too long, and the lines after it
 * are read as usual. Memory stays within `maxBytes` plus one chunk of the stream however long a
 * line is. A last line without a newline counts; UTF-8 split across chunks is decoded whole.
 */
export async function* boundedLines(
  input: AsyncIterable<Buffer | string>,
  maxBytes: number,
): AsyncGenerator<Line, void, undefined> {
  const line = new LineBuffer(maxBytes);
  let number = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end >= 0; end = bytes.indexOf(NEWLINE, start)) {
      line.append(bytes.subarray(start, end));
      start = end + 1;
      yield line.take(++number);
    }
    line.append(bytes.subarray(start));
  }
  if (!line.isEmpty) yield line.take(++number);
}

class LineBuffer {
  private parts: Buffer[] = [];
  private length = 0;
  private overflowed = false;
  private endsInCarriageReturn = false;

  constructor(private readonly maxBytes: number) {}

  get isEmpty(): boolean {
    return this.length === 0;
  }

  append(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.length += bytes.length;
    this.endsInCarriageReturn = bytes[bytes.length - 1] === CARRIAGE_RETURN;
    if (this.overflowed) return;
    // Over by one byte may still be a kept line: its `\r` is dropped at the end.
    if (this.length > this.maxBytes + 1) {
      this.overflowed = true;
      this.parts = [];
      return;
    }
    this.parts.push(bytes);
  }

  take(number: number): Line {
    const length = this.endsInCarriageReturn ? this.length - 1 : this.length;
    const overflowed = this.overflowed || length > this.maxBytes;
    const parts = this.parts;
    this.parts = [];
    this.length = 0;
    this.overflowed = false;
    this.endsInCarriageReturn = false;
    if (overflowed) return { number, tooLong: { bytes: length, limit: this.maxBytes } };
    if (length === 0) return { number, text: '' };
    const kept = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    return { number, text: kept.toString('utf8', 0, length) };
  }
}
