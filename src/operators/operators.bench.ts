import { type BenchSuite, rate } from '../bench/report.js';
import type { Extractor, Matcher, Operators } from './model.js';
import { compileOperators } from './operators.js';
import { responseVariables } from './response.js';

/**
 * Full matcher + extractor evaluations per second on a realistic 100 KB HTML response, against the
 * same checks written by hand with `String.includes` and a JavaScript RegExp: a template of word,
 * status and regex operators, and a template whose matchers and extractor are dsl expressions.
 */
export const suite: BenchSuite = async (report) => {
  const body = page(100 * 1024);
  const headers: [string, string][] = [
    ['Server', 'nginx/1.25.3'],
    ['Content-Type', 'text/html; charset=utf-8'],
    ['Set-Cookie', 'grafana_session=5f1c0d; Path=/; HttpOnly'],
    ['Content-Length', String(Buffer.byteLength(body))],
  ];
  const data = responseVariables({
    response: { status: 200, headers, body: Buffer.from(body) },
    request: 'GET /login HTTP/1.1\r\nHost: app.test\r\n\r\n',
    host: 'https://app.test',
    matched: 'https://app.test/login',
    durationMs: 42,
  });
  const compiled = compileOperators(detectionTemplate);
  if (Array.isArray(compiled)) throw new Error('benchmark template does not compile');
  if (!compiled.execute(data).matched) throw new Error('benchmark template does not match');
  const compiledDsl = compileOperators(dslTemplate);
  if (Array.isArray(compiledDsl)) throw new Error('dsl benchmark template does not compile');
  const dslResult = compiledDsl.execute(data);
  if (!dslResult.matched || dslResult.outputExtracts[0] !== 'NGINX/1.25.3') {
    throw new Error('dsl benchmark template does not match');
  }

  const versionRegex = /"version":"([0-9.]+)"/g;
  const handWritten = (): boolean => {
    const header = `HTTP/1.1 200 OK\r\n${headers.map(([n, v]) => `${n}: ${v}`).join('\r\n')}\r\n\r\n`;
    const matched =
      body.includes('<title>Grafana</title>') && body.includes('grafana-app') && header.includes('text/html');
    const versions = new Set<string>();
    for (const match of body.matchAll(versionRegex)) versions.add(match[1] ?? '');
    return matched && versions.size > 0;
  };

  const firstVersion = /"version":"([0-9.]+)"/;
  const handWrittenDsl = (): boolean => {
    const header = (name: string): string => headers.find(([n]) => n.toLowerCase() === name)?.[1] ?? '';
    const matched =
      data.variables.get('status_code') === 200 &&
      header('content-type').toLowerCase().includes('text/html') &&
      body.includes('<title>Grafana</title>') &&
      body.includes('grafana-app');
    const version = firstVersion.exec(body)?.[1];
    if (!matched || version === undefined) return false;
    const [major = 0, minor = 0] = version.split('.').map(Number);
    return (major < 10 || (major === 10 && minor < 4)) && header('server').toUpperCase() !== '';
  };

  // The map is lazy: a value is computed when first read. Read what nearly every template reads.
  const build = (): unknown => {
    const { variables } = responseVariables({
      response: { status: 200, headers, body: Buffer.from(body) },
      request: '',
      host: 'https://app.test',
      matched: 'https://app.test/login',
      durationMs: 42,
    });
    return [variables.get('body'), variables.get('all_headers'), variables.get('content_type')];
  };
  // Rounds alternate the measures and keep each one's best rate, so that a burst of load from other
  // processes on the shared machine does not skew one side of the ratio.
  let keyhole = 0;
  let baseline = 0;
  let building = 0;
  let keyholeDsl = 0;
  let baselineDsl = 0;
  for (let round = 0; round < 3; round++) {
    baseline = Math.max(baseline, rate(handWritten, 500, 20));
    keyhole = Math.max(
      keyhole,
      rate(() => compiled.execute(data), 500, 20),
    );
    building = Math.max(building, rate(build, 500, 20));
    baselineDsl = Math.max(baselineDsl, rate(handWrittenDsl, 500, 20));
    keyholeDsl = Math.max(
      keyholeDsl,
      rate(() => compiledDsl.execute(data), 500, 20),
    );
  }
  report.heading('Operators');
  report.note(
    'A detection template (`matchers-condition: and` over two body words, a header word and a status, ' +
      'plus a regex extractor with a group) on a 100 KB HTML response. Baseline: the same checks written ' +
      'by hand with String.includes and a JavaScript RegExp.',
  );
  report.table(
    ['measure', 'evaluations/s', 'ratio to baseline'],
    [
      ['hand-written checks (baseline)', baseline, '1.00'],
      ['keyhole execute (words + status + regex extractor)', keyhole, (keyhole / baseline).toFixed(2)],
      [
        'keyhole responseVariables (the variables map; body, header dump and a header read)',
        building,
        (building / baseline).toFixed(2),
      ],
    ],
  );
  report.note(
    'The same response through a template written with dsl expressions (status, a lower-cased header, ' +
      'contains_all over the body, compare_versions on a version taken by an internal regex extractor, ' +
      'a dsl extractor). Baseline: the same checks written by hand.',
  );
  report.table(
    ['measure', 'evaluations/s', 'ratio to baseline'],
    [
      ['hand-written checks (baseline)', baselineDsl, '1.00'],
      [
        'keyhole execute (dsl matchers + regex and dsl extractors)',
        keyholeDsl,
        (keyholeDsl / baselineDsl).toFixed(2),
      ],
      ['keyhole execute, dsl template ÷ word template', '', (keyholeDsl / keyhole).toFixed(2)],
    ],
  );
};

