import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { type Logger, pino } from 'pino';
import {
  hashApiKey,
  type Principal,
  SCAN_SORT_FIELDS,
  type ScanSortField,
  type ScanStatus,
  type Store,
} from '../store/index.js';
import { PageCache } from './cache.js';
import { acceptsGzip } from './encoding.js';
import { ApiError, clientErrorHandler, errorHandler, requirePlainValues } from './errors.js';
import { KeyChecks } from './key-checks.js';
import { apiLogger } from './log.js';
import { type RateCounts, rateLimitStore, WindowCounts } from './rate-counts.js';
import { JsonText, jsonList } from './routes/page.js';
import { readRoutes } from './routes/reads.js';
import type { ScanStarter } from './routes/scan-requests.js';
import { writeRoutes } from './routes/writes.js';
import {
  AssetsQuery,
  AssetsResponse,
  DEFAULT_LIMIT,
  ERROR_RESPONSES,
  ErrorBody,
  HealthResponse,
  RetestQuery,
  RetestResponse,
  ScansQuery,
  ScansResponse,
} from './schemas.js';
import { assetItem, retestPage } from './serialize.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** The store's change token when the request arrived (see {@link PageCache}). */
    changeToken: string;
  }
}

export interface ApiOptions {
  readonly store: Store;
  /**
   * JSON logs; no credential reaches them (see {@link apiLogger}), whatever logger this is.
   * Defaults to a silent logger.
   */
  readonly logger?: Logger;
  /** Requests per minute allowed to each API key; 0 turns the limit off. */
  readonly rateLimit?: number;
  /** Where the keys' requests are counted (this process's memory by default); see {@link RateCounts}. */
  readonly rateCounts?: RateCounts;
  readonly version?: string;
  /** Serve a page again while the store is unchanged (default true); see {@link PageCache}. */
  readonly cache?: boolean;
  /** Answer HTTPS with this PEM certificate (then any intermediates) and key; plain HTTP without. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Told when a retest is queued, so an in-process runner (SQLite) starts it at once. */
  readonly onRetestQueued?: () => void;
  /** Starts the scans asked for with `POST /v1/scans`; without it that route answers 503. */
  readonly startScan?: ScanStarter;
}

/** The default per-key rate: 600 requests a minute (10/s), ample for dashboards and CI. */
export const DEFAULT_RATE_LIMIT = 600;

/** The listings, and the methods besides GET and HEAD that each also answers (see routes/writes.ts). */
const V1_PATHS: Readonly<Record<string, readonly string[]>> = {
  '/v1/scans': ['POST'],
  '/v1/assets': ['POST'],
  '/v1/retest': [],
};
const NOT_READS = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Builds the `/v1` API over a store (not listening yet: call `listen`). */
export async function buildApi(options: ApiOptions): Promise<FastifyInstance> {
  const logger = apiLogger(options.logger ?? pino({ level: 'silent' }));
  const answerError = errorHandler(logger);
  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    ...(options.tls === undefined ? {} : { https: { cert: options.tls.cert, key: options.tls.key } }),
    routerOptions: { ignoreTrailingSlash: true },
    bodyLimit: 16_384,
    // Fastify's own bodies for these are not the API's: they are answered below instead.
    return503OnClosing: false,
    frameworkErrors: (error, request, reply) => answerError(error, request, reply),
    clientErrorHandler: clientErrorHandler(logger),
    // Node answers a missing Host header with an empty 400 of its own: checked below instead.
    http: { requireHostHeader: false },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, allErrors: false } },
  });
  app.decorateRequest('principal', null);
  app.decorateRequest('changeToken', '');
  app.setErrorHandler(answerError);
  requireHostHeader(app);
  answerWhileClosing(app);
  // Node answers an `Expect` it does not know with an empty 417 of its own.
  app.server.on('checkExpectation', (_request, response) => {
    const body = JSON.stringify({
      message: 'only "Expect: 100-continue" is supported; send the request without its Expect header',
      code: 'expectation_failed',
    });
    response.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .send({ message: `no route ${request.method} ${request.url.split('?')[0]}`, code: 'not_found' }),
  );

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'keyhole API',
        version: options.version ?? '0.1.0',
        description:
          'The scans, findings, asset lists and retest results of the API key’s team: reads for any key; uploads, triage, retests and deletion for a write key.',
      },
      components: { securitySchemes: { 'X-API-Key': { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
    },
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness and store reachability (no key needed)',
        response: { 200: HealthResponse, 503: ErrorBody },
      },
    },
    async () => {
      await options.store.ping();
      return { status: 'ok' as const };
    },
  );

  for (const [url, writes] of Object.entries(V1_PATHS)) {
    const allowed = ['GET', 'HEAD', ...writes].join(', ');
    app.route({
      method: NOT_READS.filter((method) => !writes.includes(method)),
      url,
      schema: { hide: true },
      handler: async (request, reply) => {
        reply.header('allow', allowed);
        throw new ApiError(
          405,
          'method_not_allowed',
          `${request.method} is not allowed on ${url}; use ${allowed}`,
        );
      },
    });
  }

  await app.register(async (v1) => v1Routes(v1, options), { prefix: '/v1' });
  return app;
}

