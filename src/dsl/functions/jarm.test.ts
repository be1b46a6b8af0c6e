import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../http/testing/servers.js';
import { evaluate } from '../testing/evaluate.js';
import { clientHello, jarmHash, PROBES, readServerHello, reorder, ZERO_JARM } from './jarm.js';

const workers: Worker[] = [];
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.terminate();
});

/**
 * A server on a thread of its own: jarm() holds the calling thread while it probes, so a server on
 * the test's thread could not answer.
 */
async function serverThread(kind: 'tls' | 'tcp'): Promise<number> {
  const worker = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads');
    const server = workerData.kind === 'tls'
      ? require('node:tls').createServer(workerData.certificate, (socket) => socket.end())
      : require('node:net').createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\\r\\n\\r\\n'));
    server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
    `,
    { eval: true, workerData: { kind, certificate: selfSignedCertificate() } },
  );
  workers.push(worker);
  return new Promise((resolve) => worker.once('message', resolve));
}

describe('the JARM algorithm', () => {
  it('hashes ten answers as the reference implementation does', () => {
    const answers = [
      'c02f|0303|http/1.1|0000-ff01-000b-0023-0010',
      'c02f|0303|http/1.1|0000-ff01-000b-0023-0010',
      '|||',
      'c02f|0303||0000-ff01-000b-0023',
      'c02f|0303||0000-ff01-000b-0023',
      '|||',
      'c02f|0303|http/1.1|0000-ff01-000b-0023-0010',
      'c02f|0303|http/1.1|0000-ff01-000b-0023-0010',
      'c02f|0303|http/1.1|0000-ff01-000b-0023-0010',
      'c02f|0303|http/1.1|0000-ff01-000b-0023-0010',
    ];
    expect(jarmHash(answers)).toBe('29d29d00029d29d00029d29d29d29d8c9dac4e97f99c7a0e93e9d4d790df0a');
    expect(jarmHash(new Array(10).fill('|||'))).toBe(ZERO_JARM);
  });

  it('reads the cipher, version, ALPN and extension types of a ServerHello', () => {
    const extensions = [
      0x00,
      0x00,
      0,
      0,
      0xff,
      0x01,
      0,
      1,
      0,
      0x00,
      0x0b,
      0,
      4,
      3,
      0,
      1,
      2,
      0x00,
      0x23,
      0,
      0,
      0x00,
      0x10,
      0,
      11,
      0,
      9,
      8,
      ...Buffer.from('http/1.1'),
    ];
    const body = [3, 3, ...new Array(32).fill(7), 0, 0xc0, 0x2f, 0, 0, extensions.length, ...extensions];
    const hello = [2, 0, 0, body.length, ...body];
    const record = [0x16, 3, 3, 0, hello.length, ...hello];
    // what follows the ServerHello in the same read (the certificate record)
    const data = Uint8Array.from([...record, 0x16, 3, 3, 0, 4, 0x0b, 0, 0, 0, ...new Array(40).fill(0)]);
    expect(readServerHello(data)).toBe('c02f|0303|http/1.1|0000-ff01-000b-0023-0010');
    expect(readServerHello(Uint8Array.from([0x15, 3, 3, 0, 2, 2, 40]))).toBe('|||');
  });

  it('orders ciphers as JARM probes do', () => {
    expect(reorder([1, 2, 3, 4, 5], 'middle-out')).toEqual([3, 4, 2, 5, 1]);
    expect(reorder([1, 2, 3, 4], 'middle-out')).toEqual([3, 2, 4, 1]);
    expect(reorder([1, 2, 3, 4, 5], 'bottom-half')).toEqual([4, 5]);
    expect(reorder([1, 2, 3, 4, 5], 'top-half')).toEqual([3, 2, 1]);
  });

  it('builds ClientHello records whose lengths add up, naming the host', () => {
    for (const spec of PROBES) {
      const hello = clientHello(spec, 'app.test');
      expect(hello[0]).toBe(0x16);
      expect(hello.readUInt16BE(3)).toBe(hello.length - 5);
      expect(hello[5]).toBe(1);
      expect((hello[6] ?? 0) * 65536 + hello.readUInt16BE(7)).toBe(hello.length - 9);
      expect(hello.includes(Buffer.from('app.test'))).toBe(true);
    }
  });
});

describe('jarm()', () => {
  it('fingerprints a TLS server, the same way twice', async () => {
    const port = await serverThread('tls');
    const first = evaluate(`jarm("127.0.0.1:${port}")`);
    expect(first).toMatch(/^[0-9a-f]{62}$/);
    expect(first).not.toBe(ZERO_JARM);
    // the cipher/version part is the same each time; a server may vary its extensions
    expect(String(evaluate(`jarm("127.0.0.1:${port}")`)).slice(0, 30)).toBe(String(first).slice(0, 30));
  }, 30_000);

  it('gives the zero hash for a server that speaks no TLS', async () => {
    const port = await serverThread('tcp');
    expect(evaluate(`jarm("127.0.0.1:${port}")`)).toBe(ZERO_JARM);
  }, 30_000);

  it('takes host:port only', () => {
    expect(() => evaluate('jarm("127.0.0.1")')).toThrow(/jarm: takes "host:port", got "127.0.0.1"/);
  });
});
