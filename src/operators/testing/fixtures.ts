import type { HeaderList } from '../../http/index.js';
import type { Value } from '../go-json.js';
import type { Extractor, Matcher, Operators } from '../model.js';
import { type CompiledOperators, compileOperators } from '../operators.js';
import { type ResponseData, responseVariables } from '../response.js';

type MatcherOptions = Partial<Omit<Matcher, 'type'>>;
type ExtractorOptions = Partial<Omit<Extractor, 'type'>>;

const matcherDefaults = {
  part: 'body',
  condition: 'or',
  negative: false,
  internal: false,
  caseInsensitive: false,
  matchAll: false,
} as const;

const extractorDefaults = { part: 'body', internal: false, caseInsensitive: false } as const;

export const word = (words: string[], options: MatcherOptions & { encoding?: 'hex' } = {}): Matcher => ({
  ...matcherDefaults,
  ...options,
  type: 'word',
  words,
});
export const regex = (patterns: string[], options: MatcherOptions = {}): Matcher => ({
  ...matcherDefaults,
  ...options,
  type: 'regex',
  regex: patterns,
});
export const status = (codes: number[], options: MatcherOptions = {}): Matcher => ({
  ...matcherDefaults,
  ...options,
  type: 'status',
  status: codes,
});
export const size = (sizes: number[], options: MatcherOptions = {}): Matcher => ({
  ...matcherDefaults,
  ...options,
  type: 'size',
  size: sizes,
});
export const binary = (values: string[], options: MatcherOptions = {}): Matcher => ({
  ...matcherDefaults,
  ...options,
  type: 'binary',
  binary: values,
});
export const xpathMatcher = (expressions: string[], options: MatcherOptions = {}): Matcher => ({
  ...matcherDefaults,
  ...options,
  type: 'xpath',
  xpath: expressions,
});
export const dslMatcher = (expressions: string[], options: MatcherOptions = {}): Matcher => ({
  ...matcherDefaults,
  ...options,
  type: 'dsl',
  dsl: expressions,
});

export const regexExtractor = (
  patterns: string[],
  options: ExtractorOptions & { group?: number } = {},
): Extractor => ({
  ...extractorDefaults,
  group: 0,
  ...options,
  type: 'regex',
  regex: patterns,
});
export const kval = (keys: string[], options: ExtractorOptions = {}): Extractor => ({
  ...extractorDefaults,
  ...options,
  type: 'kval',
  kval: keys,
});
export const json = (queries: string[], options: ExtractorOptions = {}): Extractor => ({
  ...extractorDefaults,
  ...options,
  type: 'json',
  json: queries,
});
export const xpathExtractor = (
  expressions: string[],
  options: ExtractorOptions & { attribute?: string } = {},
): Extractor => ({
  ...extractorDefaults,
  ...options,
  type: 'xpath',
  xpath: expressions,
});
export const dslExtractor = (expressions: string[], options: ExtractorOptions = {}): Extractor => ({
  ...extractorDefaults,
  ...options,
  type: 'dsl',
  dsl: expressions,
});

export function operators(parts: Partial<Operators>): CompiledOperators {
  const compiled = compileOperators({ matchers: [], extractors: [], matchersCondition: 'or', ...parts });
  if (Array.isArray(compiled)) throw new Error(JSON.stringify(compiled));
  return compiled;
}

export interface FixtureResponse {
  status?: number;
  headers?: HeaderList;
  body?: string | Uint8Array;
  variables?: [string, Value][];
}

export function response(fixture: FixtureResponse = {}): ResponseData {
  const body =
    typeof fixture.body === 'string' ? Buffer.from(fixture.body, 'utf8') : (fixture.body ?? new Uint8Array());
  return responseVariables({
    response: { status: fixture.status ?? 200, headers: fixture.headers ?? [], body },
    request: 'GET /login HTTP/1.1\r\nHost: app.test\r\n\r\n',
    host: 'https://app.test',
    matched: 'https://app.test/login',
    durationMs: 125,
    ...(fixture.variables === undefined ? {} : { variables: fixture.variables }),
  });
}

/** A login page as a typical web application serves it. */
export const loginPage = {
  status: 200,
  headers: [
    ['Server', 'Apache/2.4.57 (Debian)'],
    ['X-Powered-By', 'PHP/8.2.7'],
    ['Set-Cookie', 'PHPSESSID=9b1f0c2a7d; path=/; HttpOnly'],
    ['Set-Cookie', 'csrftoken="tok-42"; Secure'],
    ['Content-Type', 'text/html; charset=UTF-8'],
    ['Content-Length', '412'],
  ] as HeaderList,
  body: `<!DOCTYPE html>
<html lang="en">
<head><title>Sign in · Grafana</title>
<meta name="version" content="10.2.3">
</head>
<body class=login>
<div id=app><form method=post action="/login">
<input type=hidden name="csrf_token" value="a1b2c3d4e5">
<input name=user placeholder="email or username">
<p>Welcome back — добро пожаловать
<a href="/forgot">Forgot password?</a>
<a href='/signup' class=secondary>Sign up</a>
</form>
<script>window.grafanaBootData = {"settings":{"buildInfo":{"version":"10.2.3","commit":"1e84fede54"}}};</script>
</body></html>`,
};
