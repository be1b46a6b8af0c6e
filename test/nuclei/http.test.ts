/**
 * nuclei's HTTP integration cases (internal/tests/integration/http_test.go), run against keyhole:
 * each Go handler stood in for by a server on 127.0.0.1, each template unchanged from testdata/,
 * each expectation nuclei's. Cases against scanme.sh that only look at the request lines nuclei
 * sent (-debug-req) run against a local server that records them. README.md lists the cases not run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { parse } from 'yaml';
import { fixtureServer, type Route } from '../../src/engine/testing/server.js';
import { closedAfterEach } from '../../src/http/testing/cleanups.js';
import { Workspace } from '../../src/scan/testing/workspace.js';
import {
  events,
  expectResultsCount,
  fixturePath,
  nucleiCase,
  requestTargets,
  runTemplate,
} from './keyhole.js';
import { equalFold, form, multipartForm, redirect, requestLineRecorder, tlsServer } from './servers.js';

const { defer } = closedAfterEach();

/** httptest.NewServer(router) with the routes of the case. */
async function server(routes: readonly Route[]) {
  const started = await fixtureServer(routes);
  defer(() => started.close());
  return started;
}

/** tempFixturePath: the template with nuclei's placeholder address replaced by the server's. */
function templateFor(relative: string, serverUrl: string): string {
  const ws = new Workspace();
  defer(async () => ws.remove());
  const text = readFileSync(fixturePath(relative), 'utf8')
    .replaceAll('http://127.0.0.1:5431', serverUrl)
    .replaceAll('127.0.0.1:5431', serverUrl.replace('http://', ''));
  return ws.path(ws.file(relative.split('/').pop() ?? 'template.yaml', text));
}

/** A server standing in for scanme.sh, recording what it receives. */
async function recorder() {
  const started = await requestLineRecorder();
  defer(() => started.close());
  return started;
}

/** The request paths a template lists as its info.reference (httpRawUnsafePath, httpPaths). */
function referencedPaths(relative: string): string[] {
  const template = parse(readFileSync(fixturePath(relative), 'utf8')) as { info: { reference: string[] } };
  return template.info.reference;
}

