import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../http/index.js';
import { InteractionWatcher, OastClient, type OastServer, startOastServer } from '../oast/index.js';
import { type BlindSsrfApp, blindSsrfApp } from '../oast/testing/blind-ssrf.js';
import { transportDispatch } from '../send/index.js';
import { runTemplate } from './index.js';
import { template } from './testing/templates.js';
import type { OastSource } from './types.js';

let listener: OastServer;
let app: BlindSsrfApp;
let watcher: InteractionWatcher;
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);

beforeAll(async () => {
  listener = await startOastServer({
    domain: 'oast.test',
    http: { host: '127.0.0.1', port: 0 },
    dns: { host: '127.0.0.1', port: 0 },
  });
  app = await blindSsrfApp(listener.dns!, listener.http.port);
  const oast = await OastClient.register({ server: listener.url, domain: listener.domain });
  watcher = new InteractionWatcher(oast, {
    cacheSize: 100,
    evictionMs: 60_000,
    pollMs: 100,
    cooldownMs: 1500,
  });
});

afterAll(async () => {
  await watcher.close();
  await app.close();
  await listener.close();
  await client.close();
});

const ssrf = (path: string, protocol = 'http') =>
  template(`id: blind-ssrf
info:
  name: Blind SSRF
  author: keyhole
  severity: high
http:
  - method: GET
    path:
      - "{{BaseURL}}${path}"
    matchers-condition: and
    matchers:
      - type: word
        part: interactsh_protocol
        words: ["${protocol}"]
      - type: status
        status: [200]
`);

/** The watcher, recording the names it gives. */
function recording(): OastSource & { names: string[] } {
  const names: string[] = [];
  return {
    names,
    newName: () => {
      const name = watcher.newName();
      names.push(name.uniqueId);
      return name;
    },
    waitFor: (ids, take, signal) => watcher.waitFor(ids, take, signal),
  };
}