async function v1Routes(v1: FastifyInstance, options: ApiOptions): Promise<void> {
  const { store } = options;
  const cache = options.cache === false ? undefined : new PageCache();
  const keyChecks = new KeyChecks<Principal>();
  v1.addHook('onRequest', async (request) => {
    request.changeToken = await store.changeToken();
    cache?.observe(request.changeToken);
    keyChecks.observe(request.changeToken);
    request.principal = await authenticate(store, request, keyChecks);
  });
  /**
   * The page for this request: kept bytes when the team's page is cached under the store's
   * current token (after auth, limits and validation), otherwise rendered by `read`. Pages of a
   * kilobyte or more are sent gzipped to clients that accept gzip, compressed once, for the first.
   */
  const page = async <T>(
    request: FastifyRequest,
    reply: FastifyReply,
    read: () => Promise<{ payload: T | JsonText; live: boolean }>,
  ): Promise<T | string | Buffer> => {
    if (cache === undefined) {
      const { payload } = await read();
      if (!(payload instanceof JsonText)) return payload;
      reply.type('application/json; charset=utf-8');
      return payload.text;
    }
    const served = await cache.serve(request.changeToken, `${teamOf(request)}\n${request.url}`, async () => {
      const { payload, live } = await read();
      return { body: bytesOf(payload instanceof JsonText ? payload.text : reply.serialize(payload)), live };
    });
    reply.type('application/json; charset=utf-8');
    reply.header('vary', 'Accept-Encoding');
    if (served.hit) reply.header('x-cache', 'hit');
    if (!acceptsGzip(request.headers['accept-encoding'])) return served.body;
    const gzip = await served.gzipped();
    if (gzip === undefined) return served.body;
    reply.header('content-encoding', 'gzip');
    return gzip;
  };
  const perMinute = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  if (perMinute > 0) {
    await v1.register(rateLimit, {
      hook: 'preHandler',
      max: perMinute,
      timeWindow: 60_000,
      store: rateLimitStore(options.rateCounts ?? new WindowCounts()),
      keyGenerator: (request) => request.principal?.keyId ?? request.ip,
      errorResponseBuilder: (_request, context) => ({
        statusCode: 429,
        message: `rate limit of ${context.max} requests per minute for this API key exceeded; retry in ${context.after}`,
      }),
    });
  }
  v1.addHook('preValidation', requirePlainValues);
  await v1.register(readRoutes, { store, page });
  const security = [{ 'X-API-Key': [] }];

  v1.get(
    '/scans',
    {
      schema: {
        summary: 'Get scan statuses',
        description: 'The team’s scans, newest first (created_at desc, then scan_id desc).',
        security,
        querystring: ScansQuery,
        response: { 200: ScansResponse, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const query = request.query as ScansQuery;
      const sort = sortOf(query);
      return page(request, reply, async () => {
        const team = teamOf(request);
        const window = {
          offset: query.offset ?? 0,
          limit: query.limit ?? DEFAULT_LIMIT,
          ...(query.status === undefined ? {} : { statuses: query.status.split(',') as ScanStatus[] }),
          search: query.search,
          sort,
        };
        const message = 'Successfully retrieved scans';
        const served = await store.scans.servedPage(team, window, Date.now());
        return { payload: listOf(message, 'data', served.json), live: served.live };
      });
    },
  );

  v1.get(
    '/assets',
    {
      schema: {
        summary: 'Get the asset list',
        description: 'The team’s asset lists, newest first (uploaded_at desc, then asset_id desc).',
        security,
        querystring: AssetsQuery,
        response: { 200: AssetsResponse, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const query = request.query as AssetsQuery;
      return page(request, reply, async () => {
        const lists = await store.assets.list(teamOf(request), {
          offset: query.offset ?? 0,
          limit: query.limit ?? DEFAULT_LIMIT,
          search: query.search,
        });
        return {
          payload: { message: 'Successfully retrieved assets', data: lists.map(assetItem) },
          live: false,
        };
      });
    },
  );

  v1.get(
    '/retest',
    {
      schema: {
        summary: 'Get retest results',
        description:
          'The team’s retest results, newest first (created_at desc). `offset` and `limit` are required.',
        security,
        querystring: RetestQuery,
        response: { 200: RetestResponse, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const query = request.query as RetestQuery;
      return page(request, reply, async () => {
        const team = teamOf(request);
        const window = { offset: query.offset, limit: query.limit };
        const message = 'Successfully retrieved retest results';
        const items = await store.retests.servedPage(team, window);
        const payload =
          items === undefined
            ? new JsonText(retestPage(message, await store.retests.served(team, window)))
            : listOf(message, 'results', items);
        return { payload, live: false };
      });
    },
  );
  await v1.register(writeRoutes, {
    store,
    onRetestQueued: options.onRetestQueued,
    startScan: options.startScan,
  });
}

/** HTTP/1.1 requires a Host header (RFC 9112, section 3.2). */
function requireHostHeader(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw new ApiError(400, 'bad_request', 'an HTTP/1.1 request needs a Host header');
    }
  });
}

/**
 * Once the server is closing, requests that still arrive on open connections (the ones in flight
 * are finished) are answered 503 with `Retry-After`, so a load balancer sends them elsewhere.
 */
function answerWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('retry-after', '5');
    throw new ApiError(503, 'shutting_down', 'the server is shutting down; retry in a few seconds');
  });
}

