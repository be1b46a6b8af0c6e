/**
 * nuclei's flow integration cases (internal/tests/integration/flow_test.go) that need only HTTP on
 * 127.0.0.1, run against keyhole. README.md lists the others.
 */
import { describe } from 'vitest';
import { fixtureServer, type Route } from '../../src/engine/testing/server.js';
import { closedAfterEach } from '../../src/http/testing/cleanups.js';
import { expectResultsCount, nucleiCase, runTemplate } from './keyhole.js';

const { defer } = closedAfterEach();

describe("nuclei's flow integration cases", () => {
  nucleiCase(
    'IterateValuesFlow: a flow loops over extracted values, one request each',
    undefined,
    async () => {
      const testEmails = ['secrets@scanme.sh', 'superadmin@scanme.sh'];
      const welcome = (email: string): Route => ({
        method: 'GET',
        path: `/user/${Buffer.from(email).toString('base64')}`,
        respond: { status: 200, body: 'Welcome ! This is test matcher text' },
      });
      // fmt.Fprint(w, testEmails) prints a slice as [a b].
      const ts = await fixtureServer([
        { method: 'GET', path: '/', respond: { status: 200, body: `[${testEmails.join(' ')}]` } },
        ...testEmails.map(welcome),
      ]);
      defer(() => ts.close());
      expectResultsCount(await runTemplate('flow/iterate-values-flow.yaml', ts.url), 2);
    },
  );
});
