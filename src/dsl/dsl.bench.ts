/**
 * Evaluations per second of realistic matcher expressions against a 100 KB response, each next to the
 * equivalent hand-written JavaScript measured in the same run. The expressions are compiled once, as the
 * engine does; the ratio is the cost of the language over code written for one expression.
 */
import type { BenchSuite, Report } from '../bench/report.js';
import { rate } from '../bench/report.js';
import { GoRegex } from '../regex/index.js';
import { compileExpression, compileTemplateString, type DslValue } from './index.js';

/** A WordPress-like page of about 100 KB whose distinctive strings sit near the end. */
function responseBody(): string {
  const lines: string[] = ['<!DOCTYPE html>', '<html lang="en-US">', '<head><title>Blog</title>'];
  let index = 0;
  while (lines.join('\n').length < 100 * 1024) {
    lines.push(
      `<div class="post post-${index}"><a href="/2024/01/${index}/entry-${index}/">Entry ${index}</a>`,
      `<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor ${index}.</p></div>`,
    );
    index += 1;
  }
  lines.push(
    '<link rel="stylesheet" href="/wp-content/themes/twentytwenty/style.css">',
    '<script src="/wp-includes/js/jquery/jquery.min.js"></script>',
    '<meta name="generator" content="WordPress 5.8.1">',
    '<footer>Proudly powered by WordPress 5.8.1</footer>',
    '</body></html>',
  );
  return lines.join('\n');
}

const HEADER =
  'HTTP/1.1 200 OK\r\nServer: nginx/1.25.3\r\nContent-Type: Application/JSON; charset=UTF-8\r\nSet-Cookie: session=abc; HttpOnly\r\n';

interface Case {
  readonly expression: string;
  readonly baseline: (scope: ReadonlyMap<string, DslValue>) => unknown;
}

function versionAtMost(version: string, limit: readonly number[]): boolean {
  const parts = version.split('.').map(Number);
  for (let i = 0; i < limit.length; i++) {
    const part = parts[i] ?? 0;
    const bound = limit[i] as number;
    if (part !== bound) return part < bound;
  }
  return true;
}

const WORDPRESS_GO = '(?i)powered by wordpress ([0-9.]+)';
const wordpressJs = /powered by wordpress ([0-9.]+)/i;

const CASES: readonly Case[] = [
  {
    expression: 'status_code == 200 && contains(body, "powered by WordPress")',
    baseline: (scope) =>
      scope.get('status_code') === 200 && (scope.get('body') as string).includes('powered by WordPress'),
  },
  {
    expression: 'contains_all(body, "wp-content", "wp-includes", "</html>")',
    baseline: (scope) => {
      const body = scope.get('body') as string;
      return body.includes('wp-content') && body.includes('wp-includes') && body.includes('</html>');
    },
  },
  {
    expression: 'contains(tolower(header), "application/json")',
    baseline: (scope) => (scope.get('header') as string).toLowerCase().includes('application/json'),
  },
  {
    expression: "compare_versions(version, '<= 5.8.1')",
    baseline: (scope) => versionAtMost(scope.get('version') as string, [5, 8, 1]),
  },
  {
    expression: `regex('${WORDPRESS_GO}', body)`,
    baseline: (scope) => wordpressJs.test(scope.get('body') as string),
  },
  {
    expression: 'status_code == 200 && len(body) > 1000 && !contains(tolower(body), "<title>404")',
    baseline: (scope) => {
      const body = scope.get('body') as string;
      return (
        scope.get('status_code') === 200 &&
        Buffer.byteLength(body) > 1000 &&
        !body.toLowerCase().includes('<title>404')
      );
    },
  },
];

/**
 * Calls per second of `dsl` and of `baseline`, measured in alternating rounds (the machine is shared, so
 * its speed drifts) and keeping each side's best round.
 */
function compareRates(dsl: () => unknown, baseline: () => unknown, batch = 1000): [number, number] {
  let best: [number, number] = [0, 0];
  for (let round = 0; round < 3; round++) {
    const dslRate = rate(dsl, 400, batch);
    const baselineRate = rate(baseline, 400, batch);
    best = [Math.max(best[0], dslRate), Math.max(best[1], baselineRate)];
  }
  return best;
}

function compiled(source: string): (scope: ReadonlyMap<string, DslValue>) => DslValue {
  const expression = compileExpression(source);
  if (!('evaluate' in expression)) throw new Error(`${source}: ${expression.message}`);
  return (scope) => expression.evaluate(scope);
}

function measureExpressions(report: Report, scope: ReadonlyMap<string, DslValue>): void {
  const rows: (string | number)[][] = [];
  for (const { expression, baseline } of CASES) {
    const evaluate = compiled(expression);
    if (evaluate(scope) !== baseline(scope)) throw new Error(`${expression}: the baseline disagrees`);
    const [dslRate, baselineRate] = compareRates(
      () => evaluate(scope),
      () => baseline(scope),
      expression.startsWith('regex') ? 10 : 1000,
    );
    rows.push([`\`${expression}\``, dslRate, baselineRate, `${(dslRate / baselineRate).toFixed(2)}×`]);
  }
  report.table(['expression', 'DSL evaluations/s', 'hand-written JS/s', 'DSL ÷ JS'], rows);
}

interface RegexCase {
  readonly go: string;
  readonly js: RegExp;
  readonly what: string;
}

