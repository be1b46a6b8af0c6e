/**
 * `-stats`: the progress of a scan as lines, for logs and CI where there is no terminal, in
 * nuclei's format (its `-stats` line and its `-sj` JSON object), so that what reads nuclei's reads
 * keyhole's.
 */

export interface StatsFigures {
  readonly startedAt: Date;
  readonly elapsedMs: number;
  readonly templates: number;
  readonly hosts: number;
  /** Requests sent so far. */
  readonly requests: number;
  /** Requests the templates make against the targets, as planned (redirects and retries aside). */
  readonly totalRequests: number;
  readonly matched: number;
  readonly errors: number;
}

/** `[0:00:05] | Templates: 3 | Hosts: 2 | RPS: 12 | Matched: 1 | Errors: 0 | Requests: 60/80 (75%)` */
export function formatStatsLine(figures: StatsFigures): string {
  const { templates, hosts, matched, errors, requests } = figures;
  return `[${clock(figures.elapsedMs)}] | Templates: ${templates} | Hosts: ${hosts} | RPS: ${rps(figures)} | Matched: ${matched} | Errors: ${errors} | Requests: ${requests}/${total(figures)} (${percent(figures)}%)\n`;
}

/** nuclei's `-sj` object: every figure a string, as nuclei writes them. */
export function formatStatsJson(figures: StatsFigures): string {
  return `${JSON.stringify({
    duration: clock(figures.elapsedMs),
    errors: String(figures.errors),
    hosts: String(figures.hosts),
    matched: String(figures.matched),
    percent: String(percent(figures)),
    requests: String(figures.requests),
    rps: String(rps(figures)),
    startedAt: figures.startedAt.toISOString(),
    templates: String(figures.templates),
    total: String(total(figures)),
  })}\n`;
}

/** `h:mm:ss`, rounded to the second, as nuclei shows the time since the scan started. */
function clock(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(seconds / 3600)}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
}

function rps(figures: StatsFigures): number {
  return figures.elapsedMs <= 0 ? 0 : Math.floor(figures.requests / (figures.elapsedMs / 1000));
}

/** As nuclei: with no planned total, the requests made are the total. */
function total(figures: StatsFigures): number {
  return figures.totalRequests === 0 ? figures.requests : figures.totalRequests;
}

/**
 * Whole percent of the planned requests. Redirect hops, retries and logins are requests too, so the
 * count can pass the plan; the percent stops at 100 rather than say more than all is done.
 */
function percent(figures: StatsFigures): number {
  const planned = total(figures);
  return planned === 0 ? 100 : Math.min(100, Math.floor((figures.requests / planned) * 100));
}
