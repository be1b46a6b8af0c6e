/**
 * nuclei's matcher-status integration cases (internal/tests/integration/matcher-status_test.go) for
 * HTTP, run against keyhole. README.md lists the cases of other protocols.
 */
import { describe, expect } from 'vitest';
import { fixtureServer } from '../../src/engine/testing/server.js';
import { closedAfterEach } from '../../src/http/testing/cleanups.js';
import { events, fixturePath, nucleiCase, runTemplate } from './keyhole.js';

const { defer } = closedAfterEach();

describe("nuclei's matcher-status integration cases", () => {
  nucleiCase(
    'httpNoAccess: -ms writes an event with the error for a host that does not resolve',
    undefined,
    async () => {
      // nuclei: -ms -j (runTemplate always asks for JSONL)
      const run = await runTemplate('protocols/http/get.yaml', 'trust_me_bro.real', '-ms');
      expect(run.results.length, run.stderr).toBeGreaterThan(0);
      expect(String(events(run)[0]?.error ?? '')).toContain('no address found for host');
    },
  );

  nucleiCase(
    'httpMatcherStatusAnd: -ms writes a failure event for each of two templates whose and-matchers fail',
    undefined,
    async () => {
      const ts = await fixtureServer([{ method: 'GET', path: '/', respond: { body: 'ok' } }]);
      defer(() => ts.close());
      const run = await runTemplate(
        'protocols/http/matcher-status-and.yaml',
        ts.url,
        '-t',
        fixturePath('protocols/http/matcher-status-and-cluster.yaml'),
        '-ms',
      );
      expect(run.results, run.stderr).toHaveLength(2);
    },
  );
});