async function authenticate(
  store: Store,
  request: FastifyRequest,
  keyChecks: KeyChecks<Principal>,
): Promise<Principal> {
  const header = request.headers['x-api-key'];
  if (header === undefined || header === '') {
    throw new ApiError(
      401,
      'unauthorized',
      'missing API key: send it in the X-API-Key header (`keyhole keys create` makes one)',
    );
  }
  if (typeof header !== 'string')
    throw new ApiError(401, 'unauthorized', 'send exactly one X-API-Key header');
  const hash = hashApiKey(header);
  let principal = keyChecks.get(hash);
  if (principal === undefined) {
    principal = (await store.keys.authenticate(header)) ?? null;
    keyChecks.remember(request.changeToken, hash, principal);
  }
  if (principal === null) throw new ApiError(401, 'unauthorized', 'invalid or revoked API key');
  return principal;
}

/** `{"message":…,"<field>":[…]}` around a list's items written by SQLite, sent as the bytes they are. */
function listOf(message: string, field: string, items: Buffer): JsonText {
  return jsonList(`{"message":${JSON.stringify(message)},${JSON.stringify(field)}:[`, items);
}

function bytesOf(serialized: string | ArrayBuffer | Buffer): Buffer {
  if (typeof serialized === 'string') return Buffer.from(serialized, 'utf8');
  return Buffer.isBuffer(serialized) ? serialized : Buffer.from(serialized);
}

function teamOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal === null) throw new ApiError(401, 'unauthorized', 'missing API key');
  return principal.teamId;
}

function sortOf(query: ScansQuery): { field: ScanSortField; direction: 'asc' | 'desc' }[] {
  const ascending = query.sort_asc?.split(',') ?? [];
  const descending = query.sort_desc?.split(',') ?? [];
  const both = ascending.find((field) => descending.includes(field));
  if (both !== undefined) {
    throw new ApiError(
      400,
      'invalid_parameter',
      `sort_desc: "${both}" is also in sort_asc; sort by a field one way`,
      'sort_desc',
    );
  }
  const fields = (list: string[], direction: 'asc' | 'desc') =>
    list.filter((f): f is ScanSortField => f in SCAN_SORT_FIELDS).map((field) => ({ field, direction }));
  return [...fields(ascending, 'asc'), ...fields(descending, 'desc')];
}
