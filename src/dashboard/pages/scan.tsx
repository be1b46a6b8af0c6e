import { SEVERITIES } from '../../event/index.js';
import {
  FINDING_SORTS,
  type FindingFilter,
  type FindingSort,
  type FindingSummary,
  type Scan,
  type ScanAuthentication,
  SEVERITY_RANK,
  VULN_STATUSES,
} from '../../store/index.js';
import { formatTime, Layout, link, SeverityBadge, type Viewer } from '../layout.js';
import { AuthenticationSection } from './authentication.js';

export const FINDINGS_PER_PAGE = 50;

export interface ScanView {
  readonly scan: Scan;
  readonly filter: FindingFilter;
  readonly sort: FindingSort;
  readonly findings: readonly FindingSummary[];
  /** The next page's cursor, as the link carries it. */
  readonly next: string | undefined;
  /** This page is not the first. */
  readonly paged: boolean;
  readonly hosts: readonly string[];
  readonly templateIds: readonly string[];
  /** The server starts scans again (`keyhole serve`): a write key sees the Rescan button. */
  readonly canRescan: boolean;
  /** How authenticated the scan was; undefined when it ran without secret files (or was imported). */
  readonly authentication: ScanAuthentication | undefined;
}

const SORT_LABELS: Record<FindingSort, string> = {
  recorded: 'as recorded',
  severity: 'most severe first',
  host: 'host',
  template: 'template',
};

export function ScanPage(props: { viewer: Viewer; view: ScanView }) {
  const { scan, filter, sort, findings, next } = props.view;
  const query = {
    severity: filter.severity,
    status: filter.status,
    host: filter.host,
    template: filter.templateId,
    sort: sort === 'recorded' ? undefined : sort,
  };
  const live = ['queued', 'starting', 'running'].includes(scan.status);
  return (
    <Layout title={scan.name === '' ? scan.id : scan.name} viewer={props.viewer} section="scans">
      <h1>{scan.name === '' ? scan.id : scan.name}</h1>
      {props.view.canRescan && props.viewer.scope === 'write' && !live ? (
        <form class="rescan" method="post" action={`/scans/${scan.id}/rescan`}>
          <input type="hidden" name="csrf" value={props.viewer.csrfToken} />
          <button type="submit">Rescan</button>
        </form>
      ) : null}
      <dl class="facts" data-live-scan={live ? scan.id : undefined}>
        <dt>Status</dt>
        <dd>
          <span class="status" data-status>
            {scan.status}
          </span>{' '}
          <progress max={100} value={scan.progress} /> <span data-percent>{`${scan.progress}%`}</span>
        </dd>
        {scan.failureReason === '' ? null : (
          <>
            <dt>Failure</dt>
            <dd>{scan.failureReason}</dd>
          </>
        )}
        <dt>Scan id</dt>
        <dd>
          <code>{scan.id}</code>
        </dd>
        <dt>Targets × templates</dt>
        <dd>{`${scan.totalTarget} × ${scan.totalTemplate}`}</dd>
        <dt>Created</dt>
        <dd>{formatTime(scan.createdAt)}</dd>
        <dt>Completed</dt>
        <dd>{formatTime(scan.completedAt)}</dd>
      </dl>
      <p>
        <a href={link('/compare', { head: scan.id })}>Compare with another scan</a>
      </p>
      {props.view.authentication === undefined ? null : (
        <AuthenticationSection auth={props.view.authentication} live={live} />
      )}
      <h2>Findings by severity</h2>
      <SeverityChart counts={scan.severity} />
      <h2 id="findings">Findings</h2>
      <FindingFilters view={props.view} />
      <FindingTable findings={findings} />
      <nav class="pager" aria-label="pages">
        {props.view.paged ? <a href={link(`/scans/${scan.id}`, query)}>⇤ First page</a> : null}
        {next === undefined ? null : (
          <a href={link(`/scans/${scan.id}`, { ...query, after: next })}>Next →</a>
        )}
      </nav>
    </Layout>
  );
}

/** Horizontal bars, one per severity, drawn in SVG (no inline style, which the CSP forbids). */
export function SeverityChart({ counts }: { counts: Scan['severity'] }) {
  const largest = Math.max(1, ...SEVERITIES.map((s) => counts[s]));
  const row = 26;
  return (
    <svg
      class="chart"
      viewBox={`0 0 520 ${SEVERITY_RANK.length * row + 8}`}
      role="img"
      aria-label={SEVERITY_RANK.map((s) => `${s} ${counts[s]}`).join(', ')}
    >
      {SEVERITY_RANK.map((severity, i) => (
        <g data-severity={severity}>
          <text x={8} y={i * row + 22}>
            {severity}
          </text>
          <rect
            class={severity}
            x={80}
            y={i * row + 8}
            height={18}
            width={(counts[severity] / largest) * 380}
          />
          <text x={80 + (counts[severity] / largest) * 380 + 6} y={i * row + 22}>
            {String(counts[severity])}
          </text>
        </g>
      ))}
    </svg>
  );
}

function FindingFilters({ view }: { view: ScanView }) {
  const { filter, sort, scan } = view;
  return (
    <form class="filters" method="get" action={`/scans/${scan.id}`}>
      <label>
        Severity
        <select name="severity">
          <option value="">any</option>
          {SEVERITY_RANK.map((s) => (
            <option value={s} selected={s === filter.severity}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        Status
        <select name="status">
          <option value="">any</option>
          {VULN_STATUSES.map((s) => (
            <option value={s} selected={s === filter.status}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        Host
        <input name="host" list="scan-hosts" value={filter.host ?? ''} maxlength={2048} />
        <datalist id="scan-hosts">
          {view.hosts.map((host) => (
            <option value={host} />
          ))}
        </datalist>
      </label>
      <label>
        Template
        <input name="template" list="scan-templates" value={filter.templateId ?? ''} maxlength={512} />
        <datalist id="scan-templates">
          {view.templateIds.map((id) => (
            <option value={id} />
          ))}
        </datalist>
      </label>
      <label>
        Sort
        <select name="sort">
          {FINDING_SORTS.map((s) => (
            <option value={s} selected={s === sort}>
              {SORT_LABELS[s]}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Apply</button>
      <a href={`/scans/${scan.id}#findings`}>Clear</a>
    </form>
  );
}

export function FindingTable({ findings }: { findings: readonly FindingSummary[] }) {
  if (findings.length === 0) return <p class="notice">No finding matches.</p>;
  return (
    <table class="findings">
      <thead>
        <tr>
          <th>Severity</th>
          <th>Finding</th>
          <th>Host</th>
          <th>Matched at</th>
          <th>Status</th>
        </tr>
      </thead>
      <tbody>
        {findings.map((f) => (
          <tr data-finding={f.id}>
            <td>
              <SeverityBadge severity={f.severity} />
            </td>
            <td>
              <a href={`/findings/${f.id}`}>{f.name}</a>
              <br />
              <span class="muted">{f.templateId}</span>
            </td>
            <td class="host" title={f.target}>
              {f.target}
            </td>
            <td>{f.matchedAt}</td>
            <td>
              <span class="status">{f.vulnStatus}</span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
