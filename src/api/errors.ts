import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { SEVERITIES } from '../event/index.js';
import { isStoreUnavailable, newId, SCAN_SORT_FIELDS, SCAN_STATUSES, VULN_STATUSES } from '../store/index.js';
import { urlForLog } from './log.js';
import type { ErrorBody } from './schemas.js';

/** An error the API answers with as it is: a status, a stable code and a message for people. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  body(): ErrorBody {
    return this.param === undefined
      ? { message: this.message, code: this.code }
      : { message: this.message, code: this.code, param: this.param };
  }
}

const ALLOWED_VALUES: Record<string, readonly string[]> = {
  status: SCAN_STATUSES,
  sort_asc: Object.keys(SCAN_SORT_FIELDS),
  sort_desc: Object.keys(SCAN_SORT_FIELDS),
  severity: SEVERITIES,
  vuln_status: VULN_STATUSES,
};

interface PropertySchema {
  readonly type?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maxLength?: number;
  readonly enum?: readonly string[];
}

/** What a query parameter must be, in words, from its schema. */
export function expectation(param: string, schema: PropertySchema | undefined): string {
  const allowed = ALLOWED_VALUES[param];
  if (allowed !== undefined) return `one value or a comma-separated list of: ${allowed.join(', ')}`;
  if (schema?.enum !== undefined) return `one of: ${schema.enum.join(', ')}`;
  if (schema?.type === 'integer') {
    if (schema.maximum !== undefined) return `an integer from ${schema.minimum ?? 0} to ${schema.maximum}`;
    return `an integer, ${schema.minimum ?? 0} or more`;
  }
  if (schema?.maxLength !== undefined) return `a string of at most ${schema.maxLength} characters`;
  return 'a valid value';
}

function shown(value: unknown): string {
  const text = Array.isArray(value) ? `${value.length} values` : JSON.stringify(String(value));
  return text.length > 60 ? `${text.slice(0, 57)}…"` : text;
}

function invalidValue(param: string, raw: unknown, schema: PropertySchema | undefined): ApiError {
  const allowed = ALLOWED_VALUES[param];
  if (allowed !== undefined && typeof raw === 'string') {
    const unknown = raw.split(',').find((word) => !allowed.includes(word));
    if (unknown !== undefined) {
      return new ApiError(
        400,
        'invalid_parameter',
        `${param}: unknown value ${shown(unknown)}; allowed: ${allowed.join(', ')} (one or a comma-separated list)`,
        param,
      );
    }
  }
  return new ApiError(
    400,
    'invalid_parameter',
    `${param}: must be ${expectation(param, schema)}; got ${shown(raw)}`,
    param,
  );
}

type QuerySchema = { readonly properties?: Record<string, PropertySchema> } | undefined;

function querySchemaOf(request: FastifyRequest): QuerySchema {
  return request.routeOptions.schema?.querystring as QuerySchema;
}

/**
 * Integer parameters must be written as plain decimal digits, within their maximum: the validator
 * alone would accept `1e2`, `0x10` or ` 5` by coercion, and see `9007199254740993` as its rounded
 * neighbour. Text parameters must hold no NUL, which PostgreSQL text cannot hold, so that a
 * value means the same on both engines.
 */
export async function requirePlainValues(request: FastifyRequest): Promise<void> {
  const properties = querySchemaOf(request)?.properties ?? {};
  const query = request.query as Record<string, unknown>;
  for (const [param, schema] of Object.entries(properties)) {
    const raw = query[param];
    if (raw === undefined) continue;
    if (schema.type === 'integer' && !isPlainInteger(raw, schema)) throw invalidValue(param, raw, schema);
    if (schema.type === 'string' && typeof raw === 'string' && raw.includes('\0')) {
      throw new ApiError(
        400,
        'invalid_parameter',
        `${param}: must not contain NUL (%00); got ${shown(raw)}`,
        param,
      );
    }
  }
}

/** Decimal digits within the schema's maximum, compared exactly (as a number, 2^53 + 1 rounds down). */
function isPlainInteger(raw: unknown, schema: PropertySchema): boolean {
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) return false;
  return schema.maximum === undefined || BigInt(raw) <= BigInt(schema.maximum);
}

