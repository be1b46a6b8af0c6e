/**
 * Reads one HTTP/1.x response from the bytes of a connection, fed as they arrive. Written by hand
 * because it must accept what real servers (routers, printers, appliances: the targets of
 * default-login templates) send and strict parsers such as undici's llhttp refuse: bare LF line
 * ends, folded header lines, junk lines without a colon, control bytes in values, unsolicited 1xx
 * responses; and because it must keep the head exactly as received. Framing follows RFC 9112:
 * no body for HEAD, 1xx, 204 and 304; chunked when Transfer-Encoding ends in chunked; else
 * Content-Length when all its values agree; else until the connection closes.
 */
import { isInterim, MalformedHeadError, type ResponseHead, takeFinalHead } from './response.js';

/** A response head larger than this is not HTTP a scanner needs to read. */
export const maxHeadBytes = 256 * 1024;

export class MalformedBodyError extends Error {
  override readonly name = 'MalformedBodyError';
}

type Framing =
  | { readonly kind: 'none' }
  | { readonly kind: 'close' }
  | { readonly kind: 'length'; readonly length: number; remaining: number }
  | { readonly kind: 'chunked'; readonly decoder: ChunkedDecoder };

/** Shared by every reader with nothing pending: a zero-length buffer has no byte to change. */
const NO_BYTES = Buffer.alloc(0);

export class ResponseReader {
  private pending: Buffer = NO_BYTES;
  private found: ResponseHead | undefined;
  private framing: Framing = { kind: 'none' };
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private received = 0;
  private complete = false;
  private capped = false;
  private surplus = false;

  /** `method` of the request (HEAD responses have no body); at most `maxBodyBytes` of body are kept. */
  constructor(
    private readonly method: string,
    private readonly maxBodyBytes: number,
  ) {}

  get head(): ResponseHead | undefined {
    return this.found;
  }

  /** True once any byte arrived. */
  get started(): boolean {
    return this.received > 0;
  }

  /** True when the body reached the cap and the rest was not read. */
  get truncatedAtCap(): boolean {
    return this.capped;
  }

  /**
   * True when the response ended where its framing says and nothing followed it: the connection
   * is in step and may carry another request. False for a body cut at the cap, a body delimited by
   * the connection's close, a 101, and bytes after the response (the server is out of step).
   */
  get reusable(): boolean {
    return (
      this.complete &&
      !this.capped &&
      !this.surplus &&
      this.framing.kind !== 'close' &&
      this.found !== undefined &&
      this.found.statusCode !== 101
    );
  }

  body(): Buffer {
    // A body that arrived in one read is that read's bytes: sockets hand out a new buffer per read.
    const [only] = this.chunks;
    if (this.chunks.length === 1 && only !== undefined) return only;
    return Buffer.concat(this.chunks, this.size);
  }

  /**
   * Reads more bytes; returns true once the response is complete (its whole body, or the cap).
   * Throws MalformedHeadError or MalformedBodyError on bytes that are not an HTTP/1.x response.
   */
  feed(chunk: Buffer): boolean {
    if (this.complete) {
      if (chunk.length > 0) this.surplus = true;
      return true;
    }
    this.received += chunk.length;
    if (this.found === undefined) this.readHead(chunk);
    else this.readBody(chunk);
    return this.complete;
  }

  /**
   * The connection closed. Returns what the body still lacked when that cut it short (a
   * close-delimited body ends here, RFC 9112 §8; a Content-Length or chunked body does not), or
   * undefined when the response is whole.
   */
  closed(): string | undefined {
    if (this.complete) return undefined;
    const framing = this.framing;
    this.complete = true;
    if (framing.kind === 'length') {
      return `${framing.length - framing.remaining} of its ${framing.length} bytes arrived`;
    }
    if (framing.kind === 'chunked' && !framing.decoder.sawLastChunk) {
      return `its last chunk never arrived (${this.size} bytes did)`;
    }
    return undefined;
  }

  private readHead(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    rejectNonHttp(this.pending);
    const found = takeFinalHead(this.pending);
    if (found === undefined) {
      if (this.pending.length > maxHeadBytes) {
        throw new MalformedHeadError(`response head larger than ${maxHeadBytes} bytes`);
      }
      return;
    }
    this.found = found.head;
    this.framing = framingOf(found.head, this.method);
    const rest = this.pending.subarray(found.bodyStart);
    this.pending = NO_BYTES;
    if (this.framing.kind === 'none') {
      this.complete = true;
      if (rest.length > 0) this.surplus = true;
    } else this.readBody(rest);
  }

  private readBody(chunk: Buffer): void {
    const framing = this.framing;
    switch (framing.kind) {
      case 'none':
        return;
      case 'close':
        this.keep(chunk);
        return;
      case 'length': {
        const take = Math.min(framing.remaining, chunk.length);
        framing.remaining -= take;
        if (take < chunk.length) this.surplus = true;
        if (this.keep(chunk.subarray(0, take)) && framing.remaining === 0) this.complete = true;
        return;
      }
      case 'chunked':
        if (framing.decoder.feed(chunk, (data) => this.keep(data))) {
          this.complete = true;
          if (framing.decoder.leftover > 0) this.surplus = true;
        }
    }
  }

