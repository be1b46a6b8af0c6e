/**
 * Property: whatever the secret file (entries of every type, scoped by domains or domains-regex over
 * three loopback hosts) and whatever a template does (requests to its target, absolute URLs to other
 * hosts, redirects across hosts), every request a host receives carries exactly the secret the
 * matching rules choose for that host, and no other entry's value.
 */
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../http/index.js';
import { loadSecretFiles, SecretResolver } from '../secretfile/index.js';
import { chain, transportDispatch, withSecrets } from '../send/index.js';
import { parseTemplate } from '../template/index.js';
import { runScan } from './run-scan.js';
import { ScanStats } from './stats.js';
import { type SeenRequest, startHosts, type TestHost } from './testing/hosts.js';
import { Workspace } from './testing/workspace.js';

type Kind = 'basicauth' | 'bearertoken' | 'header' | 'cookie' | 'query';

interface Entry {
  readonly kind: Kind;
  readonly scope: 'domains' | 'domains-regex';
  /** Indexes of the hosts it covers. */
  readonly hosts: readonly number[];
}

type Step =
  | { readonly kind: 'target' }
  | { readonly kind: 'absolute'; readonly host: number }
  | { readonly kind: 'redirect'; readonly host: number };

let hosts: TestHost[];
let ws: Workspace;
const client = new HttpClient({ timeoutMs: 5000 });

beforeAll(async () => {
  hosts = await startHosts((request) => {
    if (request.path === '/go') {
      const to = hosts[Number(request.query.get('to'))] as TestHost;
      return { status: 302, headers: { Location: `${to.origin}/landed` } };
    }
    return { body: 'ok' };
  });
  ws = new Workspace();
});

afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  await client.close();
  ws.remove();
});

/** A value only this entry sends, in the field its type uses. */
function secretLines(entry: Entry, index: number): string {
  const value = `entry${index}value`;
  switch (entry.kind) {
    case 'basicauth':
      return `    username: entry${index}user\n    password: ${value}`;
    case 'bearertoken':
      return `    token: ${value}`;
    case 'header':
      return `    headers: [{key: X-Entry-${index}, value: ${value}}]`;
    case 'cookie':
      return `    cookies: [{key: c${index}, value: ${value}}]`;
    case 'query':
      return `    params: [{key: q${index}, value: ${value}}]`;
  }
}

/** What an entry leaves in the bytes of a request it applies to. */
function footprint(entry: Entry, index: number): string {
  if (entry.kind === 'basicauth')
    return Buffer.from(`entry${index}user:entry${index}value`).toString('base64');
  return `entry${index}value`;
}

function secretFile(entries: readonly Entry[]): string {
  const lines = entries.map((entry, i) => {
    const authorities = entry.hosts.map((h) => (hosts[h] as TestHost).authority);
    const scope =
      entry.scope === 'domains'
        ? `domains: [${authorities.map((a) => JSON.stringify(a)).join(', ')}]`
        : `domains-regex: ['(${authorities.map((a) => a.replaceAll('.', '\\.')).join('|')})']`;
    return `  - type: ${entry.kind}\n    ${scope}\n${secretLines(entry, i)}`;
  });
  return `static:\n${lines.join('\n')}\n`;
}

/** docs/secret-file.md#matching: the first `domains` entry holding the host, else the first matching regex. */
function expectedEntry(entries: readonly Entry[], host: number): number | undefined {
  const byDomain = entries.findIndex((e) => e.scope === 'domains' && e.hosts.includes(host));
  if (byDomain >= 0) return byDomain;
  const byRegex = entries.findIndex((e) => e.scope === 'domains-regex' && e.hosts.includes(host));
  return byRegex >= 0 ? byRegex : undefined;
}

function pathOf(step: Step): string {
  switch (step.kind) {
    case 'target':
      return '{{BaseURL}}/own';
    case 'absolute':
      return `${(hosts[step.host] as TestHost).origin}/absolute`;
    case 'redirect':
      return `{{BaseURL}}/go?to=${step.host}`;
  }
}

function templateOf(steps: readonly Step[]): string {
  const paths = steps.map(pathOf);
  return `id: routing
info: {name: routing, author: keyhole, severity: info}
http:
  - method: GET
    redirects: true
    max-redirects: 2
    path:
${paths.map((p) => `      - "${p}"`).join('\n')}
    matchers:
      - type: word
        words: ["ok"]
`;
}

const hostIndex = fc.integer({ min: 0, max: 2 });
const entries = fc.array(
  fc.record({
    kind: fc.constantFrom<Kind>('basicauth', 'bearertoken', 'header', 'cookie', 'query'),
    scope: fc.constantFrom<'domains' | 'domains-regex'>('domains', 'domains-regex'),
    hosts: fc.uniqueArray(hostIndex, { minLength: 1, maxLength: 3 }),
  }),
  { minLength: 1, maxLength: 5 },
);
const steps = fc.array(
  fc.oneof(
    fc.constant<Step>({ kind: 'target' }),
    hostIndex.map((host): Step => ({ kind: 'absolute', host })),
    hostIndex.map((host): Step => ({ kind: 'redirect', host })),
  ),
  { minLength: 1, maxLength: 5 },
);

describe('secret routing in a scan', () => {
  it('gives every request exactly the secret its host matches, over absolute URLs and redirects', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        entries,
        steps,
        fc.uniqueArray(hostIndex, { minLength: 1, maxLength: 3 }),
        async (set, path, targets) => {
          for (const host of hosts) host.requests.length = 0;
          const file = ws.path(`routing-${round++}.yaml`);
          writeFileSync(file, secretFile(set), { mode: 0o600 });
          const loaded = await loadSecretFiles([file], { cwd: ws.dir, env: {} });
          if (loaded.secrets === undefined) throw new Error(JSON.stringify(loaded.diagnostics));
          const resolver = new SecretResolver(loaded.secrets, { redactor: loaded.redactor });
          const parsed = parseTemplate('routing.yaml', templateOf(path));
          if (parsed.status !== 'ok') throw new Error('routing template does not parse');
          await runScan(
            { templates: [parsed.template], targets: targets.map((t) => (hosts[t] as TestHost).origin) },
            {
              concurrency: 3,
              run: { dispatch: chain(transportDispatch(client), [withSecrets(resolver)]) },
              stats: new ScanStats(targets.length),
              listener: {},
              resolveTarget: async (target) => ({ ok: true, url: target }),
            },
          );
          const prints = set.map(footprint);
          hosts.forEach((host, index) => {
            const expected = expectedEntry(set, index);
            for (const request of host.requests) {
              const carried = prints.flatMap((print, i) => (request.raw.includes(print) ? [i] : []));
              expect(carried, shown(request, host)).toEqual(expected === undefined ? [] : [expected]);
            }
          });
        },
      ),
      { numRuns: 25 },
    );
  });
});

function shown(request: SeenRequest, host: TestHost): string {
  return `${host.authority}: ${request.raw}`;
}
