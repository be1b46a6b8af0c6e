import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import { HttpClient } from '../http/index.js';
import { rawServer } from '../http/testing/servers.js';
import { InteractionWatcher, OastClient, type OastServer, startOastServer } from '../oast/index.js';
import { fetchThroughListener } from '../oast/testing/blind-ssrf.js';
import { chain, type Interceptor, transportDispatch } from '../send/index.js';
import { loadTemplate, type ParsedTemplate } from '../template/index.js';
import { runTemplate } from './index.js';
import { CORPUS_CASES, type CorpusCase, type ExpectedFinding, productNetwork } from './testing/products.js';
import { fixtureServer } from './testing/server.js';

const corpus = fileURLToPath(new URL('../../test/corpus/', import.meta.url));
const client = new HttpClient({ timeoutMs: 15_000 });
const dispatch = transportDispatch(client);

let listener: OastServer;
let watcher: InteractionWatcher;

// Out-of-band templates call back to keyhole's listener, which the products reach by its DNS.
beforeAll(async () => {
  listener = await startOastServer({
    domain: 'oast.test',
    http: { host: '127.0.0.1', port: 0 },
    dns: { host: '127.0.0.1', port: 0 },
  });
  const dns = listener.dns as { host: string; port: number };
  productNetwork.fetch = async (url) => {
    await fetchThroughListener(url, dns, listener.http.port);
  };
  const registered = await OastClient.register({ server: listener.url });
  watcher = new InteractionWatcher(registered, {
    cacheSize: 100,
    evictionMs: 60_000,
    pollMs: 100,
    cooldownMs: 1000,
  });
});

afterAll(async () => {
  await watcher?.close();
  await listener?.close();
  await client.close();
});

async function corpusTemplate(path: string): Promise<ParsedTemplate> {
  const result = await loadTemplate(join(corpus, path), { root: corpus });
  if (result.status !== 'ok') throw new Error(`${path} does not load: ${result.status}`);
  return result.template;
}

/** Sends to 127.0.0.1 whatever host the request names (the fixture stands in for that host). */
const resolvingTo127: Interceptor = (next) => (outgoing, options) =>
  next({ ...outgoing, hostname: '127.0.0.1' }, options);

async function runAgainst(c: CorpusCase, side: 'product' | 'other') {
  const routes = c[side];
  const server =
    typeof routes === 'function'
      ? await rawServer((head, socket) => routes(head, socket))
      : await fixtureServer(routes);
  try {
    const origin = `http://${c.hostname ?? '127.0.0.1'}:${server.port}`;
    const template = await corpusTemplate(c.template);
    const run = await runTemplate(template, origin + (c.input ?? ''), {
      dispatch: c.hostname === undefined ? dispatch : chain(dispatch, [resolvingTo127]),
      oast: watcher,
    });
    return { run, origin };
  } finally {
    await server.close();
  }
}

function comparable(event: ResultEvent, origin: string) {
  const at = event['matched-at'] ?? '';
  return {
    matchedAt: at.startsWith(origin) ? at.slice(origin.length) : at,
    matcherName: event['matcher-name'],
    extractorName: event['extractor-name'],
    extracted: [...(event['extracted-results'] ?? [])].sort(),
    meta: event.meta,
  };
}

function expectation(expected: ExpectedFinding) {
  return {
    matchedAt:
      expected.matchedAt instanceof RegExp ? expect.stringMatching(expected.matchedAt) : expected.matchedAt,
    matcherName: expected.matcherName,
    extractorName: expected.extractorName,
    extracted: [...(expected.extracted ?? [])].sort(),
    meta:
      expected.meta === undefined
        ? undefined
        : Object.fromEntries(
            Object.entries(expected.meta).map(([k, v]) => [
              k,
              v instanceof RegExp ? expect.stringMatching(v) : v,
            ]),
          ),
  };
}

describe('the template corpus against fixture products', () => {
  it('covers every template of test/corpus', async () => {
    const { listTemplateFiles } = await import('../template/index.js');
    const files = (await listTemplateFiles(corpus)).map((f) => f.slice(corpus.length));
    expect(CORPUS_CASES.map((c) => c.template).sort()).toEqual(files.sort());
  });

  for (const c of CORPUS_CASES) {
    it(`${c.template} finds what nuclei reports against the product`, async () => {
      const { run, origin } = await runAgainst(c, 'product');
      expect(run.failures).toEqual([]);
      const found = run.events.filter((e) => e['matcher-status']).map((e) => comparable(e, origin));
      expect(found).toEqual(c.expected.map(expectation));
      for (const event of run.events) expect(JSON.parse(JSON.stringify(event))).toEqual(event);
    });

    it(`${c.template} finds nothing against another product`, async () => {
      const { run } = await runAgainst(c, 'other');
      expect(run.failures).toEqual([]);
      expect(run.events).toEqual([]);
      expect(run.requests).toBeGreaterThan(0);
    });
  }
});
