import { Layout, type Viewer } from '../layout.js';

export function ErrorPage(props: { status: number; message: string; viewer?: Viewer | undefined }) {
  return (
    <Layout title={`Error ${props.status}`} viewer={props.viewer}>
      <h1>{props.status === 404 ? 'Not found' : 'Cannot show this page'}</h1>
      <p class="error" role="alert">
        {props.message}
      </p>
      <p>
        <a href="/scans">Back to the scans</a>
      </p>
    </Layout>
  );
}
