import type { ScanAuthentication } from '../../store/index.js';

type Entry = ScanAuthentication['entries'][number];

/** How bad: `error` when a secret did not work, `warning` when it worked only in part. */
export type Gravity = 'error' | 'warning';

export interface Problem {
  readonly gravity: Gravity;
  /** In words, for a page read without colour. */
  readonly text: string;
}

/** Requests that carried a secret the target did not turn away. */
export function authenticatedRequests(auth: ScanAuthentication): number {
  return auth.authenticated - auth.entries.reduce((sum, e) => sum + e.rejected, 0);
}

/** What went wrong with an entry's secret, if anything. */
export function entryProblems(entry: Entry): Problem[] {
  const problems: Problem[] = [];
  if (entry.loginFailures > 0 || entry.refused > 0) problems.push({ gravity: 'error', text: 'login failed' });
  if (entry.rejected > 0 && entry.rejected >= entry.requests)
    problems.push({ gravity: 'error', text: 'the target turned its secret away on every request' });
  else if (entry.rejected > 0)
    problems.push({
      gravity: 'warning',
      text: `the target turned its secret away on ${entry.rejected} of ${entry.requests} requests`,
    });
  return problems;
}

/** What went wrong with a scan's authentication as a whole: its entries', and none authenticated. */
export function scanProblems(auth: ScanAuthentication): Problem[] {
  const problems = auth.entries.flatMap((entry) =>
    entryProblems(entry).map((p) => ({ gravity: p.gravity, text: `${entry.label}: ${p.text}` })),
  );
  if (auth.requests > 0 && authenticatedRequests(auth) === 0)
    problems.unshift({ gravity: 'error', text: `none of the ${auth.requests} requests was authenticated` });
  return problems;
}

export function gravityOf(problems: readonly Problem[]): Gravity | undefined {
  if (problems.some((p) => p.gravity === 'error')) return 'error';
  return problems.length > 0 ? 'warning' : undefined;
}

/** `3 of 4 requests (75%)`: a share rounded down, so that only all of them reads 100%. */
function share(part: number, whole: number): string {
  const percent = (part / whole) * 100;
  const shown = percent > 0 && percent < 1 ? 'under 1' : String(Math.floor(percent));
  return `${part} of ${whole} request${whole === 1 ? '' : 's'} (${shown}%)`;
}

/** The scan page's section: how many requests carried a secret the target took, and each entry's figures. */
export function AuthenticationSection(props: { auth: ScanAuthentication; live: boolean }) {
  const { auth, live } = props;
  const problems = scanProblems(auth);
  const gravity = gravityOf(problems);
  return (
    <section class="authentication" aria-labelledby="authentication">
      <h2 id="authentication">Authentication</h2>
      <p class={gravity === undefined ? 'auth-share' : `auth-share ${noticeClass(gravity)}`}>
        {gravity === undefined ? null : <strong>{gravity === 'error' ? 'Problem: ' : 'Warning: '}</strong>}
        <Headline auth={auth} live={live} />
      </p>
      {problems.length === 0 ? null : (
        <ul class="auth-problems">
          {problems.map((p) => (
            <li>{p.text}</li>
          ))}
        </ul>
      )}
      {auth.entries.length === 0 ? (
        <p class="muted">No entry of the secret files applied to the targets.</p>
      ) : (
        <EntryTable entries={auth.entries} />
      )}
    </section>
  );
}

function Headline({ auth, live }: { auth: ScanAuthentication; live: boolean }) {
  if (auth.requests === 0) return <>{live ? 'No request sent yet.' : 'No request was sent.'}</>;
  const taken = authenticatedRequests(auth);
  const rejected = auth.authenticated - taken;
  return (
    <>
      {`Authenticated: ${share(taken, auth.requests)}`}
      {rejected === 0 ? null : `; ${rejected} more carried a secret the target turned away`}
    </>
  );
}

function EntryTable({ entries }: { entries: ScanAuthentication['entries'] }) {
  return (
    <table class="auth">
      <thead>
        <tr>
          <th>Secret-file entry</th>
          <th>Kind: types</th>
          <th>Scope</th>
          <th>Requests</th>
          <th>Not sent (login failed)</th>
          <th>Turned away by the target</th>
          <th>Logins / failed / re-logins</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <EntryRow entry={entry} />
        ))}
      </tbody>
    </table>
  );
}

function EntryRow({ entry }: { entry: Entry }) {
  const problems = entryProblems(entry);
  const gravity = gravityOf(problems);
  return (
    <tr data-auth-entry={entry.fingerprint} class={gravity === undefined ? undefined : `auth-${gravity}`}>
      <td>
        {entry.label}
        {entry.planned ? (
          <>
            {' '}
            <span
              class="marker"
              title="the scan was queued with this entry: only a worker that has it runs it"
            >
              planned
            </span>
          </>
        ) : null}
        {problems.map((p) => (
          <span class="auth-problem">{`${p.gravity === 'error' ? 'Problem' : 'Warning'}: ${p.text}`}</span>
        ))}
      </td>
      <td>{`${entry.kind}: ${entry.types.join(', ')}`}</td>
      <td class="scope">{entry.scope}</td>
      <td class="n">{entry.requests}</td>
      <td class="n">{entry.refused}</td>
      <td class="n">{entry.rejected}</td>
      <td class="n">{`${entry.logins} / ${entry.loginFailures} / ${entry.relogins}`}</td>
    </tr>
  );
}

function noticeClass(gravity: Gravity): string {
  return gravity === 'error' ? 'error' : 'notice';
}

/** The scans list's mark of a scan whose authentication had a problem, linking to its section. */
export function AuthenticationMark({
  scanId,
  auth,
}: {
  scanId: string;
  auth: ScanAuthentication | undefined;
}) {
  if (auth === undefined) return null;
  const problems = scanProblems(auth);
  const gravity = gravityOf(problems);
  if (gravity === undefined) return null;
  return (
    <a
      class={`auth-mark auth-${gravity}`}
      href={`/scans/${scanId}#authentication`}
      title={problems.map((p) => p.text).join('; ')}
    >
      {gravity === 'error' ? 'authentication problem' : 'authentication warning'}
    </a>
  );
}
