import {
  type Finding,
  type RetestRequest,
  type RetestResult,
  type Scan,
  type StatusChange,
  VULN_STATUSES,
} from '../../store/index.js';
import { formatTime, Layout, SeverityBadge, type Viewer } from '../layout.js';

/** A status set by hand, with who set it as the page names them. */
export interface Triaged extends StatusChange {
  readonly by: string;
}

export interface FindingView {
  readonly finding: Finding;
  readonly scan: Scan;
  readonly retests: readonly Pick<RetestResult, 'id' | 'resultType' | 'vulnStatus' | 'createdAt'>[];
  readonly triaged: readonly Triaged[];
  /** The latest retests asked for, newest first: those not done yet are shown as waiting or running. */
  readonly requests: readonly RetestRequest[];
}

interface HistoryRow {
  readonly at: number;
  readonly what: string;
  readonly who: string;
  readonly status: string;
}

/** A finding as stored (secrets were redacted before it was stored): every field shown as text. */
export function FindingPage(props: { viewer: Viewer; view: FindingView }) {
  const { finding, scan, retests, triaged, requests } = props.view;
  const event = finding.event;
  const name = event.info?.name ?? finding.templateId;
  const extracted = event['extracted-results'] ?? [];
  return (
    <Layout title={name} viewer={props.viewer} section="scans">
      <p>
        <a href={`/scans/${scan.id}`}>← {scan.name === '' ? scan.id : scan.name}</a>
      </p>
      <h1>
        <SeverityBadge severity={finding.severity} /> {name}
      </h1>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class="status">{finding.vulnStatus}</span>
          {props.viewer.scope === 'write' ? (
            <TriageForm finding={finding} csrfToken={props.viewer.csrfToken} />
          ) : null}
        </dd>
        <dt>Retest</dt>
        <dd>
          <RetestState requests={requests} />
          {props.viewer.scope === 'write' ? (
            <RetestForm finding={finding} csrfToken={props.viewer.csrfToken} />
          ) : null}
        </dd>
        <dt>Template</dt>
        <dd>
          <code>{finding.templateId}</code>
          {finding.templatePath === '' ? null : <span class="muted"> {finding.templatePath}</span>}
        </dd>
        <dt>Host</dt>
        <dd>{finding.target}</dd>
        <dt>Matched at</dt>
        <dd>{event['matched-at'] ?? '—'}</dd>
        {event.ip === undefined ? null : (
          <>
            <dt>IP</dt>
            <dd>{event.ip}</dd>
          </>
        )}
        <dt>Matcher</dt>
        <dd>{event['matcher-name'] ?? '—'}</dd>
        <dt>Extractor</dt>
        <dd>{event['extractor-name'] ?? '—'}</dd>
        <dt>Vuln id</dt>
        <dd>
          <code>{finding.id}</code>
        </dd>
        <dt>Vuln hash</dt>
        <dd>
          <code>{finding.vulnHash}</code>
        </dd>
        <dt>Found</dt>
        <dd>{formatTime(finding.createdAt)}</dd>
        {event.info?.description === undefined ? null : (
          <>
            <dt>Description</dt>
            <dd>{event.info.description}</dd>
          </>
        )}
      </dl>
      <h2>Extracted values</h2>
      {extracted.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ul class="extracted">
          {extracted.map((value) => (
            <li>
              <code>{value}</code>
            </li>
          ))}
        </ul>
      )}
      <Block title="curl command" text={event['curl-command']} />
      <Block title="Request" text={event.request} />
      <Block
        title={event['response-truncated'] === true ? 'Response (cut at the body limit)' : 'Response'}
        text={event.response}
      />
      <h2>Status history</h2>
      <StatusHistory rows={historyOf(finding, retests, triaged)} />
      {finding.updatedAt > finding.createdAt ? (
        <p class="muted">{`Status last changed ${formatTime(finding.updatedAt)}.`}</p>
      ) : null}
    </Layout>
  );
}

function Block(props: { title: string; text: string | undefined }) {
  if (props.text === undefined || props.text === '') return null;
  return (
    <>
      <h2>{props.title}</h2>
      <pre>{props.text}</pre>
    </>
  );
}

/** Where the latest retest asked for is, when it has not ended; its result is in the history. */
function RetestState(props: { requests: readonly RetestRequest[] }) {
  const [latest] = props.requests;
  if (latest === undefined) return <span class="muted">never asked for </span>;
  if (latest.state === 'queued')
    return <span class="retest-state">queued {formatTime(latest.createdAt)} </span>;
  if (latest.state === 'running') return <span class="retest-state">running </span>;
  if (latest.state === 'failed')
    return <span class="retest-state">{`failed: ${latest.error ?? 'no reason given'} `}</span>;
  return <span class="muted">{`last asked for ${formatTime(latest.createdAt)} `}</span>;
}

function RetestForm(props: { finding: Finding; csrfToken: string }) {
  return (
    <form class="retest" method="post" action={`/findings/${props.finding.id}/retest`}>
      <input type="hidden" name="csrf" value={props.csrfToken} />
      <button type="submit">Retest</button>
    </form>
  );
}

function TriageForm(props: { finding: Finding; csrfToken: string }) {
  return (
    <form class="triage" method="post" action={`/findings/${props.finding.id}/status`}>
      <input type="hidden" name="csrf" value={props.csrfToken} />
      <label>
        Set status{' '}
        <select name="status">
          {VULN_STATUSES.map((status) => (
            <option value={status} selected={status === props.finding.vulnStatus}>
              {status}
            </option>
          ))}
        </select>
      </label>{' '}
      <button type="submit">Save</button>
    </form>
  );
}

/** The finding's life, oldest first: found, each retest, each status set by hand. */
function historyOf(
  finding: Finding,
  retests: FindingView['retests'],
  triaged: readonly Triaged[],
): HistoryRow[] {
  const rows: HistoryRow[] = [
    { at: finding.createdAt, what: 'found by the scan', who: 'scan', status: 'open' },
    ...retests.map((retest) => ({
      at: retest.createdAt,
      what: `retest: ${retest.resultType.replace('_', ' ')}`,
      who: 'retest',
      status: retest.vulnStatus,
    })),
    ...triaged.map((change) => ({
      at: change.changedAt,
      what: `triage: ${change.previousStatus} → ${change.status}`,
      who: change.by,
      status: change.status,
    })),
  ];
  // A stable sort keeps same-time rows in the order above.
  return rows.sort((a, b) => a.at - b.at);
}

function StatusHistory(props: { rows: readonly HistoryRow[] }) {
  return (
    <table class="history">
      <thead>
        <tr>
          <th>When</th>
          <th>What</th>
          <th>Who</th>
          <th>Status after</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr>
            <td>{formatTime(row.at)}</td>
            <td>{row.what}</td>
            <td>{row.who}</td>
            <td>{row.status}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
