import { decodeBody, parseContentEncoding } from './decode.js';
import { type HeaderField, type HeaderList, isHeaderName } from './message.js';

/**
 * One HTTP response as the scanner saw it. Text fields are the received bytes decoded as UTF-8
 * (ASCII, the usual case, is unaffected); `rawHead` is the status line and header lines exactly as
 * they arrived, up to and including the blank line that ends them.
 */
export interface HttpResponse {
  /** As on the status line, e.g. `HTTP/1.1`. */
  readonly httpVersion: string;
  readonly statusCode: number;
  /** Reason phrase as sent (may be empty). */
  readonly reason: string;
  /** In the order received, with their original casing. */
  readonly headers: HeaderList;
  readonly rawHead: string;
  /** The same head as the exact bytes received (for byte-exact matching). */
  readonly rawHeadBytes: Buffer;
  /** Decoded body (gzip, deflate and br undone), at most the configured cap. */
  readonly body: Buffer;
  /**
   * The body limit (bytes) the body was cut at because it was longer, the rest left unread (after
   * decoding: a compressed body is cut where its decoded text reaches the limit); undefined when the
   * body is whole.
   */
  readonly truncatedAt: number | undefined;
  /**
   * The connection ended before the body its framing announced: what arrived is the body, as
   * nuclei matches it, and this says how much was lacking (`14 of its 50000 bytes arrived`).
   */
  readonly cutShort?: string;
  /** From the start of the exchange (including connecting) to the end of the body. */
  readonly durationMs: number;
  /** Address of the peer the request went to (the `ip` of findings). */
  readonly remoteAddress: string | undefined;
  /** URL of the request this response answers. */
  readonly url: string;
}

export class MalformedHeadError extends Error {
  override readonly name = 'MalformedHeadError';
}

export interface ResponseHead {
  readonly httpVersion: string;
  readonly statusCode: number;
  readonly reason: string;
  readonly headers: HeaderField[];
  readonly rawHead: string;
  readonly rawHeadBytes: Buffer;
}

const statusLine = /^(HTTP\/\d+(?:\.\d+)?)[ \t]+(\d{3})(?:[ \t]+([^\n]*))?$/;

/**
 * Parses a response head (status line, header lines, blank line) leniently, as servers in the wild
 * send them: bare LF line ends, no reason phrase, folded header lines (joined with a space), lines
 * without a colon (ignored). Anything that does not start with an HTTP status line is malformed.
 */
export function parseResponseHead(head: Buffer): ResponseHead {
  const rawHead = head.toString('utf8');
  let end = lineEnd(rawHead, 0);
  const first = line(rawHead, 0, end);
  const status = statusLine.exec(first);
  if (status === null) {
    throw new MalformedHeadError(`not an HTTP status line: ${JSON.stringify(first.slice(0, 80))}`);
  }
  const headers: HeaderField[] = [];
  while (end < rawHead.length) {
    const start = end + 1;
    end = lineEnd(rawHead, start);
    const text = line(rawHead, start, end);
    if (text === '') break;
    const last = headers.at(-1);
    if ((text[0] === ' ' || text[0] === '\t') && last !== undefined) {
      headers[headers.length - 1] = [last[0], `${last[1]} ${text.trim()}`.trim()];
      continue;
    }
    const colon = text.indexOf(':');
    if (colon > 0) headers.push([text.slice(0, colon).trim(), text.slice(colon + 1).trim()]);
  }
  return {
    httpVersion: status[1]!,
    statusCode: Number(status[2]),
    reason: (status[3] ?? '').trimEnd(),
    headers,
    rawHead,
    rawHeadBytes: head,
  };
}

function lineEnd(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  return newline === -1 ? text.length : newline;
}

/** The line from `start` to `end` (a newline or the end), without its CR. */
function line(text: string, start: number, end: number): string {
  return text.slice(start, text.charCodeAt(end - 1) === 13 && end > start ? end - 1 : end);
}

/**
 * Offset just past the blank line that ends the head starting at `from`, or -1 when the head is not
 * complete yet. Accepts CRLF and bare LF line ends.
 */
export function findHeadEnd(bytes: Buffer, from = 0): number {
  let newline = bytes.indexOf(0x0a, from);
  while (newline !== -1) {
    const next = bytes[newline + 1];
    if (next === 0x0a) return newline + 2;
    if (next === 0x0d && bytes[newline + 2] === 0x0a) return newline + 3;
    newline = bytes.indexOf(0x0a, newline + 1);
  }
  return -1;
}

/** Interim (1xx) responses precede the final one and have no body; 101 is final. */
export function isInterim(statusCode: number): boolean {
  return statusCode >= 100 && statusCode < 200 && statusCode !== 101;
}

/**
 * Finds the final (non-interim) head in `bytes`, skipping any 1xx heads before it. Returns the head
 * and the offset where its body starts, or undefined when the final head has not fully arrived.
 */
export function takeFinalHead(bytes: Buffer): { head: ResponseHead; bodyStart: number } | undefined {
  let start = 0;
  for (;;) {
    while (bytes[start] === 0x0d || bytes[start] === 0x0a) start++;
    const end = findHeadEnd(bytes, start);
    if (end === -1) return undefined;
    const head = parseResponseHead(bytes.subarray(start, end));
    if (!isInterim(head.statusCode)) return { head, bodyStart: end };
    start = end;
  }
}

export interface ExchangeFacts {
  readonly url: string;
  readonly startedAt: number;
  readonly remoteAddress: string | undefined;
  readonly maxBodyBytes: number;
  /** The connection ended inside the body: how much was lacking. */
  readonly cutShort?: string | undefined;
}

/**
 * Puts a response together once its body has arrived, undoing its Content-Encoding within the cap.
 * Synchronous when there is nothing to decode (the common case, kept off the promise queue).
 */
export function assembleResponse(
  head: ResponseHead,
  received: Buffer,
  receivedTruncated: boolean,
  facts: ExchangeFacts,
): HttpResponse | Promise<HttpResponse> {
  const encoding = head.headers.find(([name]) => isHeaderName(name, 'content-encoding'))?.[1];
  const codings = parseContentEncoding(encoding);
  if (codings === undefined || codings.length === 0 || received.length === 0) {
    return build(head, received, receivedTruncated, facts);
  }
  return decodeBody(received, encoding, facts.maxBodyBytes).then((decoded) =>
    build(head, decoded.body, receivedTruncated || decoded.truncated, facts),
  );
}

/** Hands a response that may still be decoding to a promise's callbacks. */
export function deliver(
  response: HttpResponse | Promise<HttpResponse>,
  resolve: (response: HttpResponse) => void,
  reject: (error: Error) => void,
): void {
  if (response instanceof Promise) response.then(resolve, reject);
  else resolve(response);
}

function build(head: ResponseHead, body: Buffer, cut: boolean, facts: ExchangeFacts): HttpResponse {
  const response: HttpResponse = {
    httpVersion: head.httpVersion,
    statusCode: head.statusCode,
    reason: head.reason,
    headers: head.headers,
    rawHead: head.rawHead,
    rawHeadBytes: head.rawHeadBytes,
    body,
    truncatedAt: cut ? facts.maxBodyBytes : undefined,
    durationMs: performance.now() - facts.startedAt,
    remoteAddress: facts.remoteAddress,
    url: facts.url,
  };
  return facts.cutShort === undefined ? response : { ...response, cutShort: facts.cutShort };
}
