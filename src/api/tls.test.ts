import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/index.js';
import { sqliteTestDatabase, type TestDatabase } from '../store/testing/databases.js';
import { buildApi } from './server.js';
import { makeTestCertificate } from './testing/tls.js';

function httpsGet(
  url: string,
  ca: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string; protocol: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers }, (response) => {
      const protocol = (response.socket as { getProtocol?: () => string | null }).getProtocol?.() ?? '';
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body,
          protocol,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the API over HTTPS', () => {
  let database: TestDatabase;
  let store: Store;
  const certificate = makeTestCertificate();

  beforeAll(async () => {
    database = await sqliteTestDatabase();
    store = await openStore(database.location);
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('answers the key check over TLS with the certificate it was given', async () => {
    const team = await store.teams.ensure('default');
    const { secret } = await store.keys.create({ teamId: team.id, name: 'nuclei' });
    const app = await buildApi({ store, rateLimit: 0, tls: certificate });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const response = await httpsGet(`https://127.0.0.1:${address.port}/v1/user`, certificate.cert, {
        'X-Api-Key': secret,
      });
      expect(response.status).toBe(200);
      expect(response.protocol).toMatch(/^TLSv1\.[23]$/);
      expect(JSON.parse(response.body)).toMatchObject({ name: 'nuclei', team_name: 'default' });
    } finally {
      await app.close();
    }
  });

  it('is refused by a client that does not trust another certificate', async () => {
    const app = await buildApi({ store, rateLimit: 0, tls: certificate });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const stranger = makeTestCertificate();
      await expect(httpsGet(`https://127.0.0.1:${address.port}/healthz`, stranger.cert, {})).rejects.toThrow(
        /self[- ]signed|certificate/i,
      );
    } finally {
      await app.close();
    }
  });
});
