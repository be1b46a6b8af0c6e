import { isIPv4, isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';
import { boundedLines, formatBytes, quote } from '../source/index.js';

/** A line of a target list that is not a target, with why. */
export interface TargetProblem {
  readonly line: number;
  /** The line as written, trimmed; undefined for a line too long to keep. */
  readonly text: string | undefined;
  readonly message: string;
}

/** The longest line of a target list kept: a URL of this length is already refused by most servers. */
export const MAX_TARGET_LINE_BYTES = 64 * 1024;

export interface TargetList {
  /** The targets as written (trimmed), first occurrence kept, in file order. */
  readonly targets: readonly string[];
  /** Lines dropped because they repeat an earlier target (compared case-insensitively, default ports ignored). */
  readonly duplicates: number;
  readonly problems: readonly TargetProblem[];
}

export type CheckedTarget =
  | { readonly ok: true; readonly key: string }
  | { readonly ok: false; readonly message: string };

/**
 * Reads a target list one line at a time (for `keyhole assets upload` and `scan -l`): one target
 * per line — an http(s) URL, a host name, `host:port`, an IPv4 or IPv6 address (`[v6]:port`) —
 * blank lines and `#` comments ignored (also after a target, following a space), duplicates dropped,
 * bad lines collected with their number.
 */
export class TargetListReader {
  private readonly targets: string[] = [];
  private readonly seen = new Set<string>();
  private readonly problems: TargetProblem[] = [];
  private duplicates = 0;
  private lineNumber = 0;

  line(raw: string): void {
    this.lineNumber++;
    const text = withoutComment(raw).trim();
    if (text === '') return;
    const checked = checkTarget(text);
    if (!checked.ok) {
      this.problems.push({ line: this.lineNumber, text, message: checked.message });
      return;
    }
    if (this.seen.has(checked.key)) {
      this.duplicates++;
      return;
    }
    this.seen.add(checked.key);
    this.targets.push(text);
  }

  /** A line over {@link MAX_TARGET_LINE_BYTES}: counted and reported, not kept. */
  tooLong(bytes: number): void {
    this.lineNumber++;
    const message = `the line is ${formatBytes(bytes)} long, over the limit of ${formatBytes(MAX_TARGET_LINE_BYTES)} for a target`;
    this.problems.push({ line: this.lineNumber, text: undefined, message });
  }

  result(): TargetList {
    return { targets: [...this.targets], duplicates: this.duplicates, problems: [...this.problems] };
  }
}

/** A target list file's bytes, a line at a time, each line held to {@link MAX_TARGET_LINE_BYTES}. */
export async function readTargetList(input: AsyncIterable<Buffer | string>): Promise<TargetList> {
  const reader = new TargetListReader();
  for await (const line of boundedLines(input, MAX_TARGET_LINE_BYTES)) {
    if (line.tooLong !== undefined) reader.tooLong(line.tooLong.bytes);
    else reader.line(line.text);
  }
  return reader.result();
}

/** `"the line": why`, or only why for a line too long to quote. */
export function describeTargetProblem(problem: TargetProblem): string {
  return problem.text === undefined ? problem.message : `${quote(problem.text)}: ${problem.message}`;
}

/** A whole target list given as text. */
export function parseTargetList(text: string): TargetList {
  const reader = new TargetListReader();
  for (const line of text.split(/\r?\n/)) reader.line(line);
  return reader.result();
}

function withoutComment(line: string): string {
  if (line.trimStart().startsWith('#')) return '';
  const comment = line.search(/\s#/);
  return comment < 0 ? line : line.slice(0, comment);
}

/** Whether one (trimmed) text is a target, and the key duplicates are recognised by. */
export function checkTarget(text: string): CheckedTarget {
  if (/\s/.test(text)) return bad('a target has no spaces; put one target per line');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return checkUrl(text);
  if (text.includes('/')) {
    if (/^[\d.]+\/\d+$/.test(text) || /^[0-9a-f:]+\/\d+$/i.test(text)) {
      return bad('CIDR ranges are not supported; list the addresses one per line');
    }
    return bad('a path needs a scheme: write it as a URL (https://host/path)');
  }
  return checkHostPort(text);
}

function checkUrl(text: string): CheckedTarget {
  const scheme = text.slice(0, text.indexOf(':')).toLowerCase();
  if (scheme !== 'http' && scheme !== 'https')
    return bad(`unsupported scheme ${quote(scheme)}; use http:// or https://`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return bad('not a valid URL');
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const problem = isIPv6(host) ? undefined : hostProblem(host);
  if (problem !== undefined) return bad(problem);
  return { ok: true, key: url.href };
}

function checkHostPort(text: string): CheckedTarget {
  let host = text;
  let port: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text);
  if (bracketed !== null) {
    if (!isIPv6(bracketed[1]!)) return bad('not a valid IPv6 address inside [ ]');
    host = bracketed[1]!;
    port = bracketed[2];
  } else if (isIPv6(text)) {
    return { ok: true, key: text.toLowerCase() };
  } else if ((text.match(/:/g) ?? []).length > 1) {
    return bad('not a valid IPv6 address (write [address]:port to add a port)');
  } else if (text.includes(':')) {
    host = text.slice(0, text.indexOf(':'));
    port = text.slice(text.indexOf(':') + 1);
  }
  if (port !== undefined && !/^\d{1,5}$/.test(port))
    return bad(`port ${quote(port)} is not a number from 1 to 65535`);
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) {
    return bad(`port ${port} is out of range (1–65535)`);
  }
  if (bracketed === null) {
    const problem = hostProblem(host);
    if (problem !== undefined) return bad(problem);
  }
  const key = `${host.toLowerCase().replace(/\.$/, '')}${port === undefined ? '' : `:${Number(port)}`}`;
  return { ok: true, key };
}

/** Why `host` is not an IPv4 address or a DNS name (IDN allowed), or undefined when it is one. */
function hostProblem(host: string): string | undefined {
  if (host === '') return 'the host is empty';
  if (/^[\d.]+$/.test(host)) return isIPv4(host) ? undefined : `${quote(host)} is not a valid IPv4 address`;
  const ascii = domainToASCII(host);
  if (ascii === '') return `${quote(host)} is not a valid host name`;
  const name = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
  if (name.length > 253) return 'the host name is longer than 253 characters';
  for (const label of name.split('.')) {
    if (!/^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i.test(label)) {
      return `${quote(host)} is not a valid host name (labels are letters, digits and inner hyphens, 1–63 characters)`;
    }
  }
  return undefined;
}

function bad(message: string): CheckedTarget {
  return { ok: false, message };
}
