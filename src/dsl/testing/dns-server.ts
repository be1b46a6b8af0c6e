/**
 * A DNS server on 127.0.0.1 answering from a table, for the `resolve` helper's tests. It runs on a
 * worker thread of its own, since `resolve` blocks the calling thread while it waits for the answer.
 */
import { Worker } from 'node:worker_threads';

export type DnsAnswer =
  | { readonly type: 'A' | 'AAAA'; readonly address: string }
  | { readonly type: 'CNAME' | 'NS' | 'PTR'; readonly name: string }
  | { readonly type: 'TXT'; readonly strings: readonly string[] }
  | { readonly type: 'MX'; readonly preference: number; readonly exchange: string }
  | { readonly type: 'SRV'; readonly port: number; readonly target: string }
  | { readonly type: 'SOA'; readonly primary: string; readonly mailbox: string }
  | { readonly type: 'CAA'; readonly tag: string; readonly value: string };

/**
 * The server, run on the worker thread: written without references outside itself, since only its
 * text reaches the worker. Posts the bound port, then answers until the worker ends.
 */
function serve(
  require: NodeJS.Require,
  zone: Readonly<Record<string, readonly DnsAnswer[]>>,
  post: (port: number) => void,
): void {
  const { createSocket } = require('node:dgram') as typeof import('node:dgram');
  const TYPE_CODES = { A: 1, NS: 2, CNAME: 5, SOA: 6, PTR: 12, MX: 15, TXT: 16, AAAA: 28, SRV: 33, CAA: 257 };

  const u16 = (value: number) => [(value >> 8) & 0xff, value & 0xff];
  const u32 = (value: number) => [...u16(value >>> 16), ...u16(value & 0xffff)];

  function encodeName(name: string): number[] {
    const labels = name.replace(/\.$/, '').split('.').filter(Boolean);
    return [...labels.flatMap((label) => [label.length, ...Buffer.from(label)]), 0];
  }

  function ipv6Bytes(address: string): number[] {
    const [head = '', tail = ''] = address.split('::');
    const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
    const front = groups(head);
    const back = groups(tail);
    return [...front, ...new Array(8 - front.length - back.length).fill(0), ...back].flatMap(u16);
  }

  function recordData(answer: DnsAnswer): number[] {
    switch (answer.type) {
      case 'A':
        return answer.address.split('.').map(Number);
      case 'AAAA':
        return ipv6Bytes(answer.address);
      case 'CNAME':
      case 'NS':
      case 'PTR':
        return encodeName(answer.name);
      case 'TXT':
        return answer.strings.flatMap((text) => [text.length, ...Buffer.from(text)]);
      case 'MX':
        return [...u16(answer.preference), ...encodeName(answer.exchange)];
      case 'SRV':
        return [...u16(10), ...u16(5), ...u16(answer.port), ...encodeName(answer.target)];
      case 'SOA':
        return [
          ...encodeName(answer.primary),
          ...encodeName(answer.mailbox),
          ...[1, 7200, 3600, 1209600, 300].flatMap(u32),
        ];
      case 'CAA':
        return [0, answer.tag.length, ...Buffer.from(answer.tag), ...Buffer.from(answer.value)];
    }
  }

  /** The question's name, type and where the question ends. */
  function readQuestion(message: Buffer): { name: string; type: number; end: number } {
    const labels: string[] = [];
    let at = 12;
    while ((message[at] ?? 0) !== 0) {
      const length = message[at] as number;
      labels.push(message.subarray(at + 1, at + 1 + length).toString());
      at += length + 1;
    }
    return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(at + 1), end: at + 5 };
  }

  const socket = createSocket('udp4');
  socket.on('message', (message, peer) => {
    const question = readQuestion(message);
    const records = (zone[question.name] ?? []).filter((answer) => TYPE_CODES[answer.type] === question.type);
    const known = zone[question.name] !== undefined;
    const answers = records.flatMap((answer) => {
      const data = recordData(answer);
      return [0xc0, 12, ...u16(question.type), ...u16(1), ...u32(60), ...u16(data.length), ...data];
    });
    const header = [
      ...message.subarray(0, 2),
      0x81,
      known ? 0x80 : 0x83,
      ...u16(1),
      ...u16(records.length),
      0,
      0,
      0,
      0,
    ];
    const reply = Buffer.from([...header, ...message.subarray(12, question.end), ...answers]);
    socket.send(reply, peer.port, peer.address);
  });
  socket.bind(0, '127.0.0.1', () => post(socket.address().port));
}

export interface DnsServer {
  /** `127.0.0.1:port`, as a resolver takes it. */
  readonly address: string;
  close(): Promise<void>;
}

/** Answers from `zone` (name → answers); a name it does not hold gets NXDOMAIN. */
export async function startDnsServer(
  zone: Readonly<Record<string, readonly DnsAnswer[]>>,
): Promise<DnsServer> {
  const source = `
const __name = (f) => f;
const { workerData, parentPort } = require('node:worker_threads');
(${serve.toString()})(require, workerData, (port) => parentPort.postMessage(port));
`;
  const worker = new Worker(source, { eval: true, workerData: zone });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    address: `127.0.0.1:${port}`,
    close: async () => {
      await worker.terminate();
    },
  };
}
