import type { AssetList } from '../../store/index.js';
import { formatTime, Layout, link, type Viewer } from '../layout.js';

export const ASSETS_PER_PAGE = 25;

export function AssetsPage(props: {
  viewer: Viewer;
  view: { lists: readonly AssetList[]; offset: number; hasNext: boolean };
}) {
  const { lists, offset, hasNext } = props.view;
  return (
    <Layout title="Assets" viewer={props.viewer} section="assets">
      <h1>Asset lists</h1>
      {props.viewer.scope === 'write' ? <UploadForm csrfToken={props.viewer.csrfToken} /> : null}
      {lists.length === 0 ? (
        <p class="notice">
          No asset list yet: <code>keyhole assets upload</code> or httpx with <code>-dashboard</code> adds
          one.
        </p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Targets</th>
              <th>Uploaded</th>
              <th>Asset id</th>
            </tr>
          </thead>
          <tbody>
            {lists.map((list) => (
              <tr>
                <td>{list.name}</td>
                <td>{list.assetCount}</td>
                <td>{formatTime(list.uploadedAt)}</td>
                <td>
                  <code>{list.id}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label="pages">
        {offset > 0 ? (
          <a href={link('/assets', { offset: Math.max(0, offset - ASSETS_PER_PAGE) || undefined })}>
            ← Newer
          </a>
        ) : null}
        {hasNext ? <a href={link('/assets', { offset: offset + ASSETS_PER_PAGE })}>Older →</a> : null}
      </nav>
    </Layout>
  );
}

function UploadForm(props: { csrfToken: string }) {
  return (
    <form class="upload" method="post" action="/assets">
      <input type="hidden" name="csrf" value={props.csrfToken} />
      <label>
        Name <input name="name" maxlength={256} placeholder="dashboard upload" />
      </label>
      <label>
        Targets, one per line (URLs, hosts, host:port, IP addresses; # comments)
        <textarea name="targets" rows={6} required />
      </label>
      <button type="submit">Upload</button>
    </form>
  );
}
