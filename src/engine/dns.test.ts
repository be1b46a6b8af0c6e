import { createSocket, type Socket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnameChain, cnameChainVia, cnameValues } from './dns.js';

/** A DNS server on 127.0.0.1 that answers CNAME questions from a table, and NOERROR without answers otherwise. */
let server: Socket;
let port: number;
const CNAMES: Record<string, string> = {
  'shop.example.test': 'shop.myshopify.test',
  'shop.myshopify.test': 'shops.edge.test',
};

function encodeName(name: string): Buffer {
  const labels = name
    .split('.')
    .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)]));
  return Buffer.concat([...labels, Buffer.from([0])]);
}

function answer(query: Buffer): Buffer {
  const labels: string[] = [];
  let at = 12;
  while (query[at] !== 0) {
    const length = query[at] as number;
    labels.push(query.subarray(at + 1, at + 1 + length).toString());
    at += length + 1;
  }
  const question = query.subarray(12, at + 5);
  const target = CNAMES[labels.join('.').toLowerCase()];
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8180, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(target === undefined ? 0 : 1, 6);
  if (target === undefined) return Buffer.concat([header, question]);
  const rdata = encodeName(target);
  const record = Buffer.alloc(12);
  record.writeUInt16BE(0xc00c, 0);
  record.writeUInt16BE(5, 2);
  record.writeUInt16BE(1, 4);
  record.writeUInt32BE(60, 6);
  record.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([header, question, record, rdata]);
}

beforeAll(async () => {
  server = createSocket('udp4');
  server.on('message', (message, remote) => server.send(answer(message), remote.port, remote.address));
  await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
  port = server.address().port;
});

afterAll(() => server.close());

describe('the CNAME values of a response', () => {
  it('follow the whole CNAME chain of the host, as nuclei reads it', async () => {
    const resolver = new Resolver({ timeout: 2000, tries: 1 });
    resolver.setServers([`127.0.0.1:${port}`]);
    const chain = await cnameChainVia(resolver, 'shop.example.test');
    expect(chain).toEqual(['shop.myshopify.test', 'shops.edge.test']);
    expect(Object.fromEntries(cnameValues(chain))).toEqual({
      cname: 'shop.myshopify.test',
      cname_all: ['shop.myshopify.test', 'shops.edge.test'],
    });
  });

  it('are absent for a host without a CNAME and for an IP address', async () => {
    const resolver = new Resolver({ timeout: 2000, tries: 1 });
    resolver.setServers([`127.0.0.1:${port}`]);
    expect(await cnameChainVia(resolver, 'plain.example.test')).toEqual([]);
    expect(await cnameChain('127.0.0.1')).toEqual([]);
    expect(cnameValues([]).size).toBe(0);
  });
});
