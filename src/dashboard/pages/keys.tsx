import { type ApiKeyInfo, KEY_SCOPES } from '../../store/index.js';
import { formatTime, Layout, type Viewer } from '../layout.js';

export interface KeysView {
  readonly keys: readonly ApiKeyInfo[];
  /** The key of this session, which revoking signs out. */
  readonly currentKeyId: string;
  /** A key just created: its secret, shown on this page only. */
  readonly created?: { readonly key: ApiKeyInfo; readonly secret: string } | undefined;
}

/** The team's API keys: created here by a write key, revoked here, the secret shown once. */
export function KeysPage(props: { viewer: Viewer; view: KeysView }) {
  const { keys, currentKeyId, created } = props.view;
  const csrf = props.viewer.csrfToken;
  return (
    <Layout title="API keys" viewer={props.viewer} section="keys">
      <h1>API keys</h1>
      {created === undefined ? null : (
        <div class="notice" role="status">
          <p>
            {`Created the ${created.key.scope} key “${created.key.name}”. Store it now: it is not shown again.`}
          </p>
          <p>
            <code class="new-key">{created.secret}</code>
          </p>
        </div>
      )}
      <form class="filters" method="post" action="/keys">
        <input type="hidden" name="csrf" value={csrf} />
        <label>
          Name
          <input name="name" required maxLength={100} />
        </label>
        <label>
          Scope
          <select name="scope">
            {KEY_SCOPES.map((scope) => (
              <option value={scope}>{scope}</option>
            ))}
          </select>
        </label>
        <button type="submit">Create key</button>
      </form>
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Prefix</th>
            <th>Scope</th>
            <th>Created</th>
            <th>Revoked</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr data-key={key.id}>
              <td>
                {key.name}
                {key.id === currentKeyId ? <span class="muted"> (this session)</span> : null}
              </td>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{key.scope}</td>
              <td>{formatTime(key.createdAt)}</td>
              <td>
                {key.revokedAt !== null ? (
                  formatTime(key.revokedAt)
                ) : (
                  <form method="post" action={`/keys/${key.id}/revoke`}>
                    <input type="hidden" name="csrf" value={csrf} />
                    <button type="submit">Revoke</button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>
  );
}
