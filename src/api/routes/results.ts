/**
 * Findings as integrations read them: one scan, the team's findings or a scan's, one finding, a
 * scan's export. Every read is limited to the key's team: another team's scan or finding is a
 * 404, exactly as one that does not exist.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Severity } from '../../event/index.js';
import { csvExport, jsonExport } from '../../export/index.js';
import { isId, type Scan, type Store, type TeamFindingFilter, type VulnStatus } from '../../store/index.js';
import { ApiError } from '../errors.js';
import { DEFAULT_LIMIT, ERROR_RESPONSES, ErrorBody, ScanItem } from '../schemas.js';
import { scanItem } from '../serialize.js';
import { JsonText, type PageRenderer } from './page.js';
import { resultsPageText, vulnResponse, writtenResultsPage } from './result-items.js';
import {
  ExportQuery,
  ResultsQuery,
  ResultsResponse,
  ScanIdParams,
  TIME_SPANS,
  VulnIdParams,
  VulnResponse,
} from './results-schemas.js';
import { teamOf } from './team.js';

const security = [{ 'X-API-Key': [] }];
const WITH_NOT_FOUND = { ...ERROR_RESPONSES, 404: ErrorBody };

export const resultRoutes: FastifyPluginAsync<{ store: Store; page: PageRenderer }> = async (
  v1,
  { store, page },
) => {
  const noScan = (scanId: string) =>
    new ApiError(404, 'not_found', `no scan ${JSON.stringify(scanId)} in this team`);
  const scanOfTeam = async (scanId: string, teamId: string): Promise<Scan> => {
    const scan = isId(scanId) ? await store.scans.get(scanId, teamId) : undefined;
    if (scan === undefined) throw noScan(scanId);
    return scan;
  };

  v1.get(
    '/scans/:scan_id',
    {
      schema: {
        summary: 'Get a scan',
        description: 'One scan of the team, with the fields of the `/v1/scans` listing.',
        security,
        params: ScanIdParams,
        response: { 200: ScanItem, ...WITH_NOT_FOUND },
      },
    },
    async (request, reply) => {
      const { scan_id } = request.params as ScanIdParams;
      return page(request, reply, async () => {
        const scan = await scanOfTeam(scan_id, teamOf(request));
        return { payload: scanItem(scan), live: scan.status === 'running' };
      });
    },
  );

  v1.get(
    '/scans/results',
    {
      schema: {
        summary: 'Get all results',
        description: 'The team’s findings, newest first, filtered; with totals for paging.',
        security,
        querystring: ResultsQuery,
        response: { 200: ResultsResponse, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const query = request.query as ResultsQuery;
      // A `time` filter moves with the clock, not with the store: kept as briefly as a live page.
      return page(request, reply, async () => ({
        payload: await resultsOf(store, teamOf(request), query, undefined),
        live: query.time !== undefined,
      }));
    },
  );

  v1.get(
    '/scans/result/:scan_id',
    {
      schema: {
        summary: 'Get a scan’s results',
        description:
          'The findings of one of the team’s scans, newest first, filtered; with totals for paging.',
        security,
        params: ScanIdParams,
        querystring: ResultsQuery,
        response: { 200: ResultsResponse, ...WITH_NOT_FOUND },
      },
    },
    async (request, reply) => {
      const { scan_id } = request.params as ScanIdParams;
      const query = request.query as ResultsQuery;
      return page(request, reply, async () => {
        const teamId = teamOf(request);
        // Only its existence: the page is its findings (the scan's row is not read).
        if (!(isId(scan_id) && (await store.scans.ofTeam(scan_id, teamId)))) throw noScan(scan_id);
        return { payload: await resultsOf(store, teamId, query, scan_id), live: query.time !== undefined };
      });
    },
  );

  v1.get(
    '/scans/vuln/:vuln_id',
    {
      schema: {
        summary: 'Get a finding',
        description:
          'One finding of the team with its result event: request, response and curl command as stored, secrets redacted.',
        security,
        params: VulnIdParams,
        response: { 200: VulnResponse, ...WITH_NOT_FOUND },
      },
    },
    async (request, reply) => {
      const { vuln_id } = request.params as VulnIdParams;
      return page(request, reply, async () => {
        const finding = isId(vuln_id) ? await store.findings.get(vuln_id, teamOf(request)) : undefined;
        if (finding === undefined)
          throw new ApiError(404, 'not_found', `no finding ${JSON.stringify(vuln_id)} in this team`);
        return { payload: vulnResponse(finding), live: false };
      });
    },
  );

  v1.get(
    '/scans/:scan_id/export',
    {
      schema: {
        summary: 'Export a scan',
        description:
          'All findings of one of the team’s scans as a file: `type=json` (default), a JSON array of the result events as in nuclei’s JSONL; `type=csv`, a row per finding.',
        security,
        params: ScanIdParams,
        querystring: ExportQuery,
        response: {
          200: {
            description: 'The export, as an attachment.',
            content: {
              'application/json': { schema: { type: 'array', items: { type: 'object' } } },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          ...WITH_NOT_FOUND,
        },
      },
    },
    async (request, reply) => {
      const { scan_id } = request.params as ScanIdParams;
      const type = (request.query as ExportQuery).type ?? 'json';
      const scan = await scanOfTeam(scan_id, teamOf(request));
      const findings = [];
      for await (const finding of store.findings.allOfScan(scan.id)) findings.push(finding);
      const document =
        type === 'json'
          ? jsonExport(findings.map((f) => f.event))
          : csvExport(findings.map((f) => ({ id: f.id, status: f.vulnStatus, event: f.event })));
      reply
        .type(type === 'json' ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="keyhole-scan-${scan.id}.${type}"`);
      // Bytes, so that no serialiser touches the document.
      return Buffer.from(document, 'utf8');
    },
  );
};

async function resultsOf(store: Store, teamId: string, query: ResultsQuery, scanId: string | undefined) {
  const window = { offset: query.offset ?? 0, limit: query.limit ?? DEFAULT_LIMIT };
  const filter: TeamFindingFilter = {
    scanId,
    severities: query.severity?.split(',') as Severity[] | undefined,
    statuses: query.vuln_status?.split(',') as VulnStatus[] | undefined,
    search: query.search,
    since: query.time === undefined ? undefined : Date.now() - TIME_SPANS[query.time],
  };
  const written = await store.findingPages.servedPage(teamId, filter, window);
  if (written !== undefined) return writtenResultsPage(written, window);
  const { findings, total } = await store.findingPages.served(teamId, filter, window);
  return new JsonText(resultsPageText(findings, total, window));
}