const base = {
  part: 'body',
  condition: 'and',
  negative: false,
  internal: false,
  caseInsensitive: false,
  matchAll: false,
} as const;

const matchers: Matcher[] = [
  { ...base, type: 'word', words: ['<title>Grafana</title>', 'grafana-app'] },
  { ...base, type: 'word', part: 'header', words: ['text/html'] },
  { ...base, type: 'status', status: [200] },
];

const extractors: Extractor[] = [
  {
    type: 'regex',
    part: 'body',
    internal: false,
    caseInsensitive: false,
    name: 'version',
    group: 1,
    regex: ['"version":"([0-9.]+)"'],
  },
];

const detectionTemplate: Operators = { matchers, extractors, matchersCondition: 'and' };

/** The same detection as nuclei-templates often write it: dsl matchers and a dsl extractor. */
const dslTemplate: Operators = {
  matchersCondition: 'and',
  matchers: [
    {
      ...base,
      type: 'dsl',
      dsl: [
        'status_code == 200',
        'contains(tolower(content_type), "text/html")',
        'contains_all(body, "<title>Grafana</title>", "grafana-app")',
      ],
    },
    { ...base, type: 'dsl', name: 'vulnerable', dsl: ['compare_versions(version, "< 10.4.0")'] },
  ],
  extractors: [
    { ...extractors[0]!, internal: true },
    { type: 'dsl', part: 'body', internal: false, caseInsensitive: false, dsl: ['to_upper(server)'] },
  ],
};

/** An HTML page of about `bytes` bytes: a head, many rows of markup, the version near the end. */
function page(bytes: number): string {
  const rows: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const row = `<tr class="row-${i}"><td><a href="/d/${i}/dashboard-${i}">Dashboard ${i}</a></td><td>updated ${i % 60} minutes ago by user${i % 7}</td></tr>\n`;
    rows.push(row);
    length += row.length;
  }
  return `<!DOCTYPE html><html><head><title>Grafana</title></head><body><grafana-app class="grafana-app"><table>\n${rows.join('')}</table>
<script>window.grafanaBootData = {"settings":{"buildInfo":{"version":"10.2.3","commit":"1e84fede54"}}};</script></grafana-app></body></html>`;
}
