import { request } from 'node:https';
import type { PeerCertificate } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { selfSignedCertificate as localhostCertificate } from '../http/testing/servers.js';
import { selfSignedCertificate } from './certificate.js';
import { OastClient } from './client.js';
import { type OastServer, OastServerError, type OastServerOptions, startOastServer } from './server.js';

const servers: OastServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serveHttps(certificate?: OastServerOptions['https']): Promise<OastServer> {
  const server = await startOastServer({
    domain: 'oast.test',
    http: { host: '127.0.0.1', port: 0 },
    https: certificate ?? { at: { host: '127.0.0.1', port: 0 } },
  });
  servers.push(server);
  return server;
}

/** An HTTPS callback as a target that does not verify certificates makes it, naming the callback host. */
function callBackOverTls(
  server: OastServer,
  host: string,
  path = '/',
): Promise<{ body: string; peer: PeerCertificate }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.https!.port,
        path,
        servername: host,
        headers: { host },
        rejectUnauthorized: false,
      },
      (res) => {
        const peer = (res.socket as import('node:tls').TLSSocket).getPeerCertificate();
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ body, peer }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('keyhole oast server over HTTPS', () => {
  it('records an HTTPS callback as an http interaction, as interactsh does, with a self-signed certificate for *.domain', async () => {
    const server = await serveHttps();
    const client = await OastClient.register({ server: server.url, domain: server.domain });
    const name = client.newName();
    const { body, peer } = await callBackOverTls(server, name.host, '/tls?x=1');
    expect(peer.subjectaltname).toBe('DNS:oast.test, DNS:*.oast.test');
    expect(peer.issuer.CN).toBe('oast.test');
    expect(body).toContain([...name.uniqueId].reverse().join(''));
    const interactions = await client.poll();
    expect(interactions).toHaveLength(1);
    expect(interactions[0]).toMatchObject({ protocol: 'http', 'unique-id': name.uniqueId });
    expect(interactions[0]?.['raw-request']).toContain('GET /tls?x=1 HTTP/1.1');
  });

  it('serves the certificate it is given instead of making one', async () => {
    const server = await serveHttps({
      at: { host: '127.0.0.1', port: 0 },
      certificate: localhostCertificate(),
    });
    const client = await OastClient.register({ server: server.url, domain: server.domain });
    const name = client.newName();
    const { peer } = await callBackOverTls(server, name.host);
    expect(peer.subject.CN).toBe('localhost');
    expect(await client.poll()).toMatchObject([{ protocol: 'http', 'unique-id': name.uniqueId }]);
  });

  it('refuses a key that is not the certificate’s, before it listens', async () => {
    const mismatched = { cert: localhostCertificate().cert, key: selfSignedCertificate('oast.test').key };
    const failure = startOastServer({
      domain: 'oast.test',
      http: { host: '127.0.0.1', port: 0 },
      https: { at: { host: '127.0.0.1', port: 0 }, certificate: mismatched },
    });
    await expect(failure).rejects.toBeInstanceOf(OastServerError);
    await expect(failure).rejects.toThrow('the key is not the private key of the certificate');
  });

  it('says when the HTTPS port is taken, and leaves nothing listening', async () => {
    const server = await serveHttps();
    await expect(
      startOastServer({
        domain: 'oast.test',
        http: { host: '127.0.0.1', port: 0 },
        https: { at: { host: '127.0.0.1', port: server.https!.port } },
      }),
    ).rejects.toThrow(`cannot listen for HTTPS on 127.0.0.1:${server.https!.port}: the port is in use`);
  });
});
