import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApi } from '../../api/index.js';
import type { ResultEvent } from '../../event/index.js';
import { type AuthenticationFigures, openStore, type Scan, type Store } from '../../store/index.js';
import type { TestDatabase } from '../../store/testing/databases.js';
import { dashboard } from '../plugin.js';
import type { Rescan } from '../rescan.js';
import type { Sessions } from '../sessions.js';

/** The API with the dashboard, as `keyhole serve` builds it, on 127.0.0.1 (ephemeral port). */
export interface ServedDashboard {
  readonly url: string;
  readonly store: Store;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

export async function serveDashboard(
  database: TestDatabase,
  options: { sessions?: Sessions; logger?: Logger; rescan?: (store: Store) => Rescan } = {},
): Promise<ServedDashboard> {
  const store = await openStore(database.location);
  try {
    const app = await buildApi({
      store,
      rateLimit: 0,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    await app.register(dashboard, {
      store,
      ...(options.sessions ? { sessions: options.sessions } : {}),
      ...(options.rescan ? { rescan: options.rescan(store) } : {}),
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    return {
      url: `http://127.0.0.1:${address.port}`,
      store,
      app,
      async close() {
        await app.close();
        await store.close();
        await database.drop();
      },
    };
  } catch (error) {
    await store.close();
    await database.drop();
    throw error;
  }
}

/** A matched result event, as a scan or an import records it. */
export function resultEvent(n: number, overrides: Partial<ResultEvent> = {}): ResultEvent {
  return {
    'template-id': 'git-config',
    info: {
      name: 'Git config exposed',
      author: ['keyhole'],
      tags: null,
      severity: 'medium',
      classification: { 'cve-id': null, 'cwe-id': ['cwe-200'] },
    },
    type: 'http',
    host: 'app.test',
    'matched-at': `https://app.test/${n}/.git/config`,
    request: `GET /${n}/.git/config HTTP/1.1\r\nHost: app.test\r\nAuthorization: [REDACTED]\r\n\r\n`,
    response: 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n[core]\n\trepositoryformatversion = 0\n',
    'curl-command': `curl -X 'GET' 'https://app.test/${n}/.git/config'`,
    'matcher-name': 'git-core',
    timestamp: '2026-03-14T10:21:36.884Z',
    'matcher-status': true,
    ...overrides,
  };
}

/** An uploaded scan holding these events, as `keyhole import` leaves one. */
export async function uploadedScan(
  store: Store,
  teamId: string,
  name: string,
  events: readonly ResultEvent[],
): Promise<Scan> {
  const scan = await store.scans.create({ teamId, name });
  await store.scans.addTargets(scan.id, [...new Set(events.map((e) => e.host ?? ''))]);
  await store.scans.addTemplates(
    scan.id,
    [...new Set(events.map((e) => e['template-id']))].map((id) => ({ id })),
  );
  for (let i = 0; i < events.length; i += 200)
    await store.findings.addMany(scan.id, events.slice(i, i + 200));
  await store.scans.completeImport(scan.id);
  return store.scans.require(scan.id);
}

/** A scan that ran with secret files and ended (`finished`), these its authentication figures. */
export async function authenticatedScan(
  store: Store,
  teamId: string,
  name: string,
  figures: AuthenticationFigures,
): Promise<Scan> {
  const scan = await store.scans.create({ teamId, name, targets: ['https://app.test'] });
  await store.scans.markRunning(scan.id);
  await store.authentication.add(scan.id, figures);
  await store.scans.finish(scan.id);
  return store.scans.require(scan.id);
}

/** A secret-file entry's figures, all 0 but those given. */
export function entryFigures(
  label: string,
  counts: Partial<AuthenticationFigures['entries'][number]> = {},
): AuthenticationFigures['entries'][number] {
  return {
    fingerprint: `fp-${label}`,
    label,
    kind: 'static',
    types: ['header'],
    scope: 'app.test',
    requests: 0,
    refused: 0,
    rejected: 0,
    logins: 0,
    loginFailures: 0,
    relogins: 0,
    ...counts,
  };
}

/** A browser-less client: keeps the cookies the server sets, follows no redirect. */
export class Browser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly base: string) {}

  async get(path: string): Promise<Answer> {
    return this.send(path, { method: 'GET' });
  }

  async post(
    path: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    return this.send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
  }

  /** Signs in with the key through the form, as a person would. */
  async signIn(key: string): Promise<Answer> {
    const form = await this.get('/sign-in');
    return this.post('/sign-in', { csrf: hiddenField(form.body, 'csrf'), key });
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  private async send(path: string, init: RequestInit): Promise<Answer> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(this.base + path, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie === '' ? {} : { cookie }) },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const value = pair.slice(at + 1);
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(pair.slice(0, at));
      else this.cookies.set(pair.slice(0, at), value);
    }
    return { status: response.status, headers: response.headers, body: await response.text() };
  }
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** The value of a page's hidden field. */
export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html);
  if (match === null) throw new Error(`the page has no hidden field ${name}`);
  return match[1] ?? '';
}
