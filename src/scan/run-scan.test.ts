import { describe, expect, it } from 'vitest';
import type { RunnableTemplate } from '../engine/index.js';
import type { ResultEvent } from '../event/index.js';
import { HttpClient } from '../http/index.js';
import { transportDispatch } from '../send/index.js';
import { parseTemplate } from '../template/index.js';
import { doneRuns, runKey, runScan, type ScanPlan } from './run-scan.js';
import { ScanStats } from './stats.js';
import { httpProbe, resolveTarget } from './target.js';

const parsed = parseTemplate(
  'get.yaml',
  `id: basic-get
info: {name: t, author: a, severity: info}
http:
  - method: GET
    path: ["{{BaseURL}}"]
    matchers:
      - type: word
        words: ["never"]
`,
);

describe('-ms on a target that cannot be reached', () => {
  it('writes a matcher-status false event per template, whose error says the host does not resolve', async () => {
    if (parsed.status !== 'ok') throw new Error('template does not parse');
    const client = new HttpClient({ timeoutMs: 5000 });
    const dispatch = transportDispatch(client);
    const events: ResultEvent[] = [];
    const probe = httpProbe(dispatch, { timeoutMs: 5000 });
    await runScan(
      { templates: [parsed.template], targets: ['trust_me_bro.real'] },
      {
        concurrency: 1,
        run: { dispatch, matcherStatus: true },
        stats: new ScanStats(1),
        listener: { onEvent: (event) => events.push(event) },
        resolveTarget: (target, signal) => resolveTarget(target, probe, signal),
      },
    );
    await client.close();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      'template-id': 'basic-get',
      host: 'trust_me_bro.real',
      'matcher-status': false,
    });
    expect(events[0]?.error).toContain('no address found for host');
  });
});

const template = (id: string, selfContained: boolean) =>
  ({ id, selfContained }) as unknown as RunnableTemplate;

describe('the runs of a resumed plan', () => {
  it('count only the runs done before that the plan still makes', () => {
    const plan: ScanPlan = {
      templates: [template('a', false), template('once', true)],
      targets: ['https://x.test', 'https://y.test'],
      done: new Set(
        [
          { templateId: 'a', target: 0 },
          { templateId: 'a', target: 1 },
          { templateId: 'once', target: -1 },
          { templateId: 'gone', target: 0 },
          { templateId: 'a', target: 2 },
          { templateId: 'once', target: 0 },
        ].map(runKey),
      ),
    };
    expect(doneRuns(plan)).toBe(3);
    expect(doneRuns({ ...plan, done: undefined })).toBe(0);
  });
});
