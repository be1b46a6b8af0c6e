/**
 * nuclei's DSL integration cases (internal/tests/integration/dsl_test.go), run against keyhole: the
 * [ERR], [WRN] and [FTL] lines a scan prints when a dsl matcher fails to evaluate.
 */
import { describe, expect } from 'vitest';
import { fixtureServer } from '../../src/engine/testing/server.js';
import { closedAfterEach } from '../../src/http/testing/cleanups.js';
import { fixturePath, type KeyholeRun, nucleiCase, runKeyhole } from './keyhole.js';

const { defer } = closedAfterEach();

const DEFAULT_DSL_ENVS = { HIDE_TEMPLATE_SIG_WARNING: 'true' };

async function dslServer() {
  const ts = await fixtureServer([
    { method: 'GET', path: '/', respond: { body: 'DSL version parsing warning test' } },
  ]);
  defer(() => ts.close());
  return ts;
}

/**
 * nuclei's RunNucleiArgsAndGetErrors: the lines of the output that start with [ERR], [WRN] or
 * [FTL]. nuclei's -v is keyhole's default (notices are shown unless -silent), -nc its NO_COLOR.
 */
async function errorLines(template: string, target: string, env: Record<string, string>): Promise<string[]> {
  const run: KeyholeRun = await runKeyhole(
    ['scan', '-t', fixturePath(template), '-target', target, '--no-store'],
    env,
  );
  expect(run.exit, run.stderr).toBe(0);
  return `${run.stdout}\n${run.stderr}`
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^\[(ERR|WRN|FTL)\]/.test(line));
}

describe("nuclei's dsl integration cases", () => {
  nucleiCase(
    'dslVersionWarning: a dsl matcher that fails to evaluate is not shown by default',
    undefined,
    async () => {
      const ts = await dslServer();
      expect(await errorLines('dsl/hide-version-warning.yaml', ts.url, DEFAULT_DSL_ENVS)).toHaveLength(0);
    },
  );

  nucleiCase(
    'dslShowVersionWarning: SHOW_DSL_ERRORS=true shows a dsl matcher that fails to evaluate',
    undefined,
    async () => {
      const ts = await dslServer();
      const env = { ...DEFAULT_DSL_ENVS, SHOW_DSL_ERRORS: 'true' };
      expect(await errorLines('dsl/show-version-warning.yaml', ts.url, env)).toHaveLength(1);
    },
  );
});
