import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { KeyScope } from '../store/index.js';

export type Section = 'scans' | 'assets' | 'compare' | 'keys';

export interface Viewer {
  readonly teamName: string;
  readonly csrfToken: string;
  /** The signed-in key's scope: only `write` is shown the forms that change anything. */
  readonly scope: KeyScope;
}

/** A whole page as HTML: every value reaches the markup through Preact, which escapes it as text. */
export function renderPage(page: ComponentChildren): string {
  return `<!doctype html>${renderToString(page as VNode)}`;
}

export function Layout(props: {
  title: string;
  viewer?: Viewer | undefined;
  section?: Section | undefined;
  children: ComponentChildren;
}) {
  const { viewer, section } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · keyhole`}</title>
        {/* No icon: spares the browser a request for /favicon.ico, which is the API's 404. */}
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/static/dashboard.css" />
        <script src="/static/dashboard.js" defer />
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/scans">
            keyhole
          </a>
          {viewer === undefined ? null : (
            <>
              <nav>
                <NavLink href="/scans" current={section === 'scans'}>
                  Scans
                </NavLink>
                <NavLink href="/assets" current={section === 'assets'}>
                  Assets
                </NavLink>
                <NavLink href="/compare" current={section === 'compare'}>
                  Compare
                </NavLink>
                {viewer.scope === 'write' ? (
                  <NavLink href="/keys" current={section === 'keys'}>
                    Keys
                  </NavLink>
                ) : null}
              </nav>
              <span class="team">team {viewer.teamName}</span>
              <form method="post" action="/sign-out">
                <input type="hidden" name="csrf" value={viewer.csrfToken} />
                <button class="quiet" type="submit">
                  Sign out
                </button>
              </form>
            </>
          )}
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

function NavLink(props: { href: string; current: boolean; children: ComponentChildren }) {
  return (
    <a href={props.href} aria-current={props.current ? 'page' : undefined}>
      {props.children}
    </a>
  );
}

/** A link to `path` with these query parameters (empty ones left out). */
export function link(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

export function formatTime(epochMs: number | null): string {
  if (epochMs === null) return '—';
  return new Date(epochMs).toISOString().replace('T', ' ').slice(0, 19);
}

export function SeverityBadge(props: { severity: string }) {
  return <span class={`badge sev-${props.severity}`}>{props.severity}</span>;
}
