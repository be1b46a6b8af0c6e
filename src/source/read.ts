import { close, constants, open, read, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { formatBytes } from './size.js';

export interface ReadLimits {
  /** Bytes read at most: reading stops there, a larger file is refused. */
  readonly maxBytes: number;
  /** How long a pipe or device may take to give its bytes before the read is given up. */
  readonly timeoutMs: number;
}

export type ReadProblem =
  | { readonly kind: 'missing' | 'folder' | 'denied' }
  /** `bytes` is the file's size when it is a regular file, whose size is known without reading it. */
  | { readonly kind: 'too-large'; readonly maxBytes: number; readonly bytes?: number }
  | { readonly kind: 'timeout'; readonly timeoutMs: number }
  | { readonly kind: 'other'; readonly code: string };

export type ReadResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly problem: ReadProblem };

const openAsync = promisify(open);
const readAsync = promisify(read);
const closeAsync = promisify(close);
const CHUNK = 64 * 1024;
/** How often a device with nothing to read yet (a terminal) is asked again. */
const DEVICE_RETRY_MS = 25;

/**
 * Reads a file a user named as UTF-8 text, never more than `maxBytes` (one more byte is enough to
 * tell a file is too large: `/dev/zero` is refused, not read forever) and never waiting longer
 * than `timeoutMs` for a pipe or device (a FIFO nobody writes to). A regular file larger than the
 * limit is refused from its size before any byte is read.
 */
export async function readBounded(path: string, limits: ReadLimits): Promise<ReadResult> {
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    return failure(problemOf(error));
  }
  if (info.isDirectory()) return failure({ kind: 'folder' });
  if (info.isFile() && info.size > limits.maxBytes)
    return failure({ kind: 'too-large', maxBytes: limits.maxBytes, bytes: info.size });
  const flags = info.isFile() ? constants.O_RDONLY : constants.O_RDONLY | constants.O_NONBLOCK;
  let fd: number;
  try {
    fd = await openAsync(path, flags);
  } catch (error) {
    return failure(problemOf(error));
  }
  if (info.isFIFO()) return readPipe(fd, limits);
  try {
    return await readDescriptor(fd, limits, info.isFile());
  } finally {
    await closeAsync(fd);
  }
}

/** Says what went wrong, for `cannot read FILE: …`. */
export function describeReadProblem(problem: ReadProblem): string {
  switch (problem.kind) {
    case 'missing':
      return 'no such file';
    case 'folder':
      return 'it is a folder';
    case 'denied':
      return 'permission denied';
    case 'too-large':
      return problem.bytes === undefined
        ? `it is larger than ${formatBytes(problem.maxBytes)}, the limit`
        : `it is ${formatBytes(problem.bytes)}, over the limit of ${formatBytes(problem.maxBytes)}`;
    case 'timeout':
      return `nothing finished writing it within ${problem.timeoutMs / 1000} s`;
    case 'other':
      return problem.code;
  }
}

/** A regular file, or a device read without blocking (a terminal with nothing typed is asked again). */
async function readDescriptor(fd: number, limits: ReadLimits, regular: boolean): Promise<ReadResult> {
  const deadline = Date.now() + limits.timeoutMs;
  const parts: Buffer[] = [];
  let total = 0;
  for (;;) {
    if (!regular && Date.now() >= deadline) return failure({ kind: 'timeout', timeoutMs: limits.timeoutMs });
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, limits.maxBytes + 1 - total));
    let bytesRead: number;
    try {
      ({ bytesRead } = await readAsync(fd, buffer, 0, buffer.length, null));
    } catch (error) {
      if (regular || (error as NodeJS.ErrnoException).code !== 'EAGAIN') return failure(problemOf(error));
      await sleep(DEVICE_RETRY_MS);
      continue;
    }
    if (bytesRead === 0) return { ok: true, text: Buffer.concat(parts, total).toString('utf8') };
    parts.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (total > limits.maxBytes) return failure({ kind: 'too-large', maxBytes: limits.maxBytes });
  }
}

/** A FIFO is read through the event loop, so a writer that never comes costs a timer, not a thread. */
function readPipe(fd: number, limits: ReadLimits): Promise<ReadResult> {
  return new Promise((done) => {
    // The socket owns the descriptor from here and closes it when destroyed.
    const pipe = new Socket({ fd, readable: true, writable: false });
    const parts: Buffer[] = [];
    let total = 0;
    const finish = (result: ReadResult) => {
      clearTimeout(timer);
      pipe.destroy();
      done(result);
    };
    const timer = setTimeout(
      () => finish(failure({ kind: 'timeout', timeoutMs: limits.timeoutMs })),
      limits.timeoutMs,
    );
    pipe.on('data', (chunk: Buffer) => {
      parts.push(chunk);
      total += chunk.length;
      if (total > limits.maxBytes) finish(failure({ kind: 'too-large', maxBytes: limits.maxBytes }));
    });
    pipe.on('end', () => finish({ ok: true, text: Buffer.concat(parts, total).toString('utf8') }));
    pipe.on('error', (error) => finish(failure(problemOf(error))));
  });
}

function problemOf(error: unknown): ReadProblem {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
  if (code === 'EISDIR') return { kind: 'folder' };
  if (code === 'EACCES' || code === 'EPERM') return { kind: 'denied' };
  return { kind: 'other', code: code ?? String(error) };
}

function failure(problem: ReadProblem): ReadResult {
  return { ok: false, problem };
}
