import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { type Diagnostics, describeReadProblem, formatBytes, quote, readBounded } from '../source/index.js';
import type { Sourced, ValueSource } from './model.js';
import { decodeBase32 } from './totp.js';

/** How long a `{cmd: …}` reference may run, or a `{file: …}` pipe take to be written, before it counts as failed. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;
/** The most a `{file: …}` or `{cmd: …}` reference gives: a secret is far smaller. */
export const MAX_REFERENCED_BYTES = 1 << 20;

export type CommandResult =
  | { readonly ok: true; readonly stdout: string }
  | { readonly ok: false; readonly reason: string };

/** Runs a program without a shell; the seam tests and embedders can replace. */
export type CommandRunner = (
  argv: readonly string[],
  options: {
    readonly cwd: string;
    readonly timeoutMs: number;
    readonly env: Readonly<Record<string, string | undefined>>;
  },
) => Promise<CommandResult>;

export interface ReferenceContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The secret file's folder: `{file: …}` paths and commands are relative to it. */
  readonly baseDir: string;
  readonly runCommand?: CommandRunner | undefined;
  readonly commandTimeoutMs?: number | undefined;
}

/**
 * Resolves every value of a secret file once: literals as written, `{env: NAME}` from the
 * environment, `{file: path}` from a file (one trailing newline dropped), `{cmd: [argv…]}` from a
 * command's output (one trailing newline dropped). The same reference written twice is resolved
 * once. Problems are reported at the field that holds the reference.
 */
export async function resolveValues(
  values: readonly Sourced[],
  context: ReferenceContext,
  diagnostics: Diagnostics,
): Promise<Map<Sourced, string>> {
  const cache = new Map<string, Promise<CommandResult>>();
  const resolved = new Map<Sourced, string>();
  await Promise.all(
    values.map(async (value) => {
      const key = JSON.stringify(value.source);
      let pending = cache.get(key);
      if (pending === undefined) {
        pending = resolveSource(value.source, context);
        cache.set(key, pending);
      }
      const result = await pending;
      if (result.ok) resolved.set(value, result.stdout);
      else diagnostics.error(value.pos, value.path, result.reason);
    }),
  );
  return resolved;
}

async function resolveSource(source: ValueSource, context: ReferenceContext): Promise<CommandResult> {
  switch (source.kind) {
    case 'literal':
      return { ok: true, stdout: source.text };
    case 'env': {
      const value = context.env[source.name];
      if (value === undefined) {
        return {
          ok: false,
          reason: `the environment variable ${source.name} is not set; export it before running`,
        };
      }
      return { ok: true, stdout: value };
    }
    case 'file': {
      const path = resolve(context.baseDir, source.path);
      const read = await readBounded(path, {
        maxBytes: MAX_REFERENCED_BYTES,
        timeoutMs: context.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      });
      if (!read.ok)
        return { ok: false, reason: `cannot read the file ${path}: ${describeReadProblem(read.problem)}` };
      return { ok: true, stdout: dropTrailingNewline(read.text) };
    }
    case 'cmd': {
      const run = context.runCommand ?? runCommand;
      const timeoutMs = context.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
      const result = await run(source.argv, { cwd: context.baseDir, timeoutMs, env: context.env });
      if (!result.ok)
        return {
          ok: false,
          reason: `the command ${quote(source.argv[0] ?? '')} failed: ${result.reason}`,
        };
      return { ok: true, stdout: dropTrailingNewline(result.stdout) };
    }
    case 'totp': {
      // The base32 secret; the login makes each code from it when it runs.
      const secret = await resolveSource(source.secret, context);
      if (!secret.ok) return secret;
      const key = decodeBase32(secret.stdout);
      return 'problem' in key ? { ok: false, reason: key.problem } : secret;
    }
  }
}

function dropTrailingNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}

/** The default runner: `execFile` (no shell), with a timeout and a cap on the output size. */
export const runCommand: CommandRunner = (argv, options) =>
  new Promise((done) => {
    const [program = '', ...args] = argv;
    execFile(
      program,
      args,
      {
        cwd: options.cwd,
        timeout: options.timeoutMs,
        maxBuffer: MAX_REFERENCED_BYTES,
        env: options.env as NodeJS.ProcessEnv,
        encoding: 'utf8',
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (error === null) {
          done({ ok: true, stdout });
          return;
        }
        const failure = error as NodeJS.ErrnoException & {
          killed?: boolean;
          signal?: string | null;
          code?: unknown;
        };
        const detail = stderr.trim() === '' ? '' : `; its error output: ${lastLines(stderr)}`;
        if (failure.code === 'ENOENT')
          done({ ok: false, reason: `program not found (is it installed and on PATH?)` });
        else if (failure.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
          done({ ok: false, reason: `it printed more than ${formatBytes(MAX_REFERENCED_BYTES)}, the limit` });
        else if (failure.killed === true || failure.signal != null) {
          const why =
            failure.killed === true
              ? `did not finish within ${options.timeoutMs / 1000} s and was stopped`
              : `was ended by ${failure.signal}`;
          done({ ok: false, reason: `${why}${detail}` });
        } else done({ ok: false, reason: `it exited with status ${String(failure.code)}${detail}` });
      },
    );
  });

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-5).join(' | ');
}
