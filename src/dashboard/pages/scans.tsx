import { SCAN_STATUSES, type Scan, type ScanAuthentication, type ScanStatus } from '../../store/index.js';
import { formatTime, Layout, link, type Viewer } from '../layout.js';
import { AuthenticationMark } from './authentication.js';

export const SCANS_PER_PAGE = 25;
const LIVE: readonly ScanStatus[] = ['queued', 'starting', 'running'];

export interface ScansView {
  readonly scans: readonly Scan[];
  /** The listed scans' authentication figures (those run with secret files). */
  readonly authentication: ReadonlyMap<string, ScanAuthentication>;
  readonly search: string;
  readonly status: ScanStatus | undefined;
  readonly offset: number;
  readonly hasNext: boolean;
}

export function ScansPage(props: { viewer: Viewer; view: ScansView }) {
  const { scans, search, status, offset, hasNext } = props.view;
  const page = (to: number) => link('/scans', { search, status, offset: to === 0 ? undefined : to });
  return (
    <Layout title="Scans" viewer={props.viewer} section="scans">
      <h1>Scans</h1>
      <form class="filters" method="get" action="/scans">
        <label>
          Name contains
          <input type="search" name="search" value={search} maxlength={200} />
        </label>
        <label>
          Status
          <select name="status">
            <option value="">any</option>
            {SCAN_STATUSES.map((s) => (
              <option value={s} selected={s === status}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Filter</button>
      </form>
      {scans.length === 0 ? (
        <p class="notice">No scan matches.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Status</th>
              <th>Progress</th>
              <th>Findings</th>
              <th>Targets</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {scans.map((scan) => (
              <ScanRow scan={scan} auth={props.view.authentication.get(scan.id)} />
            ))}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label="pages">
        {offset > 0 ? <a href={page(Math.max(0, offset - SCANS_PER_PAGE))}>← Newer</a> : null}
        {hasNext ? <a href={page(offset + SCANS_PER_PAGE)}>Older →</a> : null}
      </nav>
    </Layout>
  );
}

function ScanRow({ scan, auth }: { scan: Scan; auth: ScanAuthentication | undefined }) {
  const total = Object.values(scan.severity).reduce((sum, n) => sum + n, 0);
  return (
    <tr data-live-scan={LIVE.includes(scan.status) ? scan.id : undefined}>
      <td>
        <a href={`/scans/${scan.id}`}>{scan.name === '' ? scan.id : scan.name}</a>
      </td>
      <td>
        <span class="status" data-status>
          {scan.status}
        </span>{' '}
        <AuthenticationMark scanId={scan.id} auth={auth} />
      </td>
      <td>
        <progress max={100} value={scan.progress} /> <span data-percent>{`${scan.progress}%`}</span>
      </td>
      <td>{total}</td>
      <td>{scan.totalTarget}</td>
      <td>{formatTime(scan.createdAt)}</td>
    </tr>
  );
}
