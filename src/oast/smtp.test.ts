import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OastClient } from './client.js';
import { type OastServer, startOastServer } from './server.js';

const servers: OastServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serveSmtp(): Promise<OastServer> {
  const server = await startOastServer({
    domain: 'oast.test',
    http: { host: '127.0.0.1', port: 0 },
    smtp: { host: '127.0.0.1', port: 0 },
  });
  servers.push(server);
  return server;
}

/** Sends one SMTP session line by line, each after the server's answer; the server's lines. */
function mail(port: number, lines: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const answers: string[] = [];
    let pending = [...lines];
    let buffered = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\r\n'); end !== -1; end = buffered.indexOf('\r\n')) {
        answers.push(buffered.slice(0, end));
        buffered = buffered.slice(end + 2);
        const next: string[] = [];
        // After DATA's 354, the message goes at once, up to its final dot.
        if (answers.at(-1)?.startsWith('354')) {
          const dot = pending.indexOf('.');
          next.push(...pending.slice(0, dot + 1));
          pending = pending.slice(dot + 1);
        } else if (pending.length > 0) next.push(pending.shift() as string);
        if (next.length > 0) socket.write(`${next.join('\r\n')}\r\n`);
      }
    });
    socket.on('end', () => resolve(answers));
    socket.on('error', reject);
  });
}

describe('keyhole oast server over SMTP', () => {
  it('records mail to anyone at a callback name as an smtp interaction, with its sender and session', async () => {
    const server = await serveSmtp();
    const client = await OastClient.register({ server: server.url, domain: server.domain });
    const name = client.newName();
    const answers = await mail(server.smtp!.port, [
      'EHLO target.internal',
      'MAIL FROM:<app@target.internal>',
      `RCPT TO:<admin@${name.host}>`,
      'RCPT TO:<someone@example.com>',
      'DATA',
      'Subject: password reset',
      '',
      'hello',
      '.',
      'QUIT',
    ]);
    expect(answers[0]).toBe('220 oast.test ESMTP ready');
    expect(answers.at(-2)).toBe('250 OK: queued');
    expect(answers.at(-1)).toBe('221 bye');
    const interactions = await client.poll();
    expect(interactions).toHaveLength(1);
    expect(interactions[0]).toMatchObject({
      protocol: 'smtp',
      'unique-id': name.uniqueId,
      'full-id': name.uniqueId,
      'smtp-from': 'app@target.internal',
      'remote-address': '127.0.0.1',
    });
    expect(interactions[0]?.['raw-request']).toContain('Subject: password reset\r\n\r\nhello\r\n.');
  });

  it('records nothing for mail whose recipients are outside the domain, or that never ends its DATA', async () => {
    const server = await serveSmtp();
    const client = await OastClient.register({ server: server.url, domain: server.domain });
    const name = client.newName();
    await mail(server.smtp!.port, [
      'HELO t',
      'MAIL FROM:<a@t>',
      `RCPT TO:<x@${name.uniqueId}.example.com>`,
      'DATA',
      'body',
      '.',
      'QUIT',
    ]);
    await mail(server.smtp!.port, ['HELO t', 'MAIL FROM:<a@t>', `RCPT TO:<x@${name.host}>`, 'QUIT']);
    expect(await client.poll()).toEqual([]);
  });
});
