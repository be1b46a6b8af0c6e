import { isSeverity, type Severity } from '../event/index.js';
import {
  COMPARISONS,
  type Comparison,
  FINDING_SORTS,
  type FindingCursor,
  type FindingSort,
  isId,
  isScanStatus,
  type ScanStatus,
  VULN_STATUSES,
  type VulnStatus,
} from '../store/index.js';

/** A request the dashboard answers with an error page: the status and what to do about it. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type Query = Readonly<Record<string, unknown>>;

/** A text parameter: absent or empty is undefined; a repeated one or one too long is refused. */
export function text(query: Query, name: string, maxLength = 2048): string | undefined {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new PageError(400, `${name}: give the parameter once`);
  if (value.length > maxLength) throw new PageError(400, `${name}: at most ${maxLength} characters`);
  return value;
}

export function offsetOf(query: Query): number {
  const value = text(query, 'offset', 9);
  if (value === undefined) return 0;
  if (!/^\d+$/.test(value)) throw new PageError(400, 'offset: expected a whole number from 0');
  return Number(value);
}

function oneOf<T extends string>(query: Query, name: string, allowed: readonly T[]): T | undefined {
  const value = text(query, name, 64);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new PageError(400, `${name}: "${value}" is not one of ${allowed.join(', ')}`);
  return value as T;
}

export function scanStatusOf(query: Query): ScanStatus | undefined {
  const value = text(query, 'status', 64);
  if (value === undefined) return undefined;
  if (!isScanStatus(value)) throw new PageError(400, `status: "${value}" is not a scan status`);
  return value;
}

export function severityOf(query: Query): Severity | undefined {
  const value = text(query, 'severity', 64);
  if (value === undefined) return undefined;
  if (!isSeverity(value)) throw new PageError(400, `severity: "${value}" is not a severity`);
  return value;
}

export const vulnStatusOf = (query: Query): VulnStatus | undefined => oneOf(query, 'status', VULN_STATUSES);
export const sortOf = (query: Query): FindingSort => oneOf(query, 'sort', FINDING_SORTS) ?? 'recorded';
export const comparisonOf = (query: Query): Comparison => oneOf(query, 'kind', COMPARISONS) ?? 'new';

/** An id parameter (a scan's, a finding's): absent is undefined; one not shaped as an id is refused. */
export function idOf(query: Query, name: string): string | undefined {
  const value = text(query, name, 64);
  if (value === undefined) return undefined;
  if (!isId(value)) throw new PageError(400, `${name}: "${value}" is not an id (20 characters, 0-9 and a-v)`);
  return value;
}

/** A page's end as its link carries it: base64url of `[value, id]`. */
export function encodeCursor(cursor: FindingCursor): string {
  return Buffer.from(JSON.stringify([cursor.value, cursor.id]), 'utf8').toString('base64url');
}

export function cursorOf(query: Query): FindingCursor | undefined {
  const value = text(query, 'after', 4096);
  if (value === undefined) return undefined;
  const broken = new PageError(400, 'after: this page link is damaged; go back to the first page');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw broken;
  }
  if (!Array.isArray(decoded) || decoded.length !== 2) throw broken;
  const [sortValue, id] = decoded as unknown[];
  if (typeof sortValue !== 'string' || typeof id !== 'string' || !isId(id)) throw broken;
  return { value: sortValue, id };
}
