import { describe, expect, it } from 'vitest';
import type { RunnableTemplate } from '../engine/index.js';
import { doneRuns, runKey, type ScanPlan } from './run-scan.js';

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
