import { createServer, type Server, type Socket } from 'node:net';
import type { Interaction } from './protocol.js';
import type { Recorder } from './recorder.js';

const MAX_MESSAGE = 1 << 20;

/**
 * A minimal SMTP server for callbacks: it accepts any message and records, once its DATA ends, one
 * `smtp` interaction per callback label in a recipient's domain (`anything@<id>.DOMAIN`), with the
 * session as the request and MAIL FROM as `smtp-from`. Nothing is relayed or stored beyond that.
 */
export function createSmtpListener(recorder: Recorder, domain: string): Server {
  return createServer((socket) => converse(socket, recorder, domain));
}

interface Envelope {
  from: string;
  recipients: string[];
  transcript: string[];
}

function converse(socket: Socket, recorder: Recorder, domain: string): void {
  socket.setEncoding('latin1');
  socket.on('error', () => socket.destroy());
  let buffered = '';
  let inData = false;
  let envelope: Envelope = { from: '', recipients: [], transcript: [] };
  const say = (line: string) => socket.write(`${line}\r\n`);
  say(`220 ${domain} ESMTP ready`);
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    if (buffered.length > MAX_MESSAGE) {
      say('552 message too large');
      socket.end();
      return;
    }
    for (let end = buffered.indexOf('\r\n'); end !== -1; end = buffered.indexOf('\r\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      envelope.transcript.push(line);
      if (inData) {
        if (line !== '.') continue;
        inData = false;
        record(recorder, envelope, socket);
        envelope = { from: '', recipients: [], transcript: [] };
        say('250 OK: queued');
        continue;
      }
      const verb = line.slice(0, 4).toUpperCase();
      if (verb === 'HELO' || verb === 'EHLO') say(`250 ${domain}`);
      else if (verb === 'MAIL') {
        envelope.from = address(line);
        say('250 OK');
      } else if (verb === 'RCPT') {
        envelope.recipients.push(address(line));
        say('250 OK');
      } else if (verb === 'DATA') {
        inData = true;
        say('354 end data with <CR><LF>.<CR><LF>');
      } else if (verb === 'QUIT') {
        say('221 bye');
        socket.end();
      } else if (verb === 'RSET') {
        envelope = { from: '', recipients: [], transcript: [] };
        say('250 OK');
      } else say(verb === 'NOOP' ? '250 OK' : '502 command not implemented');
    }
  });
}

function address(line: string): string {
  const colon = line.indexOf(':');
  const value = line.slice(colon + 1).trim();
  return (/<([^>]*)>/.exec(value)?.[1] ?? value.split(/\s/)[0] ?? '').trim();
}

function record(recorder: Recorder, envelope: Envelope, socket: Socket): void {
  const rawRequest = `${envelope.transcript.join('\r\n')}\r\n`;
  for (const recipient of envelope.recipients) {
    const host = recipient.slice(recipient.lastIndexOf('@') + 1);
    if (!recorder.namesCallback(host)) continue;
    recorder.record(
      host,
      (ids): Interaction => ({
        protocol: 'smtp',
        'unique-id': ids.uniqueId,
        'full-id': ids.fullId,
        'raw-request': rawRequest,
        'raw-response': '',
        'smtp-from': envelope.from,
        'remote-address': (socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
        timestamp: new Date().toISOString(),
      }),
    );
  }
}
