import { Resolver } from 'node:dns/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OastClient, OastClientError } from './client.js';
import { type OastServer, OastServerError, startOastServer } from './server.js';

const servers: OastServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(token?: string): Promise<OastServer> {
  const server = await startOastServer({
    domain: 'oast.test',
    http: { host: '127.0.0.1', port: 0 },
    dns: { host: '127.0.0.1', port: 0 },
    ...(token ? { token } : {}),
  });
  servers.push(server);
  return server;
}

/** An HTTP callback as a target makes it: to the listener's address, naming the callback host. */
function callBack(server: OastServer, host: string, path = '/'): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.http.port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

function resolverOf(server: OastServer): Resolver {
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`127.0.0.1:${server.dns!.port}`]);
  return resolver;
}

function tcpQuery(port: number, name: string): Promise<Buffer> {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
  const query = Buffer.concat([
    Buffer.from([0, 7, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]),
    ...labels,
    Buffer.from([0, 0, 1, 0, 1]),
  ]);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(query.length);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(Buffer.concat([length, query])));
    let got = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length >= 2 && got.length >= 2 + got.readUInt16BE(0)) {
        socket.end();
        resolve(got.subarray(2));
      }
    });
    socket.on('error', reject);
  });
}

describe('keyhole oast server and the interactsh client', () => {
  it('delivers an HTTP callback to the client that made its name, encrypted on the way and decrypted by the client', async () => {
    const server = await serve();
    const client = await OastClient.register({ server: server.url, domain: server.domain });
    const name = client.newName();
    expect(name.host).toMatch(/^[0-9a-v]{20}[a-z0-9]{13}\.oast\.test$/);
    const body = await callBack(server, name.host, '/ssrf?x=1');
    expect(body).toContain([...name.uniqueId].reverse().join(''));
    const interactions = await client.poll();
    expect(interactions).toHaveLength(1);
    expect(interactions[0]).toMatchObject({
      protocol: 'http',
      'unique-id': name.uniqueId,
      'remote-address': '127.0.0.1',
    });
    expect(interactions[0]?.['raw-request']).toContain('GET /ssrf?x=1 HTTP/1.1');
    expect(interactions[0]?.['raw-request']).toContain(`host: ${name.host}`);
    expect(await client.poll()).toEqual([]);
  });

  it('tells a client given only its address the domain to name callbacks under', async () => {
    const server = await serve();
    const client = await OastClient.register({ server: server.url });
    expect(client.domain).toBe('oast.test');
    expect(client.newName().host).toMatch(/\.oast\.test$/);
    const given = await OastClient.register({ server: server.url, domain: 'other.test' });
    expect(given.domain).toBe('other.test');
  });

  it('records a callback whose label is in the path, for targets that reach the listener by address', async () => {
    const server = await serve();
    const client = await OastClient.register({ server: server.url, domain: server.domain });
    const name = client.newName();
    await callBack(server, '127.0.0.1', `/${name.uniqueId}`);
    expect((await client.poll()).map((i) => i['unique-id'])).toEqual([name.uniqueId]);
  });

  it('resolves names under the domain to the listener over UDP, and records the query as a DNS interaction', async () => {
    const server = await serve();
    const client = await OastClient.register({ server: server.url, domain: server.domain });
    const name = client.newName();
    expect(await resolverOf(server).resolve4(`x.${name.host}`)).toEqual(['127.0.0.1']);
    const [interaction] = await client.poll();
    expect(interaction).toMatchObject({
      protocol: 'dns',
      'q-type': 'A',
      'unique-id': name.uniqueId,
      'full-id': `x.${name.uniqueId}`,
    });
    expect(interaction?.['raw-request']).toContain(`;x.${name.host}.\tIN\t A`);
    expect(interaction?.['raw-response']).toContain('127.0.0.1');
  });

  it('answers DNS over TCP too, each message after its length', async () => {
    const server = await serve();
    const client = await OastClient.register({ server: server.url, domain: server.domain });
    const name = client.newName();
    const answer = await tcpQuery(server.dns!.port, name.host);
    expect(answer.readUInt16BE(6)).toBe(1);
    expect([...answer.subarray(-4)]).toEqual([127, 0, 0, 1]);
    expect(await client.poll()).toMatchObject([{ protocol: 'dns', 'unique-id': name.uniqueId }]);
  });

  it('refuses names outside its domain', async () => {
    const server = await serve();
    await expect(resolverOf(server).resolve4('example.com')).rejects.toMatchObject({ code: 'EREFUSED' });
  });

  it('keeps one client from seeing another client’s interactions', async () => {
    const server = await serve();
    const alice = await OastClient.register({ server: server.url, domain: server.domain });
    const bob = await OastClient.register({ server: server.url, domain: server.domain });
    await callBack(server, alice.newName().host);
    expect(await bob.poll()).toEqual([]);
    expect(await alice.poll()).toHaveLength(1);
  });

  it('ignores callbacks for correlation ids nobody registered, and forgets a client once it deregisters', async () => {
    const server = await serve();
    const client = await OastClient.register({ server: server.url, domain: server.domain });
    const name = client.newName();
    await client.deregister();
    await callBack(server, name.host);
    await expect(client.poll()).rejects.toThrow(/answered 400: could not get interactions/);
  });

  it('requires the token when it has one, and says so', async () => {
    const server = await serve('s3cret');
    await expect(OastClient.register({ server: server.url })).rejects.toThrow(
      /refused the token \(give it with -itoken\)/,
    );
    const client = await OastClient.register({ server: server.url, token: 's3cret', domain: server.domain });
    await callBack(server, client.newName().host);
    expect(await client.poll()).toHaveLength(1);
  });

  it('says which server cannot be reached', async () => {
    const server = await serve();
    const url = server.url;
    await server.close();
    servers.pop();
    const failure = OastClient.register({ server: url });
    await expect(failure).rejects.toBeInstanceOf(OastClientError);
    await expect(failure).rejects.toThrow(`cannot reach the interactsh server ${url}`);
  });

  it('refuses a domain that is not a name and a port already taken', async () => {
    await expect(
      startOastServer({ domain: 'not a domain', http: { host: '127.0.0.1', port: 0 } }),
    ).rejects.toThrow(OastServerError);
    const server = await serve();
    await expect(
      startOastServer({ domain: 'oast.test', http: { host: '127.0.0.1', port: server.http.port } }),
    ).rejects.toThrow(`cannot listen for HTTP on 127.0.0.1:${server.http.port}: the port is in use`);
  });
});
