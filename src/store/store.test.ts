import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import { servedEvent, servedEventsJson, servedRetestItems } from './served-event.js';
import { openStore, type Store } from './store.js';
import { ENGINES, type TestDatabase } from './testing/databases.js';

function event(overrides: Partial<ResultEvent> = {}): ResultEvent {
  return {
    'template-id': 'git-config',
    info: { name: 'Git Config', author: ['pdteam'], tags: ['git'], severity: 'medium' },
    type: 'http',
    host: 'app.test',
    'matched-at': 'https://app.test/.git/config',
    timestamp: '2024-03-14T10:21:36.884120935-04:00',
    'matcher-status': true,
    ...overrides,
  };
}

describe.each(ENGINES)('store on $engine', ({ create }) => {
  let database: TestDatabase;
  let store: Store;
  let teamId: string;

  beforeAll(async () => {
    database = await create();
    store = await openStore(database.location);
    teamId = (await store.teams.ensure('default')).id;
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('migrates once: opening the store again applies nothing', async () => {
    expect(await store.migrate()).toEqual([]);
  });

  it('creates a team once per name', async () => {
    const again = await store.teams.ensure('default');
    expect(again.id).toBe(teamId);
    expect(again.id).toMatch(/^[0-9a-v]{20}$/);
  });

  it('authenticates a created key by its secret and refuses it once revoked', async () => {
    const { key, secret } = await store.keys.create({ teamId, name: 'ci' });
    expect(secret).toMatch(/^kh_[A-Za-z0-9_-]{43}$/);
    expect(secret.startsWith(key.prefix)).toBe(true);
    expect(await store.keys.authenticate(secret)).toEqual({ keyId: key.id, teamId, scope: 'read' });
    expect(await store.keys.authenticate(`${secret.slice(0, -1)}x`)).toBeUndefined();
    expect(await store.keys.authenticate('not a key')).toBeUndefined();
    await store.keys.revoke(key.id);
    expect(await store.keys.authenticate(secret)).toBeUndefined();
    const listed = (await store.keys.list()).find((k) => k.id === key.id);
    expect(listed?.revokedAt).toBeTypeOf('number');
    expect(JSON.stringify(await store.keys.list())).not.toContain(secret);
  });

  it('gives a key the read scope unless it is created with the write scope', async () => {
    const reader = await store.keys.create({ teamId, name: 'reader' });
    const writer = await store.keys.create({ teamId, name: 'writer', scope: 'write' });
    expect(reader.key.scope).toBe('read');
    expect(writer.key.scope).toBe('write');
    expect((await store.keys.authenticate(reader.secret))?.scope).toBe('read');
    expect((await store.keys.authenticate(writer.secret))?.scope).toBe('write');
    expect((await store.keys.list()).find((k) => k.id === writer.key.id)?.scope).toBe('write');
  });

  it('runs a scan through its lifecycle with live progress, findings and severity counts', async () => {
    const scan = await store.scans.create({
      teamId,
      name: 'nightly',
      targets: ['https://app.test', 'https://api.test'],
      templates: [
        {
          id: 'git-config',
          path: '/t/git-config.yaml',
          url: 'https://cloud.projectdiscovery.io/public/git-config',
          content: 'id: git-config\n',
          isPublic: true,
        },
        { id: 'custom', path: '/t/custom.yaml', content: 'id: custom\n' },
      ],
    });
    expect(scan).toMatchObject({
      status: 'starting',
      totalTarget: 2,
      totalTemplate: 2,
      totalScan: 4,
      isOss: true,
      isCloud: false,
    });
    expect(scan.templateIds).toEqual(['git-config', 'custom']);
    expect(scan.publicTemplates).toEqual(['git-config']);
    expect(scan.templateUrls).toEqual(['https://cloud.projectdiscovery.io/public/git-config']);

    await store.scans.markRunning(scan.id);
    await store.scans.updateProgress(scan.id, { progress: 140 });
    expect((await store.scans.require(scan.id)).progress).toBe(100);
    await store.scans.updateProgress(scan.id, { progress: 40 });

    const first = await store.findings.add(scan.id, event());
    expect(first.created).toBe(true);
    expect(first.finding.templateEncoded).toBe(Buffer.from('id: git-config\n').toString('base64'));
    expect(first.finding.vulnStatus).toBe('open');
    const again = await store.findings.add(scan.id, event());
    expect(again).toMatchObject({ created: false, finding: { id: first.finding.id } });
    await store.findings.add(
      scan.id,
      event({ 'template-id': 'custom', info: { ...event().info, severity: 'critical' } }),
    );

    const running = await store.scans.require(scan.id);
    expect(running).toMatchObject({ status: 'running', progress: 40 });
    expect(running.severity).toEqual({ critical: 1, high: 0, medium: 1, low: 0, info: 0, unknown: 0 });

    await store.scans.finish(scan.id);
    const done = await store.scans.require(scan.id);
    expect(done).toMatchObject({ status: 'finished', progress: 100 });
    expect(done.completedAt).toBeTypeOf('number');
    await expect(store.scans.markRunning(scan.id)).rejects.toThrow(/it is finished/);
    await expect(store.findings.add(scan.id, event({ 'matched-at': 'https://app.test/x' }))).rejects.toThrow(
      /takes no more findings/,
    );
    expect(await store.scans.targets(scan.id)).toEqual(['https://app.test', 'https://api.test']);
    expect((await store.scans.templates(scan.id)).map((t) => t.id)).toEqual(['git-config', 'custom']);
  });

  it('records a failure with its reason', async () => {
    const scan = await store.scans.create({ teamId, name: 'broken', status: 'queued' });
    await store.scans.fail(scan.id, 'login failed: status 401');
    expect(await store.scans.require(scan.id)).toMatchObject({
      status: 'failed',
      failureReason: 'login failed: status 401',
    });
  });

  it('links a rescan to its original and counts it there', async () => {
    const original = await store.scans.create({ teamId, name: 'original' });
    const rescan = await store.scans.create({ teamId, name: 'again' });
    await store.scans.markRescan(rescan.id, original.id);
    await store.scans.create({ teamId, name: 'again 2', rescanOf: original.id });
    expect(await store.scans.require(rescan.id)).toMatchObject({ isRescan: true, rescanOf: original.id });
    expect((await store.scans.require(original.id)).rescanCount).toBe(2);
  });

  it('records retests and moves the finding: matched → open, not matched → fixed, error → unchanged', async () => {
    const scan = await store.scans.create({ teamId, name: 'retested' });
    await store.scans.markRunning(scan.id);
    const { finding } = await store.findings.add(scan.id, event({ 'matched-at': 'https://app.test/retest' }));
    const fixed = await store.retests.record({
      vulnId: finding.id,
      resultType: 'not_matched',
      events: [event({ 'matcher-status': false })],
    });
    expect(fixed).toMatchObject({
      vulnId: finding.id,
      scanId: scan.id,
      matcherStatus: false,
      resultType: 'not_matched',
      vulnStatus: 'fixed',
      target: 'app.test',
    });
    expect((await store.findings.get(finding.id))?.vulnStatus).toBe('fixed');
    const error = await store.retests.record({ vulnId: finding.id, resultType: 'error', events: [] });
    expect(error.vulnStatus).toBe('fixed');
    const reopened = await store.retests.record({
      vulnId: finding.id,
      resultType: 'matched',
      events: [event()],
    });
    expect(reopened).toMatchObject({ matcherStatus: true, vulnStatus: 'open' });
    expect((await store.retests.list(teamId, { offset: 0, limit: 10 })).map((r) => r.id).slice(0, 3)).toEqual(
      [reopened.id, error.id, fixed.id],
    );
  });

  it('serves retest results recorded before migration 0024 as it serves newer ones, from their raw events before 0006', async () => {
    const scan = await store.scans.create({ teamId, name: 'served events' });
    await store.scans.markRunning(scan.id);
    const { finding } = await store.findings.add(scan.id, event({ 'matched-at': 'https://app.test/served' }));
    const raw = event({ 'matched-at': 'https://app.test/served', 'extracted-results': null } as never);
    const record = () => store.retests.record({ vulnId: finding.id, resultType: 'matched', events: [raw] });
    const [oldest, older, newer] = [await record(), await record(), await record()];
    await store.connection.db
      .updateTable('retest')
      .set({ served_fields: null, served_events: null })
      .where('id', '=', oldest.id)
      .execute();
    await store.connection.db
      .updateTable('retest')
      .set({ served_fields: null, served_events: servedEventsJson([raw]) })
      .where('id', '=', older.id)
      .execute();
    const served = await store.retests.served(teamId, { offset: 0, limit: 3 });
    const items = JSON.parse(`[${servedRetestItems(served)}]`);
    expect(servedEvent(raw)).toMatchObject({ 'extracted-results': [], path: '', 'matched-line': [] });
    const listed = await store.retests.list(teamId, { offset: 0, limit: 3 });
    expect(listed.map((r) => r.id)).toEqual([newer.id, older.id, oldest.id]);
    expect(items).toEqual(
      listed.map((r) => ({
        matcher_status: true,
        vuln_id: finding.id,
        target: r.target,
        template_url: r.templateUrl,
        created_at: new Date(r.createdAt).toISOString(),
        updated_at: new Date(r.updatedAt).toISOString(),
        scan_id: scan.id,
        event: [servedEvent(raw)],
        template_id: r.templateId,
        template_path: r.templatePath,
        template_encoded: r.templateEncoded,
        result_type: 'matched',
        vuln_status: 'open',
      })),
    );
  });

  it.each(['false_positive', 'triaged', 'accepted_risk', 'duplicate', 'fix_in_progress'] as const)(
    'records retests of a finding triaged %s by hand and keeps that status',
    async (triage) => {
      const scan = await store.scans.create({ teamId, name: `triaged ${triage}` });
      await store.scans.markRunning(scan.id);
      const { finding } = await store.findings.add(
        scan.id,
        event({ 'matched-at': `https://app.test/${triage}` }),
      );
      await store.findings.setStatus(finding.id, triage);
      for (const resultType of ['matched', 'not_matched', 'error'] as const) {
        const recorded = await store.retests.record({ vulnId: finding.id, resultType, events: [] });
        expect(recorded).toMatchObject({
          resultType,
          matcherStatus: resultType === 'matched',
          vulnStatus: triage,
        });
        expect((await store.findings.get(finding.id))?.vulnStatus).toBe(triage);
      }
      expect((await store.retests.ofFinding(finding.id)).map((r) => r.resultType)).toEqual([
        'error',
        'not_matched',
        'matched',
      ]);
    },
  );

  it('keeps asset lists with their targets in order', async () => {
    const list = await store.assets.create({
      teamId,
      name: 'prod hosts',
      targets: ['a.test', 'https://b.test', '10.0.0.1'],
    });
    expect(list.assetCount).toBe(3);
    expect(await store.assets.targets(list.id)).toEqual(['a.test', 'https://b.test', '10.0.0.1']);
    expect(await store.assets.targets(list.id, 'another-team')).toBeUndefined();
  });

  it('lists each scan with its own templates in order and its asset lists by id', async () => {
    const team = (await store.teams.ensure('lists')).id;
    const lists: { id: string }[] = [];
    for (const name of ['b', 'a', 'c'])
      lists.push(await store.assets.create({ teamId: team, name, targets: ['x.test'] }));
    const byId = lists.map((l) => l.id).sort();
    const template = (id: string, isPublic: boolean) => ({
      id,
      content: `id: ${id}\n`,
      url: isPublic ? `https://t/${id}` : '',
      isPublic,
    });
    const first = await store.scans.create({
      teamId: team,
      name: 'first',
      assetIds: [lists[2]!.id, lists[0]!.id],
      templates: [template('zeta', true), template('alpha', false), template('mid', true)],
    });
    const second = await store.scans.create({
      teamId: team,
      name: 'second',
      assetIds: [lists[1]!.id],
      templates: [template('only', false)],
    });
    const third = await store.scans.create({ teamId: team, name: 'third' });
    const listed = await store.scans.list(team, { offset: 0, limit: 10 });
    expect(listed.map((s) => [s.id, s.templateIds, s.publicTemplates, s.templateUrls, s.assetIds])).toEqual([
      [third.id, [], [], [], []],
      [second.id, ['only'], [], [], [lists[1]!.id]],
      [
        first.id,
        ['zeta', 'alpha', 'mid'],
        ['zeta', 'mid'],
        ['https://t/zeta', 'https://t/mid'],
        byId.filter((id) => id !== lists[1]!.id),
      ],
    ]);
  });

  it('shows one team nothing of another team', async () => {
    const other = await store.teams.ensure('other');
    await store.scans.create({ teamId: other.id, name: 'theirs' });
    const ours = await store.scans.list(teamId, { offset: 0, limit: 1000 });
    expect(ours.every((s) => s.teamId === teamId)).toBe(true);
    const theirs = await store.scans.list(other.id, { offset: 0, limit: 1000 });
    expect(theirs.map((s) => s.name)).toEqual(['theirs']);
  });
});
