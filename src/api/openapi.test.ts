import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../store/testing/databases.js';
import { type ServedDatabase, serveDatabase } from './testing/serve.js';

/**
 * The schema reaches Schema Objects through `$dynamicRef: "#meta"`, which resolves to its own
 * `$defs/schema` unless a dialect extends it; Ajv resolves that dynamic reference to the document's
 * root, so it is written as the plain reference it stands for here.
 */
const OPENAPI_31 = JSON.parse(
  readFileSync(new URL('./testing/openapi-3.1/schema.json', import.meta.url), 'utf8').replaceAll(
    '"$dynamicRef": "#meta"',
    '"$ref": "#/$defs/schema"',
  ),
);
const ajv = new Ajv2020({ allErrors: true, strict: false });
// ajv-formats is CommonJS: its plugin is the module's `default`, under both loaders.
formats.default(ajv);
// A media type range (`application/json`, `*/*`): not one of ajv-formats'.
ajv.addFormat('media-range', /^[\w.+*-]+\/[\w.+*-]+/);
const validOpenApi = ajv.compile(OPENAPI_31);

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface Operation {
  readonly summary?: string;
  readonly security?: unknown[];
  readonly responses: Record<string, unknown>;
}

describe.each(ENGINES)('/openapi.json on $engine', ({ create }) => {
  let served: ServedDatabase;
  // biome-ignore lint/suspicious/noExplicitAny: the document is arbitrary JSON the assertions inspect.
  let document: any;

  beforeAll(async () => {
    served = await serveDatabase(await create());
    document = (await served.api.get('/openapi.json')).body;
  });
  afterAll(() => served?.close());

  it('is a valid OpenAPI 3.1 document by the OpenAPI Initiative’s schema', () => {
    const valid = validOpenApi(document);
    expect(validOpenApi.errors ?? [], JSON.stringify(validOpenApi.errors?.slice(0, 3))).toEqual([]);
    expect(valid).toBe(true);
  });

  it('fails that schema when the document is broken, so the check can fail', () => {
    const broken = structuredClone(document);
    broken.paths['/v1/scans'].get.responses = 'none';
    expect(validOpenApi(broken)).toBe(false);
  });

  it('gives every operation a summary, its answers and, under /v1, the API key it needs', () => {
    const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
      ([path, item]) =>
        METHODS.filter((method) => item[method] !== undefined).map((method) => ({
          path,
          method,
          operation: item[method] as Operation,
        })),
    );
    expect(operations.length).toBeGreaterThanOrEqual(18);
    for (const { path, method, operation } of operations) {
      const name = `${method.toUpperCase()} ${path}`;
      expect(operation.summary, name).toEqual(expect.any(String));
      expect(Object.keys(operation.responses), name).toContain('200');
      if (path.startsWith('/v1/')) {
        expect(operation.security, name).toEqual([{ 'X-API-Key': [] }]);
        expect(Object.keys(operation.responses), name).toContain('401');
      }
    }
  });

  it('documents the retest endpoints: queue one with a write key, follow it with any key', () => {
    const queue = document.paths['/v1/scans/{vuln_id}/retest'].post;
    expect(Object.keys(queue.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404']));
    const follow = document.paths['/v1/retest/requests/{request_id}'].get;
    expect(follow.responses['200'].content['application/json'].schema.properties.status.enum).toEqual([
      'queued',
      'running',
      'done',
      'failed',
    ]);
  });
});