describe("nuclei's http integration cases", () => {
  nucleiCase('httpGetHeaders: a header of the template reaches the server', undefined, async () => {
    const ts = await server([
      {
        method: 'GET',
        path: '/',
        respond: (r) => ({
          body: equalFold(r.headers.test, 'nuclei') ? 'This is test headers matcher text' : '',
        }),
      },
    ]);
    expectResultsCount(await runTemplate('protocols/http/get-headers.yaml', ts.url), 1);
  });

  nucleiCase('httpGetQueryString: the query of a path reaches the server', undefined, async () => {
    const ts = await server([
      {
        method: 'GET',
        path: '/',
        respond: (r) => ({
          body: equalFold(r.query.get('test'), 'nuclei') ? 'This is test querystring matcher text' : '',
        }),
      },
    ]);
    expectResultsCount(await runTemplate('protocols/http/get-query-string.yaml', ts.url), 1);
  });

  nucleiCase('httpGetRedirects: redirects: true follows a redirect to its page', undefined, async () => {
    const ts = await server([
      { method: 'GET', path: '/', respond: redirect('/redirected', 302) },
      { method: 'GET', path: '/redirected', respond: { body: 'This is test redirects matcher text' } },
    ]);
    expectResultsCount(await runTemplate('protocols/http/get-redirects.yaml', ts.url), 1);
  });

  nucleiCase(
    'httpGetHostRedirects: host-redirects with max-redirects 3 stops at the fourth redirect',
    undefined,
    async () => {
      const ts = await server([
        { method: 'GET', path: '/', respond: redirect('/redirected1', 302) },
        // http.Redirect(w, r, "redirected2", …) makes the relative location absolute from the path's folder.
        { method: 'GET', path: '/redirected1', respond: redirect('/redirected2', 302) },
        { method: 'GET', path: '/redirected2', respond: redirect('/redirected3', 302) },
        { method: 'GET', path: '/redirected3', respond: redirect('https://scanme.sh', 307) },
      ]);
      expectResultsCount(await runTemplate('protocols/http/get-host-redirects.yaml', ts.url), 1);
    },
  );

  nucleiCase('httpDisableRedirects: -dr keeps the first response', undefined, async () => {
    const ts = await server([
      { method: 'GET', path: '/', respond: redirect('/redirected', 301) },
      { method: 'GET', path: '/redirected', respond: { body: 'This is test redirects matcher text' } },
    ]);
    expectResultsCount(await runTemplate('protocols/http/disable-redirects.yaml', ts.url, '-dr'), 0);
  });

  nucleiCase('httpGet: a word in the body matches', undefined, async () => {
    const ts = await server([{ method: 'GET', path: '/', respond: { body: 'This is test matcher text' } }]);
    expectResultsCount(await runTemplate('protocols/http/get.yaml', ts.url), 1);
  });

  nucleiCase('httpPostBody: a url-encoded body is sent with its own Content-Length', undefined, async () => {
    const ts = await server([
      {
        method: 'POST',
        path: '/',
        respond: (r) => {
          const values = form(r);
          const ok = equalFold(values.get('username'), 'test') && equalFold(values.get('password'), 'nuclei');
          return { body: ok ? 'This is test post-body matcher text' : '' };
        },
      },
    ]);
    expectResultsCount(await runTemplate('protocols/http/post-body.yaml', ts.url), 1);
  });

  nucleiCase('httpPostJSONBody: a JSON body is sent with its own Content-Length', undefined, async () => {
    const routerErrors: string[] = [];
    const ts = await server([
      {
        method: 'POST',
        path: '/',
        respond: (r) => {
          try {
            const doc = JSON.parse(r.body) as { username?: string; password?: string };
            const ok = equalFold(doc.username, 'test') && equalFold(doc.password, 'nuclei');
            return { body: ok ? 'This is test post-json-body matcher text' : '' };
          } catch (error) {
            routerErrors.push(String(error));
            return {};
          }
        },
      },
    ]);
    const run = await runTemplate('protocols/http/post-json-body.yaml', ts.url);
    expect(routerErrors).toEqual([]);
    expectResultsCount(run, 1);
  });

  nucleiCase(
    'httpPostMultipartBody: a multipart body is sent with its own Content-Length',
    undefined,
    async () => {
      const routerErrors: string[] = [];
      const ts = await server([
        {
          method: 'POST',
          path: '/',
          respond: (r) => {
            try {
              const parts = multipartForm(r);
              const password = parts.values.get('password') ?? [];
              const file = parts.files.get('username') ?? [];
              if (password.length !== 1) throw new Error('no password in request');
              if (file.length !== 1) throw new Error('no file in request');
              const ok = equalFold(password[0], 'nuclei') && equalFold(file[0], 'username');
              return { body: ok ? 'This is test post-multipart matcher text' : '' };
            } catch (error) {
              routerErrors.push(String(error));
              return {};
            }
          },
        },
      ]);
      const run = await runTemplate('protocols/http/post-multipart-body.yaml', ts.url);
      expect(routerErrors).toEqual([]);
      expectResultsCount(run, 1);
    },
  );

  nucleiCase(
    'httpRawCookieReuse: a cookie set by the first raw request goes with the second',
    undefined,
    async () => {
      const routerErrors: string[] = [];
      const ts = await server([
        {
          method: 'POST',
          path: '/',
          respond: (r) =>
            equalFold(form(r).get('testing'), 'parameter')
              ? { headers: { 'Set-Cookie': 'nuclei=test' } }
              : {},
        },
        {
          method: 'GET',
          path: '/',
          respond: (r) => {
            const cookie = r.cookies.nuclei;
            if (cookie === undefined) {
              routerErrors.push('http: named cookie not present');
              return {};
            }
            return { body: equalFold(cookie, 'test') ? 'Test is test-cookie-reuse matcher text' : '' };
          },
        },
      ]);
      const run = await runTemplate('protocols/http/raw-cookie-reuse.yaml', ts.url);
      expect(routerErrors).toEqual([]);
      expectResultsCount(run, 1);
    },
  );

  nucleiCase(
    'httpRawDynamicExtractor: a value extracted from the first raw response fills the second request',
    undefined,
    async () => {
      const ts = await server([
        {
          method: 'POST',
          path: '/',
          respond: (r) => ({ body: equalFold(form(r).get('testing'), 'parameter') ? "Token: 'nuclei'" : '' }),
        },
        {
          method: 'GET',
          path: '/',
          respond: (r) => ({
            body: equalFold(r.query.get('username'), 'nuclei')
              ? 'Test is test-dynamic-extractor-raw matcher text'
              : '',
          }),
        },
      ]);
      expectResultsCount(await runTemplate('protocols/http/raw-dynamic-extractor.yaml', ts.url), 1);
    },
  );

  nucleiCase(
    'httpRawGetQuery: a raw request line of only a query goes to the target',
    undefined,
    async () => {
      const ts = await server([
        {
          method: 'GET',
          path: '/',
          respond: (r) => ({
            body: equalFold(r.query.get('test'), 'nuclei') ? 'Test is test raw-get-query-matcher text' : '',
          }),
        },
      ]);
      expectResultsCount(await runTemplate('protocols/http/raw-get-query.yaml', ts.url), 1);
    },
  );

  nucleiCase('httpRawGet: a raw GET matches', undefined, async () => {
    const ts = await server([
      { method: 'GET', path: '/', respond: { body: 'Test is test raw-get-matcher text' } },
    ]);
    expectResultsCount(await runTemplate('protocols/http/raw-get.yaml', ts.url), 1);
  });

  for (const template of ['raw-with-params', 'raw-unsafe-with-params']) {
    nucleiCase(
      `httpRawWithParams (${template}.yaml): the target's query is merged into the raw request's`,
      undefined,
      async () => {
        const params: URLSearchParams[] = [];
        const ts = await server([
          {
            method: 'GET',
            path: '/',
            respond: (r) => {
              params.push(r.query);
              return { body: 'Test is test raw-params-matcher text' };
            },
          },
        ]);
        expectResultsCount(await runTemplate(`protocols/http/${template}.yaml`, `${ts.url}/?key1=value1`), 1);
        expect(params.map((p) => [p.getAll('key1'), p.getAll('key2')])).toEqual([[['value1'], ['value2']]]);
      },
    );
  }

  nucleiCase('httpRawPathTrailingSlash: a raw path keeps ..; and its trailing slash', undefined, async () => {
    const ts = await server([{ path: /.*/, respond: {} }]);
    const run = await runTemplate('protocols/http/raw-path-trailing-slash.yaml', ts.url);
    expect(run.exit, run.stderr).toBe(0);
    expect(ts.requests.map((r) => r.target)).toEqual(['/test/..;/..;/']);
  });

  nucleiCase(
    'httpRawPayload: a clusterbomb fills § and {{}} markers of a raw request',
    undefined,
    async () => {
      const ts = await server([
        {
          method: 'POST',
          path: '/',
          respond: (r) => {
            const values = form(r);
            const header = r.headers.another_header;
            if (!equalFold(header, 'bnVjbGVp') && !equalFold(header, 'Z3Vlc3Q=')) return {};
            const password = values.get('password');
            const ok =
              equalFold(values.get('username'), 'test') &&
              (equalFold(password, 'nuclei') || equalFold(password, 'guest'));
            return { body: ok ? 'Test is raw-payload matcher text' : '' };
          },
        },
      ]);
      expectResultsCount(await runTemplate('protocols/http/raw-payload.yaml', ts.url), 2);
    },
  );

  nucleiCase('httpRawPostBody: a raw POST body is sent with its own Content-Length', undefined, async () => {
    const ts = await server([
      {
        method: 'POST',
        path: '/',
        respond: (r) => {
          const values = form(r);
          const ok = equalFold(values.get('username'), 'test') && equalFold(values.get('password'), 'nuclei');
          return { body: ok ? 'Test is test raw-post-body-matcher text' : '' };
        },
      },
    ]);
    expectResultsCount(await runTemplate('protocols/http/raw-post-body.yaml', ts.url), 1);
  });

  nucleiCase('httpRawUnsafePath: unsafe raw request lines are sent byte for byte', undefined, async () => {
    const ts = await recorder();
    const run = await runTemplate('protocols/http/raw-unsafe-path.yaml', ts.url);
    expect(run.exit, run.stderr).toBe(0);
    expect(requestTargets(ts.lines())).toEqual(referencedPaths('protocols/http/raw-unsafe-path.yaml'));
  });

  nucleiCase(
    'httpPaths: raw and path requests send the same normalised request-targets',
    undefined,
    async () => {
      const ts = await recorder();
      const run = await runTemplate('protocols/http/http-paths.yaml', ts.url);
      expect(run.exit, run.stderr).toBe(0);
      expect(requestTargets(ts.lines())).toEqual(referencedPaths('protocols/http/http-paths.yaml'));
    },
  );

  for (const template of ['request-condition', 'request-condition-new']) {
    nucleiCase(
      `httpRequestCondition (${template}.yaml): a matcher reads the status of two requests`,
      undefined,
      async () => {
        const ts = await server([
          { method: 'GET', path: '/200', respond: { status: 200 } },
          { method: 'GET', path: '/400', respond: { status: 400 } },
        ]);
        expectResultsCount(await runTemplate(`protocols/http/${template}.yaml`, ts.url), 1);
      },
    );
  }

  const selfContained = [
    { template: 'self-contained', differs: undefined },
    { template: 'self-contained-with-path', differs: undefined },
  ] as const;
  for (const { template, differs } of selfContained) {
    nucleiCase(
      `httpRequestSelfContained (${template}.yaml): a self-contained template runs without a target`,
      differs,
      async () => {
        const ts = await server([
          { method: 'GET', path: '/', respond: { body: 'This is self-contained response' } },
        ]);
        expectResultsCount(
          await runTemplate(templateFor(`protocols/http/${template}.yaml`, ts.url), undefined),
          1,
        );
      },
    );
  }

  nucleiCase(
    'httpRequestSelfContainedWithParams: the query of a self-contained request is sent once',
    undefined,
    async () => {
      const params: URLSearchParams[] = [];
      const ts = await server([
        {
          method: 'GET',
          path: '/',
          respond: (r) => {
            params.push(r.query);
            return { body: 'This is self-contained response' };
          },
        },
      ]);
      const template = templateFor('protocols/http/self-contained-with-params.yaml', ts.url);
      const run = await runTemplate(template, undefined);
      expect(params.map((p) => [p.getAll('something'), p.getAll('key')])).toEqual([[['here'], ['value']]]);
      expectResultsCount(run, 1);
    },
  );

  nucleiCase(
    'httpRequestSelfContainedFileInput: -var name=FILE gives each line of FILE as a value',
    undefined,
    async () => {
      const paths: string[] = [];
      const answer = (path: string): Route => ({
        method: 'GET',
        path,
        respond: () => {
          paths.push(path);
          return { body: 'This is self-contained response' };
        },
      });
      const ts = await server([answer('/one'), answer('/two')]);
      const ws = new Workspace();
      defer(async () => ws.remove());
      const payloads = ws.path(ws.file('self-contained-payload.txt', 'one\ntwo\n'));
      const template = templateFor('protocols/http/self-contained-file-input.yaml', ts.url);
      // nuclei: -V test=FILE
      const run = await runTemplate(template, undefined, '-var', `test=${payloads}`);
      expectResultsCount(run, 4);
      expect(paths.sort()).toEqual(['/one', '/one', '/two', '/two']);
    },
  );

  nucleiCase('httpGetCaseInsensitive: case-insensitive words match', undefined, async () => {
    const ts = await server([{ method: 'GET', path: '/', respond: { body: 'THIS IS TEST MATCHER TEXT' } }]);
    expectResultsCount(await runTemplate('protocols/http/get-case-insensitive.yaml', ts.url), 1);
  });

  nucleiCase(
    'httpGetCaseInsensitiveCluster: two templates of the same request both match',
    undefined,
    async () => {
      const ts = await server([{ method: 'GET', path: '/', respond: { body: 'This is test matcher text' } }]);
      const run = await runTemplate(
        'protocols/http/get.yaml',
        ts.url,
        '-t',
        fixturePath('protocols/http/get-case-insensitive.yaml'),
      );
      expectResultsCount(run, 2);
    },
  );

  nucleiCase(
    'httpGetRedirectsChainHeaders: matchers see the headers and status of the redirect chain',
    undefined,
    async () => {
      const ts = await server([
        { method: 'GET', path: '/', respond: redirect('/redirected', 302) },
        {
          method: 'GET',
          path: '/redirected',
          respond: () => {
            const moved = redirect('/final', 302);
            return { ...moved, headers: { ...moved.headers, Secret: 'TestRedirectHeaderMatch' } };
          },
        },
        { method: 'GET', path: '/final', respond: { body: 'ok' } },
      ]);
      expectResultsCount(await runTemplate('protocols/http/get-redirects-chain-headers.yaml', ts.url), 1);
    },
  );

  nucleiCase(
    'httpDSLVariable: a payload in a dsl matcher gives one result per value',
    undefined,
    async () => {
      const ts = await server([{ method: 'GET', path: '/', respond: { body: 'This is test matcher text' } }]);
      expectResultsCount(await runTemplate('protocols/http/dsl-matcher-variable.yaml', ts.url), 5);
    },
  );

  nucleiCase('httpRaceSimple: race_count sends the request 10 times', undefined, async () => {
    const ts = await server([{ method: 'GET', path: '/', respond: { status: 200 } }]);
    expectResultsCount(await runTemplate('protocols/http/race-simple.yaml', ts.url), 10);
  });

  nucleiCase('httpRaceMultiple: race sends each raw request', undefined, async () => {
    const ts = await server([{ method: 'GET', path: '/', respond: { status: 200 } }]);
    expectResultsCount(await runTemplate('protocols/http/race-multiple.yaml', ts.url), 5);
  });

  nucleiCase(
    'httpRaceWithDelay: race with threads 2 sends two requests at once and the third after',
    undefined,
    async () => {
      const times: number[] = [];
      const ts = await server([
        {
          method: 'GET',
          path: '/',
          respond: () => {
            times.push(Date.now());
            return { status: 200, delayMs: 2000 };
          },
        },
      ]);
      expectResultsCount(await runTemplate('protocols/http/race-condition-with-delay.yaml', ts.url), 3);
      expect(times).toHaveLength(3);
      const [first = 0, second = 0, third = 0] = times;
      expect(second - first).toBeLessThanOrEqual(500);
      expect(third - first).toBeGreaterThanOrEqual(1500);
    },
    20_000,
  );

  nucleiCase(
    'httpRaceWithVariables: variables and constants are filled in race mode',
    undefined,
    async () => {
      const ts = await server([
        { method: 'GET', path: '/race', respond: (r) => ({ body: r.headers['x-api-key'] ?? '' }) },
      ]);
      expectResultsCount(await runTemplate('protocols/http/race-with-variables.yaml', ts.url), 3);
    },
  );

  nucleiCase('httpStopAtFirstMatch: stop-at-first-match stops after the first match', undefined, async () => {
    const ts = await server([{ method: 'GET', path: '/', respond: { body: 'This is test' } }]);
    expectResultsCount(await runTemplate('protocols/http/stop-at-first-match.yaml', ts.url), 1);
  });

  nucleiCase(
    'httpStopAtFirstMatchWithExtractors: stop-at-first-match does not stop on extractor results',
    undefined,
    async () => {
      const ts = await server([{ method: 'GET', path: '/', respond: { body: 'This is test' } }]);
      expectResultsCount(
        await runTemplate('protocols/http/stop-at-first-match-with-extractors.yaml', ts.url),
        2,
      );
    },
  );

  nucleiCase('httpVariables: variables fill a raw request, and -var overrides them', undefined, async () => {
    const ts = await server([
      {
        method: 'GET',
        path: '/',
        respond: (r) => ({
          body: `${r.headers.test ?? ''}\n${r.headers.another ?? ''}\n${r.headers.email ?? ''}`,
        }),
      },
    ]);
    expectResultsCount(await runTemplate('protocols/http/variables.yaml', ts.url), 1);
    expectResultsCount(await runTemplate('protocols/http/variables.yaml', ts.url, '-var', 'a1=failed'), 0);
  });

  nucleiCase(
    'httpVariablesThreadsPrevious: a variable reads a value extracted by an earlier block',
    undefined,
    async () => {
      const ts = await server([
        { method: 'GET', path: '/login', respond: { body: 'token=secret123' } },
        { method: 'GET', path: '/api', respond: (r) => ({ body: r.headers.authorization ?? '' }) },
      ]);
      expectResultsCount(await runTemplate('protocols/http/variables-threads-previous.yaml', ts.url), 1);
    },
  );

  nucleiCase(
    'httpVariableDSLFunction: a variable made by a random function has one value per run',
    undefined,
    async () => {
      const ts = await recorder();
      const run = await runTemplate('protocols/http/variable-dsl-function.yaml', ts.url);
      expect(run.exit, run.stderr).toBe(0);
      const targets = requestTargets(ts.lines());
      expect(targets).toHaveLength(2);
      expect(targets[0]).toBe(targets[1]);
    },
  );

  nucleiCase('httpSniAnnotation: @tls-sni sets the TLS server name', undefined, async () => {
    const ts = await tlsServer((_request, response, serverName) =>
      response.end(serverName === 'test' ? 'test-ok' : 'test-ko'),
    );
    defer(() => ts.close());
    expectResultsCount(await runTemplate('protocols/http/get-override-sni.yaml', ts.url), 1);
  });

  nucleiCase('customCLISNI: -sni sets the TLS server name', undefined, async () => {
    const ts = await tlsServer((_request, response, serverName) =>
      response.end(serverName === 'test' ? 'test-ok' : 'test-ko'),
    );
    defer(() => ts.close());
    expectResultsCount(await runTemplate('protocols/http/get-sni.yaml', ts.url, '-sni', 'test'), 1);
  });

  nucleiCase(
    'httpRedirectMatchURL: a result after redirects is at the URL redirected to',
    undefined,
    async () => {
      const ts = await server([
        {
          method: 'GET',
          path: '/',
          respond: () => {
            const moved = redirect('/redirected', 302);
            return { ...moved, body: `${moved.body}This is test redirects matcher text` };
          },
        },
        { method: 'GET', path: '/redirected', respond: { body: 'This is test redirects matcher text' } },
      ]);
      // nuclei: -no-meta, to print only the matched URL; the JSONL event's matched-at is that URL.
      const run = await runTemplate('protocols/http/redirect-match-url.yaml', ts.url);
      expectResultsCount(run, 1);
      expect(events(run)[0]?.['matched-at']).toBe(`${ts.url}/redirected`);
    },
  );

  nucleiCase(
    'customCLISNIUnsafe: -sni sets the TLS server name of an unsafe request',
    undefined,
    async () => {
      const ts = await tlsServer((_request, response, serverName) =>
        response.end(serverName === 'test' ? 'test-ok' : 'test-ko'),
      );
      defer(() => ts.close());
      expectResultsCount(await runTemplate('protocols/http/get-sni-unsafe.yaml', ts.url, '-sni', 'test'), 1);
    },
  );

  nucleiCase(
    'annotationTimeout: @timeout gives a request longer than -timeout',
    undefined,
    async () => {
      const ts = await tlsServer((_request, response) => {
        setTimeout(() => response.end('This is test matcher text'), 4000);
      });
      defer(() => ts.close());
      expectResultsCount(
        await runTemplate('protocols/http/annotation-timeout.yaml', ts.url, '-timeout', '1'),
        1,
      );
    },
    20_000,
  );

  nucleiCase('customAttackType: -attack-type overrides the attack of the template', undefined, async () => {
    const queries: string[] = [];
    const ts = await tlsServer((request, response) => {
      const target = request.url ?? '/';
      queries.push(target.includes('?') ? target.slice(target.indexOf('?') + 1) : '');
      response.end('This is test custom payload');
    });
    defer(() => ts.close());
    await runTemplate('protocols/http/custom-attack-type.yaml', ts.url, '-attack-type', 'clusterbomb');
    expect(queries).toHaveLength(4);
  });

  nucleiCase(
    'httpCLBodyWithoutHeader: content_length is the body length without a header',
    undefined,
    async () => {
      const ts = await tlsServer((_request, response) => {
        // No Content-Length: the body is sent chunked.
        response.write('this is a test');
        response.end();
      });
      defer(() => ts.close());
      expectResultsCount(await runTemplate('protocols/http/cl-body-without-header.yaml', ts.url), 1);
    },
  );

  nucleiCase(
    'httpCLBodyWithHeader: content_length is the header and body the bytes that came',
    undefined,
    async () => {
      const ts = await tlsServer((_request, response) => {
        response.writeHead(200, { 'Content-Length': '50000', 'Content-Type': 'text/plain; charset=utf-8' });
        // Go's server closes a connection whose handler wrote less than its Content-Length.
        response.write('this is a test', () => response.socket?.end());
      });
      defer(() => ts.close());
      expectResultsCount(await runTemplate('protocols/http/cl-body-with-header.yaml', ts.url), 1);
    },
  );

  nucleiCase('ConstantWithCliVar: -var does not override a constant', undefined, async () => {
    const ts = await tlsServer((request, response) => {
      response.end(new URL(request.url ?? '/', 'https://x').searchParams.get('p') ?? '');
    });
    defer(() => ts.close());
    // nuclei: -V test=fromcli
    expectResultsCount(
      await runTemplate('protocols/http/cli-with-constants.yaml', ts.url, '-var', 'test=fromcli'),
      1,
    );
  });

  nucleiCase('constantsWithThreads: constants fill requests sent in parallel', undefined, async () => {
    const ts = await server([
      {
        method: 'GET',
        path: /^\/api\/[^/]+$/,
        respond: (r) => ({ body: `${r.headers['x-api-key'] ?? ''} ${r.path.slice('/api/'.length)}` }),
      },
    ]);
    expectResultsCount(await runTemplate('protocols/http/constants-with-threads.yaml', ts.url), 1);
  });

  nucleiCase(
    'matcherStatusTest: -ms prints one event for a template that matched nothing',
    undefined,
    async () => {
      const ts = await server([{ method: 'GET', path: '/200', respond: { status: 200 } }]);
      expectResultsCount(await runTemplate('protocols/http/matcher-status.yaml', ts.url, '-ms'), 1);
    },
  );

  nucleiCase(
    "httpDisablePathAutomerge: raw request lines are not merged with the target's path",
    undefined,
    async () => {
      const ts = await server([
        { method: 'GET', path: '/api/v1/test', respond: (r) => ({ body: r.query.get('id') ?? '' }) },
        { method: 'GET', path: '/', respond: { body: 'empty path in raw request' } },
      ]);
      expectResultsCount(
        await runTemplate('protocols/http/disable-path-automerge.yaml', `${ts.url}/api/v1/user`),
        2,
      );
    },
  );

  nucleiCase(
    'httpPreprocessor: {{randstr}} is a random string of 25 or more letters and digits',
    undefined,
    async () => {
      const ts = await server([
        {
          method: 'GET',
          path: '/',
          respond: (r) =>
            /[A-Za-z0-9]{25,}/.test(r.target) ? { status: 200, body: 'ok' } : { status: 400, body: 'not ok' },
        },
      ]);
      expectResultsCount(await runTemplate('protocols/http/http-preprocessor.yaml', ts.url), 1);
    },
  );

  nucleiCase('httpMultiRequest: a dsl matcher reads the bodies of two raw requests', undefined, async () => {
    const ts = await server([
      { method: 'GET', path: '/ping', respond: { status: 200, body: 'ping' } },
      { method: 'GET', path: '/pong', respond: { status: 200, body: 'pong' } },
    ]);
    expectResultsCount(await runTemplate('protocols/http/multi-request.yaml', ts.url), 1);
  });

  nucleiCase(
    'httpMatcherExtractorDynamicExtractor: an internal extractor fills the next request and a matcher and an extractor read its body',
    undefined,
    async () => {
      const ts = await server([
        {
          method: 'GET',
          path: '/',
          respond: {
            body: '<!DOCTYPE html>\n<html lang="en">\n<body>\n    <a href="/domains">Domains</a>\n</body>\n</html>',
          },
        },
        {
          method: 'GET',
          path: '/domains',
          respond: {
            body: `<!DOCTYPE html>
		<html lang="en">
		<head>
			<title>Dynamic Extractor Test</title>
		</head>
		<body>
			<!-- The content of the title tag matches the regex pattern for both the extractor and matcher for 'title' -->
		</body>
		</html>
		`,
          },
        },
      ]);
      expectResultsCount(
        await runTemplate('protocols/http/http-matcher-extractor-dy-extractor.yaml', ts.url),
        1,
      );
    },
  );

  nucleiCase(
    'httpResponseDataLiteralReuse: {{…}} in an extracted value is sent as written, not evaluated',
    undefined,
    async () => {
      const ts = await server([
        { method: 'GET', path: '/', respond: { body: '{{md5("Hello")}}' } },
        {
          method: 'GET',
          path: '/echo',
          respond: (r) => ({ status: r.query.get('x') === '{{md5("Hello")}}' ? 200 : 400 }),
        },
      ]);
      expectResultsCount(await runTemplate('protocols/http/response-data-literal-reuse.yaml', ts.url), 1);
    },
  );

  const singleSlash = [
    { name: 'httpRawPathSingleSlash', template: 'raw-path-single-slash' },
    { name: 'httpRawUnsafePathSingleSlash', template: 'raw-unsafe-path-single-slash' },
  ];
  for (const { name, template } of singleSlash) {
    nucleiCase(`${name}: a raw "GET /" goes to the path of the target`, undefined, async () => {
      const ts = await server([{ path: /.*/, respond: { body: 'ok' } }]);
      // nuclei: -u scanme.sh/index.php (keyhole takes a target with a path only with its scheme)
      const run = await runTemplate(`protocols/http/${template}.yaml`, `${ts.url}/index.php`);
      expect(run.exit, run.stderr).toBe(0);
      expect(ts.requests.map((r) => r.target)).toEqual(['/index.php']);
    });
  }
});
