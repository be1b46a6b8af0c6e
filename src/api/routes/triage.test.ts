import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent } from '../../event/index.js';
import { newId, type Store } from '../../store/index.js';
import { ENGINES } from '../../store/testing/databases.js';
import { send } from '../testing/send.js';
import { type RunningApi, type ServedDatabase, serveDatabase } from '../testing/serve.js';

function event(n: number): ResultEvent {
  return {
    'template-id': 'git-config',
    info: { name: 'Git Config', author: ['pdteam'], tags: null, severity: 'medium' },
    type: 'http',
    host: 'app.test',
    'matched-at': `https://app.test/${n}/.git/config`,
    timestamp: '2024-03-14T10:21:36.884120935-04:00',
    'matcher-status': true,
  };
}

describe.each(ENGINES)('triage and deletion on $engine', ({ create }) => {
  let served: ServedDatabase | undefined;
  let store: Store;
  let api: RunningApi;
  let teamId: string;
  let otherTeamId: string;
  let writeKey: string;
  let writeKeyId: string;
  let readKey: string;
  let otherTeamKey: string;
  let counter = 0;

  beforeAll(async () => {
    served = await serveDatabase(await create());
    ({ store, api } = served);
    teamId = (await store.teams.ensure('default')).id;
    const writer = await store.keys.create({ teamId, name: 'triager', scope: 'write' });
    writeKey = writer.secret;
    writeKeyId = writer.key.id;
    readKey = (await store.keys.create({ teamId, name: 'reader' })).secret;
    otherTeamId = (await store.teams.ensure('partners')).id;
    otherTeamKey = (await store.keys.create({ teamId: otherTeamId, name: 'partner', scope: 'write' })).secret;
  });
  afterAll(() => served?.close());

  /** An uploaded scan of `team` with `n` findings; their vuln ids. */
  async function scanWithFindings(
    team: string,
    n: number,
    name = 'triage',
  ): Promise<{ scanId: string; ids: string[] }> {
    const scan = await store.scans.create({ teamId: team, name, status: 'starting' });
    await store.findings.addMany(
      scan.id,
      Array.from({ length: n }, () => event(counter++)),
    );
    await store.scans.completeImport(scan.id);
    const ids = (await store.findings.ofScan(scan.id, { limit: 1000 })).map((f) => f.id);
    return { scanId: scan.id, ids };
  }

  const triage = (body: unknown, key = writeKey) =>
    send(
      api.url,
      'PATCH',
      '/v1/scans/vulns',
      { 'X-Api-Key': key, 'Content-Type': 'application/json' },
      JSON.stringify(body),
    );
  const remove = (scanId: string, key = writeKey) =>
    send(api.url, 'DELETE', `/v1/scans/${scanId}`, { 'X-Api-Key': key });

  it('sets the status of several findings and keeps who changed it and when in their history', async () => {
    const { ids } = await scanWithFindings(teamId, 3);
    const before = Date.now();
    const answered = await triage({ vuln_status: 'false_positive', vuln_ids: [ids[0], ids[1], ids[0]] });
    expect(answered).toMatchObject({ status: 200, body: { updated: 2, unchanged: 0 } });
    expect((await store.findings.get(ids[0] ?? '', teamId))?.vulnStatus).toBe('false_positive');
    expect((await store.findings.get(ids[2] ?? '', teamId))?.vulnStatus).toBe('open');
    const again = await triage({ vuln_status: 'triaged', vuln_ids: [ids[0]] });
    expect(again.body).toMatchObject({ updated: 1, unchanged: 0 });
    const same = await triage({ vuln_status: 'triaged', vuln_ids: [ids[0]] });
    expect(same.body).toMatchObject({ updated: 0, unchanged: 1 });
    const history = await store.triage.history(ids[0] ?? '', teamId);
    expect(history?.map((h) => [h.previousStatus, h.status, h.changedBy])).toEqual([
      ['open', 'false_positive', `key:${writeKeyId}`],
      ['false_positive', 'triaged', `key:${writeKeyId}`],
    ]);
    expect(history?.[0]?.changedAt).toBeGreaterThanOrEqual(before);
    expect(await store.triage.history(ids[0] ?? '', otherTeamId)).toBeUndefined();
  });

  it("changes nothing when any id is not the team's, whatever the mix (property)", async () => {
    const ours = await scanWithFindings(teamId, 4, 'ours');
    const theirs = await scanWithFindings(otherTeamId, 4, 'theirs');
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(ours.ids),
        fc.subarray(theirs.ids, { minLength: 1 }),
        fc.boolean(),
        async (mine, foreign, unknown) => {
          const ids = [...mine, ...foreign, ...(unknown ? [newId()] : [])];
          const answered = await triage({ vuln_status: 'accepted_risk', vuln_ids: ids });
          expect(answered.status).toBe(404);
          expect(answered.body.code).toBe('not_found');
          for (const id of [...ours.ids, ...theirs.ids]) {
            const finding = (await store.findings.get(id)) ?? { vulnStatus: 'missing' };
            expect(finding.vulnStatus).toBe('open');
          }
        },
      ),
      { numRuns: 15 },
    );
  });

  it.each([
    [{ vuln_status: 'wontfix', vuln_ids: ['aaaaaaaaaaaaaaaaaaaa'] }, 'vuln_status', 'open, fixed'],
    [{ vuln_status: 'fixed', vuln_ids: [] }, 'vuln_ids', '1 to 1000'],
    [{ vuln_status: 'fixed', vuln_ids: ['not-an-id'] }, 'vuln_ids', 'vuln ids'],
    [{ vuln_ids: ['aaaaaaaaaaaaaaaaaaaa'] }, 'vuln_status', 'required'],
    [{ vuln_status: 'fixed', vuln_ids: ['aaaaaaaaaaaaaaaaaaaa'], scan_id: 'x' }, 'scan_id', 'unknown field'],
  ])('answers 400 naming the field of a wrong body %j', async (body, param, words) => {
    const answered = await triage(body);
    expect(answered.status).toBe(400);
    expect(answered.body).toEqual({
      message: expect.stringContaining(words),
      code: 'invalid_parameter',
      param,
    });
  });

  it('takes 1,000 ids in one request and refuses 1,001', async () => {
    const { ids } = await scanWithFindings(teamId, 1000, 'bulk');
    expect((await triage({ vuln_status: 'fix_in_progress', vuln_ids: ids })).body.updated).toBe(1000);
    const tooMany = await triage({ vuln_status: 'fixed', vuln_ids: [...ids, newId()] });
    expect(tooMany).toMatchObject({ status: 400, body: { param: 'vuln_ids' } });
  });

  it('deletes a scan with its findings, retests and history, and lists stay counted right', async () => {
    const kept = await scanWithFindings(teamId, 1, 'kept');
    const doomed = await scanWithFindings(teamId, 2, 'doomed');
    await triage({ vuln_status: 'duplicate', vuln_ids: [doomed.ids[0]] });
    await store.retests.record({ vulnId: doomed.ids[1] ?? '', resultType: 'not_matched', events: [] });
    const retestsBefore = (await api.get('/v1/retest?offset=0&limit=1000', readKey)).body.results.length;

    const answered = await remove(doomed.scanId);
    expect(answered).toMatchObject({
      status: 200,
      body: { message: expect.stringContaining(doomed.scanId) },
    });
    expect(await store.scans.get(doomed.scanId)).toBeUndefined();
    for (const id of doomed.ids) expect(await store.findings.get(id)).toBeUndefined();
    expect((await api.get('/v1/retest?offset=0&limit=1000', readKey)).body.results).toHaveLength(
      retestsBefore - 1,
    );
    const listed = (await api.get('/v1/scans?limit=1000', readKey)).body.data.map(
      (s: { scan_id: string }) => s.scan_id,
    );
    expect(listed).toContain(kept.scanId);
    expect(listed).not.toContain(doomed.scanId);
    const db = store.connection.db;
    const counted = await sql<{
      n: string | number;
    }>`select coalesce(sum(n), 0) as n from scan_bucket where team_id = ${teamId}`.execute(db);
    const scans = await sql<{
      n: string | number;
    }>`select count(*) as n from scan where team_id = ${teamId}`.execute(db);
    expect(Number(counted.rows[0]?.n)).toBe(Number(scans.rows[0]?.n));
    expect((await remove(doomed.scanId)).status).toBe(404);
  });

  it("never deletes another team's scan, nor a live one", async () => {
    const ours = await scanWithFindings(teamId, 1, 'guarded');
    expect(await remove(ours.scanId, otherTeamKey)).toMatchObject({
      status: 404,
      body: { code: 'not_found' },
    });
    expect(await remove(ours.scanId, readKey)).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(await store.scans.get(ours.scanId)).toBeDefined();
    const live = await store.scans.create({ teamId, name: 'live', status: 'queued' });
    expect(await remove(live.id)).toMatchObject({ status: 409, body: { code: 'conflict' } });
    expect(await store.scans.get(live.id)).toBeDefined();
  });
});