describe('out-of-band testing in a template run', () => {
  it('finds a blind SSRF by the HTTP callback the application made to the request’s own name', async () => {
    const oast = recording();
    const run = await runTemplate(ssrf('/fetch?url=http://{{interactsh-url}}/probe'), app.origin, {
      dispatch,
      oast,
    });
    expect(run.matched).toBe(true);
    expect(run.events).toHaveLength(1);
    const event = run.events[0]!;
    expect(event['matched-at']).toBe(`${app.origin}/fetch?url=http://${oast.names[0]}.oast.test/probe`);
    expect(event.interaction).toMatchObject({
      protocol: 'http',
      'unique-id': oast.names[0],
      'remote-address': '127.0.0.1',
    });
    expect(event.interaction?.['raw-request']).toContain('GET /probe HTTP/1.1');
  });

  it('sees a callback that is only a DNS lookup of the name', async () => {
    const run = await runTemplate(ssrf('/lookup?host={{interactsh-url}}', 'dns'), app.origin, {
      dispatch,
      oast: recording(),
    });
    expect(run.events.map((e) => e.interaction?.protocol)).toEqual(['dns']);
    expect(run.events[0]?.interaction?.['q-type']).toBe('A');
  });

  it('closes a run whose target never calls back after the cooldown, without a finding', async () => {
    const started = Date.now();
    const run = await runTemplate(ssrf('/safe?url=http://{{interactsh-url}}/'), app.origin, {
      dispatch,
      oast: recording(),
    });
    expect(run.matched).toBe(false);
    expect(run.requests).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
  });

  it('gives every request a name of its own, so a callback is traced to the request that caused it', async () => {
    const oast = recording();
    const t = template(`id: two
info: {name: two, author: keyhole, severity: high}
http:
  - method: GET
    path:
      - "{{BaseURL}}/safe?url=http://{{interactsh-url}}/"
      - "{{BaseURL}}/fetch?url=http://{{interactsh-url}}/"
    matchers:
      - type: word
        part: interactsh_protocol
        words: [http]
`);
    const run = await runTemplate(t, app.origin, { dispatch, oast });
    expect(new Set(oast.names).size).toBe(2);
    expect(run.events.map((e) => e['matched-at'])).toEqual([
      `${app.origin}/fetch?url=http://${oast.names[1]}.oast.test/`,
    ]);
  });

  it('evaluates at once a request whose matchers do not read the interaction', async () => {
    const t = template(`id: plain
info: {name: plain, author: keyhole, severity: info}
http:
  - method: GET
    path: ["{{BaseURL}}/safe?url={{interactsh-url}}"]
    matchers:
      - type: word
        words: [queued]
`);
    const started = Date.now();
    const run = await runTemplate(t, app.origin, { dispatch, oast: recording() });
    expect(run.matched).toBe(true);
    expect(run.events[0]?.interaction).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('reports at once a response another matcher of an or-condition matches, without waiting for a callback', async () => {
    const t = template(`id: either
info: {name: either, author: keyhole, severity: info}
http:
  - method: GET
    path: ["{{BaseURL}}/safe?url=http://{{interactsh-url}}/"]
    matchers:
      - type: word
        part: interactsh_protocol
        words: [dns]
      - type: status
        status: [200]
`);
    const started = Date.now();
    const run = await runTemplate(t, app.origin, { dispatch, oast: recording() });
    expect(run.events).toHaveLength(1);
    expect(run.events[0]?.interaction).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('writes a failure result for -ms once the cooldown passed without a callback', async () => {
    const run = await runTemplate(ssrf('/safe?url=http://{{interactsh-url}}/'), app.origin, {
      dispatch,
      oast: recording(),
      matcherStatus: true,
    });
    expect(run.matched).toBe(false);
    expect(run.events).toHaveLength(1);
    expect(run.events[0]?.['matcher-status']).toBe(false);
    expect(run.events[0]?.request).toMatch(/^GET \/safe\?url=http:\/\/[0-9a-z]{33}\.oast\.test\/ HTTP/);
  });

  it('writes no failure result for -ms when a callback confirmed the finding', async () => {
    const run = await runTemplate(ssrf('/fetch?url=http://{{interactsh-url}}/'), app.origin, {
      dispatch,
      oast: recording(),
      matcherStatus: true,
    });
    expect(run.events.map((e) => e['matcher-status'])).toEqual([true]);
  });

  it('matches the callback of an earlier request with the response of a later one (matchers-condition and over status_code_2)', async () => {
    const t = template(`id: later
info: {name: later, author: keyhole, severity: high}
http:
  - raw:
      - |
        GET /lookup?host={{interactsh-url}} HTTP/1.1
        Host: {{Hostname}}

      - |
        GET /safe HTTP/1.1
        Host: {{Hostname}}

    matchers-condition: and
    matchers:
      - type: word
        part: interactsh_protocol
        words: [dns]
      - type: dsl
        dsl: ["status_code_2 == 200"]
`);
    const oast = recording();
    const run = await runTemplate(t, app.origin, { dispatch, oast });
    expect(run.events).toHaveLength(1);
    expect(run.events[0]?.['matched-at']).toBe(`${app.origin}/safe`);
    expect(run.events[0]?.interaction?.['unique-id']).toBe(oast.names[0]);
  });

  it('sends every request before waiting, so a block without callbacks waits one cooldown, not one per request', async () => {
    const t = template(`id: three
info: {name: three, author: keyhole, severity: high}
http:
  - method: GET
    path:
      - "{{BaseURL}}/safe?a=1&url={{interactsh-url}}"
      - "{{BaseURL}}/safe?a=2&url={{interactsh-url}}"
      - "{{BaseURL}}/safe?a=3&url={{interactsh-url}}"
    matchers:
      - type: word
        part: interactsh_protocol
        words: [http]
`);
    const started = Date.now();
    const run = await runTemplate(t, app.origin, { dispatch, oast: recording() });
    expect(run.requests).toBe(3);
    expect(run.matched).toBe(false);
    expect(Date.now() - started).toBeLessThan(2 * 1500);
  });

  it('reports one finding for a callback that several requests of the pass wait for', async () => {
    const t = template(`id: once
info: {name: once, author: keyhole, severity: high}
http:
  - method: GET
    path:
      - "{{BaseURL}}/fetch?url=http://{{interactsh-url}}/"
      - "{{BaseURL}}/safe"
      - "{{BaseURL}}/safe?again=1"
    matchers:
      - type: word
        part: interactsh_protocol
        words: [http]
`);
    const oast = recording();
    const run = await runTemplate(t, app.origin, { dispatch, oast });
    expect(run.events).toHaveLength(1);
    expect(run.events[0]?.interaction?.['unique-id']).toBe(oast.names[0]);
  });

  it('gives a variable holding {{interactsh-url}} the callback name of each request that uses it', async () => {
    const t = template(`id: via-variable
info: {name: via-variable, author: keyhole, severity: high}
variables:
  callback: "http://{{interactsh-url}}/v"
http:
  - method: GET
    path:
      - "{{BaseURL}}/safe?url={{callback}}"
      - "{{BaseURL}}/fetch?url={{url_encode(callback)}}"
    matchers:
      - type: word
        part: interactsh_protocol
        words: [http]
`);
    const oast = recording();
    const run = await runTemplate(t, app.origin, { dispatch, oast });
    expect(oast.names).toHaveLength(2);
    expect(run.events).toHaveLength(1);
    expect(run.events[0]?.['matched-at']).toBe(
      `${app.origin}/fetch?url=${encodeURIComponent(`http://${oast.names[1]}.oast.test/v`)}`,
    );
    expect(run.events[0]?.interaction?.['unique-id']).toBe(oast.names[1]);
  });

  it('skips the request, saying why, when out-of-band testing is off', async () => {
    const run = await runTemplate(ssrf('/fetch?url=http://{{interactsh-url}}/'), app.origin, { dispatch });
    expect(run.requests).toBe(0);
    expect(run.skipped[0]?.reason).toMatch(/^out-of-band testing is off \(-ni\)/);
  });
});
