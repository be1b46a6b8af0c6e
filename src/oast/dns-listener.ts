import { createSocket, type Socket } from 'node:dgram';
import { createServer as createTcpServer, isIPv6, type Server as TcpServer } from 'node:net';
import {
  type DnsQuestion,
  describeAnswer,
  describeQuery,
  RCODE_NOERROR,
  RCODE_REFUSED,
  readQuestion,
  typeName,
  writeAnswer,
} from './dns-message.js';
import type { Recorder } from './recorder.js';

export interface DnsListenerOptions {
  readonly recorder: Recorder;
  /** The IPv4 address every name under the domain resolves to. */
  readonly answerAddress: string;
}

/**
 * Answers DNS queries for the domain (A records with the listener's address; refused outside it)
 * and records the queries whose name carries a callback label: a target that only resolves the
 * name, without connecting, is seen too.
 */
export function answerQuery(options: DnsListenerOptions, packet: Buffer, remote: string): Buffer | undefined {
  const question = readQuestion(packet);
  if (question === undefined) return undefined;
  if (!options.recorder.isOwnName(question.name)) return writeAnswer(question, RCODE_REFUSED, undefined);
  const address = question.type === 1 || question.type === 255 ? options.answerAddress : undefined;
  record(options, question, address, remote);
  return writeAnswer(question, RCODE_NOERROR, address);
}

function record(
  options: DnsListenerOptions,
  question: DnsQuestion,
  address: string | undefined,
  remote: string,
) {
  options.recorder.record(question.name, (ids) => ({
    protocol: 'dns',
    'unique-id': ids.uniqueId,
    'full-id': ids.fullId,
    'q-type': typeName(question.type),
    'raw-request': describeQuery(question),
    'raw-response': describeAnswer(question, address),
    'remote-address': remote.replace(/^::ffff:/, ''),
    timestamp: new Date().toISOString(),
  }));
}

export function listenDnsUdp(options: DnsListenerOptions, host: string, port: number): Promise<Socket> {
  const socket = createSocket(isIPv6(host) ? 'udp6' : 'udp4');
  socket.on('message', (packet, remote) => {
    const answer = answerQuery(options, packet, remote.address);
    if (answer !== undefined) socket.send(answer, remote.port, remote.address);
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      socket.on('error', () => {});
      resolve(socket);
    });
  });
}

/** DNS over TCP: each message after its two-byte length. */
export function listenDnsTcp(options: DnsListenerOptions, host: string, port: number): Promise<TcpServer> {
  const server = createTcpServer((conn) => {
    let buffered = Buffer.alloc(0);
    conn.on('error', () => conn.destroy());
    conn.setTimeout(10_000, () => conn.destroy());
    conn.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const length = buffered.readUInt16BE(0);
        const answer = answerQuery(options, buffered.subarray(2, 2 + length), conn.remoteAddress ?? '');
        buffered = buffered.subarray(2 + length);
        if (answer === undefined) continue;
        const prefix = Buffer.alloc(2);
        prefix.writeUInt16BE(answer.length);
        conn.write(Buffer.concat([prefix, answer]));
      }
      if (buffered.length > 70_000) conn.destroy();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
