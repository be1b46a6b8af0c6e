/**
 * The little of DNS the listener needs (RFC 1035): read the question of a query, write an answer
 * that gives every name under the domain the listener's IPv4 address.
 */

export interface DnsQuestion {
  readonly id: number;
  readonly recursionDesired: boolean;
  readonly name: string;
  readonly type: number;
  readonly class: number;
  /** The question section as received, echoed in the answer. */
  readonly questionBytes: Buffer;
}

const TYPE_NAMES: Record<number, string> = {
  1: 'A',
  2: 'NS',
  5: 'CNAME',
  6: 'SOA',
  15: 'MX',
  16: 'TXT',
  28: 'AAAA',
  255: 'ANY',
};

export function typeName(type: number): string {
  return TYPE_NAMES[type] ?? `TYPE${type}`;
}

/** The first question of a query, or undefined for anything else (answers, truncated packets). */
export function readQuestion(packet: Buffer): DnsQuestion | undefined {
  if (packet.length < 12) return undefined;
  const flags = packet.readUInt16BE(2);
  const isQuery = (flags & 0x8000) === 0;
  if (!isQuery || packet.readUInt16BE(4) < 1) return undefined;
  const labels: string[] = [];
  let at = 12;
  while (at < packet.length) {
    const length = packet[at] ?? 0;
    if (length === 0) break;
    if (length > 63 || at + 1 + length > packet.length) return undefined;
    labels.push(packet.toString('latin1', at + 1, at + 1 + length));
    at += 1 + length;
  }
  if (at + 5 > packet.length) return undefined;
  const end = at + 5;
  return {
    id: packet.readUInt16BE(0),
    recursionDesired: (flags & 0x0100) !== 0,
    name: labels.join('.'),
    type: packet.readUInt16BE(at + 1),
    class: packet.readUInt16BE(at + 3),
    questionBytes: packet.subarray(12, end),
  };
}

export const RCODE_NOERROR = 0;
export const RCODE_REFUSED = 5;

/** An authoritative answer to `question`: one A record with `ipv4` when given, none otherwise. */
export function writeAnswer(
  question: DnsQuestion,
  rcode: number,
  ipv4: string | undefined,
  ttl = 3600,
): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(question.id, 0);
  header.writeUInt16BE(0x8000 | 0x0400 | (question.recursionDesired ? 0x0100 : 0) | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(ipv4 === undefined ? 0 : 1, 6);
  if (ipv4 === undefined) return Buffer.concat([header, question.questionBytes]);
  const record = Buffer.alloc(16);
  record.writeUInt16BE(0xc00c, 0);
  record.writeUInt16BE(1, 2);
  record.writeUInt16BE(1, 4);
  record.writeUInt32BE(ttl, 6);
  record.writeUInt16BE(4, 10);
  ipv4.split('.').forEach((octet, i) => {
    record[12 + i] = Number(octet);
  });
  return Buffer.concat([header, question.questionBytes, record]);
}

/** A query as `dig` would show it: what a template's `interactsh_request` matches for DNS. */
export function describeQuery(question: DnsQuestion): string {
  return [
    `;; opcode: QUERY, status: NOERROR, id: ${question.id}`,
    `;; flags:${question.recursionDesired ? ' rd' : ''}; QUERY: 1, ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 0`,
    '',
    ';; QUESTION SECTION:',
    `;${question.name}.\tIN\t ${typeName(question.type)}`,
    '',
  ].join('\n');
}

/** The answer as `dig` would show it. */
export function describeAnswer(question: DnsQuestion, ipv4: string | undefined, ttl = 3600): string {
  const lines = [`;; opcode: QUERY, status: NOERROR, id: ${question.id}`, '', ';; QUESTION SECTION:'];
  lines.push(`;${question.name}.\tIN\t ${typeName(question.type)}`);
  if (ipv4 !== undefined) lines.push('', ';; ANSWER SECTION:', `${question.name}.\t${ttl}\tIN\tA\t${ipv4}`);
  return `${lines.join('\n')}\n`;
}
