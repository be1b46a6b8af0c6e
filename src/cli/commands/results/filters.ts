/** What the filters and the page size of `scans list` and `findings list` take, checked. */
import { VULN_STATUSES, type VulnStatus } from '../../../store/index.js';
import { UserError } from '../../exit.js';

export function isVulnStatus(text: string): text is VulnStatus {
  return (VULN_STATUSES as readonly string[]).includes(text);
}

/** A comma list of allowed values (`undefined` when the option is absent); an unknown one is named. */
export function commaList<T extends string>(
  text: string | undefined,
  option: string,
  allowed: readonly T[],
  is: (value: string) => value is T,
): T[] | undefined {
  if (text === undefined) return undefined;
  const values = text
    .split(',')
    .map((value) => value.trim().toLowerCase())
    .filter((value) => value !== '');
  const unknown = values.filter((value) => !is(value));
  if (unknown.length > 0 || values.length === 0) {
    throw new UserError(
      `${option}: ${unknown.length > 0 ? `unknown value ${JSON.stringify(unknown[0])}` : 'no value'}; use a comma list of ${allowed.join(', ')}`,
    );
  }
  return values as T[];
}

/** `--limit`: a page of 1 to 1000. */
export function pageLimit(text: string): number {
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > 1000) {
    throw new UserError(`--limit: expected a whole number from 1 to 1000, got ${JSON.stringify(text)}`);
  }
  return limit;
}