interface ValidationIssue {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Record<string, unknown>;
}

function fromValidation(request: FastifyRequest, issues: readonly ValidationIssue[]): ApiError {
  const schema = querySchemaOf(request);
  const properties = schema?.properties ?? {};
  const issue = issues[0];
  const allowedNames = Object.keys(properties).join(', ');
  if (issue?.keyword === 'required') {
    const param = String(issue.params.missingProperty);
    return new ApiError(
      400,
      'invalid_parameter',
      `${param}: required; give ${expectation(param, properties[param])}`,
      param,
    );
  }
  if (issue?.keyword === 'additionalProperties') {
    const param = String(issue.params.additionalProperty);
    return new ApiError(
      400,
      'invalid_parameter',
      `unknown query parameter ${shown(param)}; this endpoint takes: ${allowedNames}`,
      param,
    );
  }
  const param = issue?.instancePath.replace(/^\//, '') ?? '';
  if (param === '') return new ApiError(400, 'invalid_parameter', 'invalid query string');
  return invalidValue(param, (request.query as Record<string, unknown>)[param], properties[param]);
}

/**
 * Turns every error into the API's JSON error body with the right status: never a stack trace,
 * never HTML, never internals. Unexpected errors are logged with an id the 500 answer quotes.
 */
export function errorHandler(logger: Logger) {
  return (error: FastifyError | ApiError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error, request);
    if (apiError.statusCode >= 500 && apiError.code === 'internal_error') {
      const errorId = newId();
      logger.error(
        { err: error, error_id: errorId, method: request.method, url: urlForLog(request.url) },
        'request failed',
      );
      return reply.status(500).send({ ...apiError.body(), error_id: errorId });
    }
    if (apiError.code === 'store_unavailable') {
      logger.warn(
        { err: { message: error.message, code: (error as { code?: unknown }).code } },
        'store unavailable',
      );
      reply.header('retry-after', '5');
    }
    return reply.status(apiError.statusCode).send(apiError.body());
  };
}

function toApiError(error: Error, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  const validation = (error as FastifyError).validation;
  if (validation !== undefined) return fromValidation(request, validation as unknown as ValidationIssue[]);
  if (isStoreUnavailable(error)) {
    return new ApiError(
      503,
      'store_unavailable',
      'the store is unreachable right now; retry in a few seconds',
    );
  }
  const status = (error as { statusCode?: unknown }).statusCode;
  if (status === 429) return new ApiError(429, 'rate_limited', error.message);
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError(status, codeForStatus(status), error.message);
  }
  return new ApiError(
    500,
    'internal_error',
    'internal error; the server log has the details under this error_id',
  );
}

function codeForStatus(status: number): string {
  switch (status) {
    case 401:
      return 'unauthorized';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    default:
      return 'bad_request';
  }
}

/** What a request Node's parser refused is answered with, by the parser's error code. */
const CLIENT_ERRORS: Readonly<Record<string, { status: number; code: string; message: string }>> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'headers_too_large',
    message: 'the request line and headers exceed 16 KB; send a shorter URL or fewer headers',
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    status: 413,
    code: 'payload_too_large',
    message: 'the chunk extensions of the request body are too large',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'request_timeout',
    message: 'the request did not arrive in time',
  },
};

const MALFORMED = {
  status: 400,
  code: 'bad_request',
  message: 'malformed HTTP request',
} as const;

/**
 * Answers a request that Node's HTTP parser refused (malformed, headers too large, too slow) with
 * the API's JSON error body, as {@link errorHandler} answers every other error, and closes the
 * connection. The error is logged by its code only: its raw bytes may hold an API key.
 */
export function clientErrorHandler(logger: Logger) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const answer = (error.code === undefined ? undefined : CLIENT_ERRORS[error.code]) ?? MALFORMED;
    logger.debug({ code: error.code, status: answer.status }, 'client error');
    // A response already under way on this connection would be corrupted by another one.
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && inFlight?.headersSent !== true) {
      const body = JSON.stringify({ message: answer.message, code: answer.code });
      socket.write(
        `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          'Connection: close\r\n\r\n' +
          body,
      );
    }
    socket.destroy();
  };
}
