import type { Finding, RetestResult, Scan } from '../../store/index.js';
import { formatTime, Layout, SeverityBadge, type Viewer } from '../layout.js';

export interface FindingView {
  readonly finding: Finding;
  readonly scan: Scan;
  readonly retests: readonly Pick<RetestResult, 'id' | 'resultType' | 'vulnStatus' | 'createdAt'>[];
}

/** A finding as stored (secrets were redacted before it was stored): every field shown as text. */
export function FindingPage(props: { viewer: Viewer; view: FindingView }) {
  const { finding, scan, retests } = props.view;
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
      <table>
        <thead>
          <tr>
            <th>When</th>
            <th>What</th>
            <th>Status after</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td>{formatTime(finding.createdAt)}</td>
            <td>found by the scan</td>
            <td>open</td>
          </tr>
          {retests.map((retest) => (
            <tr>
              <td>{formatTime(retest.createdAt)}</td>
              <td>{`retest: ${retest.resultType.replace('_', ' ')}`}</td>
              <td>{retest.vulnStatus}</td>
            </tr>
          ))}
        </tbody>
      </table>
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
