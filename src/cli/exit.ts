/** Exit codes shared by every command. */
export const ExitCode = {
  ok: 0,
  /** Bad usage or configuration, detected before any work was done. */
  usage: 1,
  /** The work itself failed. */
  failed: 2,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** An error whose message is meant for the user as is: no stack trace, no wrapping. */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = ExitCode.usage,
  ) {
    super(message);
    this.name = 'UserError';
  }
}
