import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import { isId, type Scan, type StatusChange, type Store } from '../store/index.js';
import { link, renderPage, type Viewer } from './layout.js';
import { ASSETS_PER_PAGE, AssetsPage } from './pages/assets.js';
import { COMPARED_PER_PAGE, ComparePage } from './pages/compare.js';
import { FindingPage, type Triaged } from './pages/finding.js';
import { FINDINGS_PER_PAGE, ScanPage } from './pages/scan.js';
import { SCANS_PER_PAGE, ScansPage } from './pages/scans.js';
import {
  comparisonOf,
  cursorOf,
  encodeCursor,
  idOf,
  offsetOf,
  PageError,
  type Query,
  scanStatusOf,
  severityOf,
  sortOf,
  text,
  vulnStatusOf,
} from './params.js';

/** How many targets and templates the filters suggest. */
const SUGGESTIONS = 200;
/** How many scans the progress poll answers for at once. */
const POLLED_SCANS = 50;

/** The read-only pages: every query is scoped to the signed-in key's team. */
export function registerReadPages(app: FastifyInstance, store: Store, canRescan: boolean): void {
  const page = (
    path: string,
    render: (viewer: Viewer, teamId: string, request: FastifyRequest) => Promise<ComponentChildren>,
  ) =>
    app.get(path, async (request, reply) => {
      const signedIn = request.dashboardSession;
      if (signedIn === undefined) return reply.redirect(link('/sign-in', { next: request.url }), 303);
      const html = renderPage(await render(signedIn.viewer, signedIn.session.principal.teamId, request));
      return sendHtml(reply, html);
    });

  page('/scans', async (viewer, teamId, request) => {
    const query = request.query as Query;
    const search = text(query, 'search', 200) ?? '';
    const status = scanStatusOf(query);
    const offset = offsetOf(query);
    const listed = await store.scans.list(teamId, {
      offset,
      limit: SCANS_PER_PAGE + 1,
      search,
      ...(status === undefined ? {} : { statuses: [status] }),
    });
    const scans = listed.slice(0, SCANS_PER_PAGE);
    const authentication = await store.authentication.of(scans.map((scan) => scan.id));
    return (
      <ScansPage
        viewer={viewer}
        view={{
          scans,
          authentication,
          search,
          status,
          offset,
          hasNext: listed.length > SCANS_PER_PAGE,
        }}
      />
    );
  });

  app.get('/scans/progress.json', async (request, reply) => {
    const signedIn = request.dashboardSession;
    reply.header('cache-control', 'no-store');
    if (signedIn === undefined) return reply.status(401).send({ message: 'signed out; reload the page' });
    const ids = (text(request.query as Query, 'ids', 21 * POLLED_SCANS) ?? '').split(',').filter(isId);
    const scans = await Promise.all(
      ids.slice(0, POLLED_SCANS).map((id) => store.scans.get(id, signedIn.session.principal.teamId)),
    );
    return {
      scans: scans
        .filter((scan): scan is Scan => scan !== undefined)
        .map((scan) => ({ id: scan.id, status: scan.status, progress: scan.progress })),
    };
  });

  page('/scans/:scanId', async (viewer, teamId, request) => {
    const query = request.query as Query;
    const scan = await teamScan(store, teamId, (request.params as { scanId: string }).scanId, query);
    const filter = {
      severity: severityOf(query),
      status: vulnStatusOf(query),
      host: text(query, 'host'),
      templateId: text(query, 'template', 512),
    };
    const sort = sortOf(query);
    const after = cursorOf(query);
    const [found, hosts, templateIds, authentication] = await Promise.all([
      store.browse.page(scan.id, { filter, sort, after, limit: FINDINGS_PER_PAGE }),
      store.scans.targets(scan.id, { first: 0, count: SUGGESTIONS }),
      store.browse.templateIds(scan.id, SUGGESTIONS),
      store.authentication.of([scan.id]),
    ]);
    return (
      <ScanPage
        viewer={viewer}
        view={{
          scan,
          filter,
          sort,
          findings: found.findings,
          next: found.next === undefined ? undefined : encodeCursor(found.next),
          paged: after !== undefined,
          hosts,
          templateIds,
          canRescan,
          authentication: authentication.get(scan.id),
        }}
      />
    );
  });

  page('/findings/:vulnId', async (viewer, teamId, request) => {
    const vulnId = (request.params as { vulnId: string }).vulnId;
    const finding = isId(vulnId) ? await store.findings.get(vulnId, teamId) : undefined;
    if (finding === undefined) throw new PageError(404, `no finding of your team has the id ${vulnId}`);
    const [scan, retests, changes, requests] = await Promise.all([
      store.scans.get(finding.scanId, teamId),
      store.retests.ofFinding(finding.id),
      store.triage.history(finding.id, teamId),
      store.retestRequests.ofFinding(finding.id, teamId, 5),
    ]);
    if (scan === undefined) throw new PageError(404, `no finding of your team has the id ${vulnId}`);
    const triaged = await withAuthors(store, teamId, changes ?? []);
    return <FindingPage viewer={viewer} view={{ finding, scan, retests, triaged, requests }} />;
  });

  page('/assets', async (viewer, teamId, request) => {
    const offset = offsetOf(request.query as Query);
    const lists = await store.assets.list(teamId, { offset, limit: ASSETS_PER_PAGE + 1 });
    return (
      <AssetsPage
        viewer={viewer}
        view={{ lists: lists.slice(0, ASSETS_PER_PAGE), offset, hasNext: lists.length > ASSETS_PER_PAGE }}
      />
    );
  });

  page('/compare', async (viewer, teamId, request) => {
    const query = request.query as Query;
    const [baseId, headId] = [idOf(query, 'base'), idOf(query, 'head')];
    const kind = comparisonOf(query);
    const after = idOf(query, 'after');
    const [choices, base, head] = await Promise.all([
      store.scans.list(teamId, { offset: 0, limit: 100 }),
      baseId === undefined ? undefined : teamScan(store, teamId, baseId, {}),
      headId === undefined ? undefined : teamScan(store, teamId, headId, {}),
    ]);
    const compared =
      base === undefined || head === undefined
        ? undefined
        : await Promise.all([
            store.browse.comparisonCounts(base.id, head.id),
            store.browse.compare(base.id, head.id, kind, { after, limit: COMPARED_PER_PAGE }),
          ]);
    return (
      <ComparePage
        viewer={viewer}
        view={{
          choices,
          base,
          head,
          kind,
          counts: compared?.[0],
          findings: compared?.[1].findings ?? [],
          next: compared?.[1].next,
          paged: after !== undefined,
        }}
      />
    );
  });
}

