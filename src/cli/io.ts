/** Where a command reads and writes, so commands run the same in a terminal, a pipe or a test. */
export interface CliIo {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Ctrl-C, for commands that stop cleanly on it (absent: interrupts are not caught). */
  readonly interrupts?: Interrupts;
}

export interface OutputStream {
  write(text: string): void;
  /** True when the stream is an interactive terminal (colour, progress bars). */
  readonly isTTY: boolean;
}

export interface Interrupts {
  /** Calls `listener` on every Ctrl-C (or SIGTERM) until the returned function is called. */
  on(listener: () => void): () => void;
  /** Ends the process at once with `code` (a second Ctrl-C does not wait for a clean stop). */
  exitNow(code: number): void;
}

/** Whether what goes to `stream` is coloured: on a terminal, unless NO_COLOR is set (https://no-color.org). */
export function colourFor(io: CliIo, stream: OutputStream): boolean {
  return stream.isTTY && (io.env.NO_COLOR ?? '') === '';
}

export function processIo(): CliIo {
  // A reader that went away (`keyhole scan … | head -3`) must not end a command with a stack trace:
  // what it no longer reads is dropped, and the command finishes (a scan is still recorded).
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  return {
    stdout: { write: (t) => void process.stdout.write(t), isTTY: process.stdout.isTTY === true },
    stderr: { write: (t) => void process.stderr.write(t), isTTY: process.stderr.isTTY === true },
    env: process.env,
    cwd: process.cwd(),
    interrupts: {
      // SIGTERM (a service manager, a container stopping) stops as cleanly as Ctrl-C.
      on(listener) {
        process.on('SIGINT', listener);
        process.on('SIGTERM', listener);
        return () => {
          process.off('SIGINT', listener);
          process.off('SIGTERM', listener);
        };
      },
      exitNow: (code) => process.exit(code),
    },
  };
}

/** Collects output in memory; for tests and for callers that post-process output. */
export function memoryIo(options: { env?: Record<string, string | undefined>; cwd?: string } = {}): CliIo & {
  out(): string;
  err(): string;
  /** Acts as a Ctrl-C. */
  interrupt(): void;
  /** The code a command asked to exit with at once, if it did. */
  exitedWith(): number | undefined;
} {
  let out = '';
  let err = '';
  let exited: number | undefined;
  const listeners = new Set<() => void>();
  return {
    stdout: {
      write: (t) => {
        out += t;
      },
      isTTY: false,
    },
    stderr: {
      write: (t) => {
        err += t;
      },
      isTTY: false,
    },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    interrupts: {
      on(listener) {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
      exitNow: (code) => {
        exited ??= code;
      },
    },
    out: () => out,
    err: () => err,
    interrupt: () => {
      for (const listener of [...listeners]) listener();
    },
    exitedWith: () => exited,
  };
}
