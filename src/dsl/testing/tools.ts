/** Whether a program the tests run (a JVM, Mono) is installed here. */
import { execFileSync } from 'node:child_process';

export function commandWorks(command: string, args: readonly string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
