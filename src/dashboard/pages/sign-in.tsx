import { Layout } from '../layout.js';

/** The sign-in form: the API key goes in a POST body, never in a URL. */
export function SignInPage(props: { formToken: string; next: string; error?: string | undefined }) {
  return (
    <Layout title="Sign in">
      <section class="signin">
        <h1>Sign in to keyhole</h1>
        <p class="muted">
          Use an API key (<code>keyhole keys create</code> makes one). You see the scans of its team.
        </p>
        {props.error === undefined ? null : (
          <p class="error" role="alert">
            {props.error}
          </p>
        )}
        <form method="post" action="/sign-in">
          <input type="hidden" name="csrf" value={props.formToken} />
          <input type="hidden" name="next" value={props.next} />
          <label>
            API key
            <br />
            <input
              type="password"
              name="key"
              autocomplete="off"
              spellcheck={false}
              required
              placeholder="kh_…"
              size={50}
            />
          </label>
          <button type="submit">Sign in</button>
        </form>
      </section>
    </Layout>
  );
}
