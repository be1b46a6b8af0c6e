/** projectdiscovery/dsl's helpers that act on the run rather than compute a value: `wait_for`, `print_debug`. */
import { argumentError } from '../errors.js';
import { fixed, type HelperFunction, ranged, textArg } from './helper.js';

/** A whole number of seconds, as the dsl library's `toInt` reads it. */
function secondsArg(text: string): number {
  if (!/^\s*[-+]?\d+(\.\d+)?\s*$/.test(text)) {
    throw argumentError('wait_for', 'argument 1 must be a number of seconds');
  }
  return Math.min(MAX_WAIT_SECONDS, Math.max(0, Math.trunc(Number(text))));
}

/**
 * The longest `wait_for`: the wait holds the scan's only thread, which not even Ctrl-C interrupts,
 * so a template cannot stop a scan for longer than this.
 */
const MAX_WAIT_SECONDS = 60;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export const runtimeFunctions: readonly HelperFunction[] = [
  // Expressions are evaluated synchronously, as nuclei's are: the wait holds this thread, as Go's
  // time.Sleep holds the template's goroutine.
  fixed('wait_for', 1, (args) => {
    Atomics.wait(sleeper, 0, 0, secondsArg(textArg(args, 0)) * 1000);
    return true;
  }),
  // nuclei prints the values; they may hold secrets here, so nothing is printed.
  ranged('print_debug', 1, Number.POSITIVE_INFINITY, () => true),
];
