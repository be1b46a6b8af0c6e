import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DslEvaluationError } from '../index.js';
import { type DnsServer, startDnsServer } from '../testing/dns-server.js';
import { evaluate } from '../testing/evaluate.js';
import { type RecordType, resolveRecord } from './resolve.js';

let server: DnsServer;

beforeAll(async () => {
  server = await startDnsServer({
    'app.example.test': [
      { type: 'A', address: '192.0.2.10' },
      { type: 'A', address: '192.0.2.11' },
      { type: 'AAAA', address: '2001:db8::10' },
      { type: 'TXT', strings: ['v=spf1 -all', 'second'] },
      { type: 'MX', preference: 10, exchange: 'mail.example.test' },
      { type: 'CAA', tag: 'issue', value: 'letsencrypt.org' },
    ],
    'www.example.test': [{ type: 'CNAME', name: 'app.example.test' }],
    'example.test': [
      { type: 'NS', name: 'ns1.example.test' },
      { type: 'SOA', primary: 'ns1.example.test', mailbox: 'hostmaster.example.test' },
    ],
    '_sip._tcp.example.test': [{ type: 'SRV', port: 5060, target: 'sip.example.test' }],
    '10.2.0.192.in-addr.arpa': [{ type: 'PTR', name: 'app.example.test' }],
    'empty.example.test': [],
  });
});

afterAll(() => server.close());

const ask = (host: string, type: RecordType) => resolveRecord(host, type, [server.address], 1_000);

function failure(run: () => unknown): DslEvaluationError {
  try {
    run();
  } catch (error) {
    if (error instanceof DslEvaluationError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('resolve', () => {
  it('resolves localhost through the system resolver, as IPv4 by default', () => {
    expect(evaluate('resolve("localhost")')).toBe('127.0.0.1');
    expect(evaluate('resolve("localhost", "4")')).toBe('127.0.0.1');
    expect(evaluate('resolve("localhost", "A")')).toBe('127.0.0.1');
  });

  it('gives the first record of each type as text, names without their final dot', () => {
    expect(ask('app.example.test', 'A')).toBe('192.0.2.10');
    expect(ask('app.example.test', 'AAAA')).toBe('2001:db8::10');
    expect(ask('www.example.test', 'CNAME')).toBe('app.example.test');
    expect(ask('example.test', 'NS')).toBe('ns1.example.test');
    expect(ask('app.example.test', 'TXT')).toBe('v=spf1 -all');
    expect(ask('app.example.test', 'MX')).toBe('mail.example.test');
    expect(ask('_sip._tcp.example.test', 'SRV')).toBe('sip.example.test');
    expect(ask('example.test', 'SOA')).toBe('ns1.example.test');
    expect(ask('app.example.test', 'CAA')).toBe('letsencrypt.org');
  });

  it('asks for the reverse name of an address given to a PTR query', () => {
    expect(ask('192.0.2.10', 'PTR')).toBe('app.example.test');
    expect(ask('10.2.0.192.in-addr.arpa', 'PTR')).toBe('app.example.test');
  });

  it('fails with "no records found" for an unknown name or a type it lacks, naming neither', () => {
    const unknown = failure(() => ask('missing.example.test', 'A'));
    expect(unknown.message).toBe('resolve: no records found');
    expect(failure(() => ask('empty.example.test', 'TXT')).message).toBe('resolve: no records found');
  });

  it('times out on a server that does not answer, within its budget', () => {
    const started = Date.now();
    const error = failure(() => resolveRecord('app.example.test', 'A', ['127.0.0.1:9'], 200));
    expect(error.message).toMatch(
      /^resolve: (the DNS query timed out|no records found|the DNS query failed)/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses a record type nuclei does not know', () => {
    expect(failure(() => evaluate('resolve("localhost", "any")')).message).toMatch(
      /^resolve: invalid dns type/,
    );
  });
});