/**
 * The scan, when it is the team's. Another team's scan is "not found", exactly as an unknown id,
 * so a key learns nothing of other teams; `team_id` (in the links nuclei prints) must be the key's.
 */
async function teamScan(store: Store, teamId: string, scanId: string, query: Query): Promise<Scan> {
  const named = text(query, 'team_id', 64);
  const scan =
    isId(scanId) && (named === undefined || named === teamId)
      ? await store.scans.get(scanId, teamId)
      : undefined;
  if (scan === undefined) throw new PageError(404, `no scan of your team has the id ${scanId}`);
  return scan;
}

/** Each change with who made it as a person knows them: the key's name and shown prefix. */
async function withAuthors(
  store: Store,
  teamId: string,
  changes: readonly StatusChange[],
): Promise<Triaged[]> {
  const names = new Map<string, string>();
  for (const by of new Set(changes.map((change) => change.changedBy))) {
    const keyId = by.startsWith('key:') ? by.slice(4) : undefined;
    const key = keyId === undefined ? undefined : await store.keys.get(keyId);
    names.set(
      by,
      key !== undefined && key.teamId === teamId
        ? `key ${key.name} (${key.prefix}…)`
        : by === 'cli'
          ? 'keyhole findings set-status'
          : 'a key no longer known',
    );
  }
  return changes.map((change) => ({ ...change, by: names.get(change.changedBy) ?? change.changedBy }));
}

function sendHtml(reply: FastifyReply, html: string) {
  return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
}