  /** Adds body bytes up to the cap; returns false once the cap is reached. */
  private keep(data: Buffer): boolean {
    if (this.complete) return false;
    const room = this.maxBodyBytes - this.size;
    if (data.length > room) {
      this.chunks.push(data.subarray(0, room));
      this.size += room;
      this.capped = true;
      this.complete = true;
      return false;
    }
    if (data.length > 0) this.chunks.push(data);
    this.size += data.length;
    return true;
  }
}

const httpPrefix = Buffer.from('HTTP/');

/** Fails at once on bytes that cannot start a response, instead of waiting for a head that never ends. */
function rejectNonHttp(bytes: Buffer): void {
  let start = 0;
  while (bytes[start] === 0x0d || bytes[start] === 0x0a) start++;
  const seen = bytes.subarray(start, start + httpPrefix.length);
  if (!httpPrefix.subarray(0, seen.length).equals(seen)) {
    const preview = bytes.subarray(start, start + 40).toString('latin1');
    throw new MalformedHeadError(`not an HTTP response: ${JSON.stringify(preview)}`);
  }
}

function framingOf(head: ResponseHead, method: string): Framing {
  const { statusCode, headers } = head;
  if (method.toUpperCase() === 'HEAD' || isInterim(statusCode) || statusCode === 101) return { kind: 'none' };
  if (statusCode === 204 || statusCode === 304) return { kind: 'none' };
  // One pass over the headers: every response goes through here.
  let lastCoding: string | undefined;
  let length: string | undefined;
  let lengthsAgree = true;
  for (const [name, value] of headers) {
    if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') {
      for (const coding of value.split(',')) lastCoding = coding;
    } else if (name.length === 14 && name.toLowerCase() === 'content-length') {
      for (const part of value.split(',')) {
        const trimmed = part.trim();
        if (length === undefined) length = trimmed;
        else if (trimmed !== length) lengthsAgree = false;
      }
    }
  }
  if (lastCoding !== undefined) {
    return lastCoding.trim().toLowerCase() === 'chunked'
      ? { kind: 'chunked', decoder: new ChunkedDecoder() }
      : { kind: 'close' };
  }
  // A Content-Length is used when every value given agrees and is a plain decimal number.
  if (length === undefined || !lengthsAgree || !/^\d{1,15}$/.test(length)) return { kind: 'close' };
  return { kind: 'length', length: Number(length), remaining: Number(length) };
}

/** Incremental decoder of `Transfer-Encoding: chunked` (sizes in hex, extensions and trailers skipped). */
export class ChunkedDecoder {
  private pending: Buffer = NO_BYTES;
  private state: 'size' | 'data' | 'data-end' | 'trailer' | 'done' = 'size';
  private remaining = 0;

  /** Bytes received after the end of the chunked body. */
  get leftover(): number {
    return this.state === 'done' ? this.pending.length : 0;
  }

  /** True once the zero-size chunk arrived: all data is in, only trailers may follow. */
  get sawLastChunk(): boolean {
    return this.state === 'trailer' || this.state === 'done';
  }

  /**
   * Feeds received bytes; `emit` gets the decoded data and returns false to stop. Returns true once
   * the last chunk and its trailers have been read.
   */
  feed(bytes: Buffer, emit: (data: Buffer) => boolean): boolean {
    this.pending = this.pending.length === 0 ? bytes : Buffer.concat([this.pending, bytes]);
    for (;;) {
      if (this.state === 'done') return true;
      if (this.state === 'data') {
        const take = Math.min(this.remaining, this.pending.length);
        if (take === 0) return false;
        const data = this.pending.subarray(0, take);
        this.pending = this.pending.subarray(take);
        this.remaining -= take;
        if (this.remaining === 0) this.state = 'data-end';
        if (!emit(data)) return false;
        continue;
      }
      const line = this.takeLine();
      if (line === undefined) return false;
      this.onLine(line);
    }
  }

  private takeLine(): string | undefined {
    const newline = this.pending.indexOf(0x0a);
    if (newline === -1) {
      if (this.pending.length > 4096) throw new MalformedBodyError('chunk size line longer than 4096 bytes');
      return undefined;
    }
    const line = this.pending.subarray(0, newline).toString('latin1');
    this.pending = this.pending.subarray(newline + 1);
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  }

  private onLine(line: string): void {
    switch (this.state) {
      case 'size': {
        const size = (line.split(';')[0] ?? '').trim();
        if (!/^[0-9a-fA-F]{1,12}$/.test(size)) {
          throw new MalformedBodyError(`bad chunk size line ${JSON.stringify(line.slice(0, 40))}`);
        }
        this.remaining = Number.parseInt(size, 16);
        this.state = this.remaining === 0 ? 'trailer' : 'data';
        return;
      }
      case 'data-end':
        // The CRLF after a chunk's data; tolerate its absence by reading this line as the next size.
        this.state = 'size';
        if (line !== '') this.onLine(line);
        return;
      case 'trailer':
        if (line === '') this.state = 'done';
        return;
      default:
        return;
    }
  }
}