/** Regexes of real templates (and one extractor with many matches), with the same regex for V8. */
const REGEX_CASES: readonly RegexCase[] = [
  { go: WORDPRESS_GO, js: wordpressJs, what: 'matches near the end' },
  { go: '(?i)Stable.tag:\\s?([\\w.]+)', js: /Stable.tag:\s?([\w.]+)/i, what: 'akismet.yaml, no match' },
  { go: 'root:.*:0:0:', js: /root:.*:0:0:/, what: 'generic-linux-lfi.yaml, no match' },
  {
    go: '(?i)Apache Tomcat.*([0-9]\\.[0-9]+\\.[0-9]+)',
    js: /Apache Tomcat.*([0-9]\.[0-9]+\.[0-9]+)/i,
    what: 'tomcat-detect.yaml, no match',
  },
  {
    go: '(A3T[A-Z0-9]|AKIA|AGPA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}',
    js: /(A3T[A-Z0-9]|AKIA|AGPA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}/,
    what: 'aws-credentials.yaml, no match',
  },
  {
    go: 'href="(/[0-9]+/[0-9]+/[0-9]+/entry-[0-9]+/)"',
    js: /href="(\/[0-9]+\/[0-9]+\/[0-9]+\/entry-[0-9]+\/)"/,
    what: 'a match on every post',
  },
];

function goRegex(source: string): GoRegex {
  const compiled = GoRegex.compile(source);
  if (!(compiled instanceof GoRegex)) throw new Error(compiled.message);
  return compiled;
}

/** All matches with their groups, as an extractor takes them. */
function v8FindAll(regex: RegExp, text: string): string[][] {
  const global = new RegExp(regex.source, `${regex.flags}g`);
  return [...text.matchAll(global)].map((match) => [...match].map((group) => group ?? ''));
}

function regexRow(name: string, engine: string, ours: () => unknown, v8: () => unknown): (string | number)[] {
  const [oursRate, v8Rate] = compareRates(ours, v8, 10);
  // A | in a pattern would end the Markdown cell.
  return [name.replaceAll('|', '\\|'), engine, oursRate, v8Rate, `${(oursRate / v8Rate).toFixed(2)}×`];
}

function measureRegexEngine(report: Report, scope: ReadonlyMap<string, DslValue>): void {
  const body = scope.get('body') as string;
  const rows: (string | number)[][] = [];
  for (const { go, js, what } of REGEX_CASES) {
    const regex = goRegex(go);
    if (regex.test(body) !== js.test(body)) throw new Error(`${go}: V8 disagrees`);
    const found = regex.findAll(body).map((match) => match.groups.map((group) => group ?? ''));
    if (JSON.stringify(found) !== JSON.stringify(v8FindAll(js, body)))
      throw new Error(`${go}: V8 finds otherwise`);
    rows.push(
      regexRow(
        `test \`${go}\` (${what})`,
        regex.engine,
        () => regex.test(body),
        () => js.test(body),
      ),
    );
    rows.push(
      regexRow(
        `find all \`${go}\` (${found.length} found)`,
        regex.engine,
        () => regex.findAll(body),
        () => v8FindAll(js, body),
      ),
    );
  }
  const wordpress = goRegex(WORDPRESS_GO);
  rows.push(
    regexRow(
      `test \`${WORDPRESS_GO}\` on a new string each call`,
      wordpress.engine,
      () => wordpress.test(body.slice(1)),
      () => wordpressJs.test(body.slice(1)),
    ),
  );
  report.note(
    'Template regexes on the same 100 KB body: keyhole’s GoRegex (Go RE2 semantics, linear time; on V8’s ' +
      'engine where the pattern is proven linear there, on RE2 otherwise) against V8’s own RegExp ' +
      '(backtracking) on the same input, measured in alternating rounds in the same run.',
  );
  report.table(['regex over 100 KB', 'engine', 'GoRegex calls/s', 'V8 RegExp calls/s', 'GoRegex ÷ V8'], rows);
}

function measureTemplate(report: Report): void {
  const text = 'Authorization: Basic {{base64(username + ":" + password)}}\r\nHost: {{Hostname}}';
  const template = compileTemplateString(text);
  if (!('render' in template)) throw new Error(template.message);
  const scope = new Map<string, DslValue>([
    ['username', 'admin'],
    ['password', 'correct horse battery staple'],
    ['Hostname', 'app.test'],
  ]);
  const baseline = (): string =>
    `Authorization: Basic ${Buffer.from(`${scope.get('username')}:${scope.get('password')}`).toString('base64')}\r\nHost: ${scope.get('Hostname')}`;
  if (template.render(scope).text !== baseline()) throw new Error('the template baseline disagrees');
  const [renderRate, baselineRate] = compareRates(() => template.render(scope), baseline);
  report.table(
    ['request template', 'renders/s', 'template literal/s', 'DSL ÷ JS'],
    [
      [
        `\`${text.replaceAll('\r\n', '\\r\\n')}\``,
        renderRate,
        baselineRate,
        `${(renderRate / baselineRate).toFixed(2)}×`,
      ],
    ],
  );
}

export const suite: BenchSuite = async (report) => {
  const body = responseBody();
  const scope = new Map<string, DslValue>([
    ['status_code', 200],
    ['body', body],
    ['header', HEADER],
    ['version', '5.7.2'],
  ]);
  report.heading('DSL');
  report.note(
    `Compiled once, evaluated against a ${Math.round(Buffer.byteLength(body) / 1024)} KB HTML response; each row next to the equivalent hand-written JavaScript measured in the same run.`,
  );
  measureExpressions(report, scope);
  measureRegexEngine(report, scope);
  measureTemplate(report);
  // A scan of real templates shows what the regex engine costs next to the HTTP exchange.
  const { measureRegexScan } = await import('../scan/regex-scan.bench.js');
  await measureRegexScan(report);
};
