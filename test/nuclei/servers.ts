/**
 * What the Go cases' handlers rely on from Go's net/http, for the fixture servers that stand in for
 * them (http.Redirect's response, Request.ParseForm, ParseMultipartForm, httptest.NewTLSServer), and
 * a server that stands in for scanme.sh where a case only reads the request lines nuclei sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FixtureRequest, FixtureResponse } from '../../src/engine/testing/server.js';
import { httpServer, selfSignedCertificate } from '../../src/http/testing/servers.js';

const STATUS_TEXT: Readonly<Record<number, string>> = {
  301: 'Moved Permanently',
  302: 'Found',
  307: 'Temporary Redirect',
};

/** http.Redirect(w, r, location, status) for a GET. */
export function redirect(location: string, status: 301 | 302 | 307): FixtureResponse {
  return {
    status,
    headers: { Location: location, 'Content-Type': 'text/html; charset=utf-8' },
    body: `<a href="${location}">${STATUS_TEXT[status]}</a>.\n\n`,
  };
}

/** r.ParseForm(); r.Form: the url-encoded body's values first, then the query's. */
export function form(request: FixtureRequest): URLSearchParams {
  const values = new URLSearchParams();
  const contentType = request.headers['content-type'] ?? '';
  if (request.method === 'POST' && contentType.startsWith('application/x-www-form-urlencoded')) {
    for (const [name, value] of new URLSearchParams(request.body)) values.append(name, value);
  }
  for (const [name, value] of request.query) values.append(name, value);
  return values;
}

/** strings.EqualFold */
export function equalFold(a: string | null | undefined, b: string): boolean {
  return (a ?? '').toLowerCase() === b.toLowerCase();
}

export interface TlsServer {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  close(): Promise<void>;
}

/** httptest.NewTLSServer: HTTPS on 127.0.0.1 with a self-signed certificate. */
export async function tlsServer(
  handler: (request: IncomingMessage, response: ServerResponse, serverName: string | undefined) => void,
): Promise<TlsServer> {
  const server = await httpServer((request, response) => {
    const serverName = (request.socket as TLSSocket).servername;
    handler(request, response, typeof serverName === 'string' ? serverName : undefined);
  }, selfSignedCertificate());
  return { url: `https://127.0.0.1:${server.port}`, close: server.close };
}

export interface MultipartForm {
  readonly values: ReadonlyMap<string, readonly string[]>;
  /** The file names of the file parts, by field name. */
  readonly files: ReadonlyMap<string, readonly string[]>;
}

/**
 * r.ParseMultipartForm: like Go's mime/multipart, the line ending of the first boundary line (CRLF
 * or a bare LF) is the one of every part. Throws what Go would return as an error.
 */
export function multipartForm(request: FixtureRequest): MultipartForm {
  const boundary = /boundary=("?)([^";]+)\1/.exec(request.headers['content-type'] ?? '')?.[2];
  if (boundary === undefined) throw new Error('no multipart boundary param in Content-Type');
  const dash = `--${boundary}`;
  const start = request.body.indexOf(dash);
  if (start < 0) throw new Error('multipart: NextPart: EOF');
  const afterFirst = request.body.slice(start + dash.length);
  const nl = afterFirst.startsWith('\r\n') ? '\r\n' : afterFirst.startsWith('\n') ? '\n' : undefined;
  if (nl === undefined) throw new Error('multipart: NextPart: EOF');
  const values = new Map<string, string[]>();
  const files = new Map<string, string[]>();
  const sections = (nl + request.body.slice(start)).split(nl + dash).slice(1);
  for (const [index, section] of sections.entries()) {
    if (section.startsWith('--')) return { values, files };
    if (index === sections.length - 1) break;
    const part = section.slice(nl.length);
    const split = part.indexOf(nl + nl);
    if (split < 0) throw new Error('multipart: NextPart: EOF');
    const disposition = part
      .slice(0, split)
      .split(nl)
      .find((line) => line.toLowerCase().startsWith('content-disposition:'));
    const name = /\bname="([^"]*)"/.exec(disposition ?? '')?.[1];
    if (name === undefined) continue;
    const filename = /\bfilename="([^"]*)"/.exec(disposition ?? '')?.[1];
    const into = filename === undefined ? values : files;
    into.set(name, [...(into.get(name) ?? []), filename ?? part.slice(split + 2 * nl.length)]);
  }
  throw new Error('multipart: NextPart: EOF');
}

export interface RequestLineRecorder {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every line received, in the order the connections were opened. */
  lines(): string[];
  close(): Promise<void>;
}

/**
 * A server that keeps every byte it receives and answers 200 to each request: at the end of its
 * head, or, for a request whose head never ends (an unsafe raw request written without its blank
 * line), once nothing more has come for a moment, closing the connection.
 */
export async function requestLineRecorder(): Promise<RequestLineRecorder> {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const ok = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n';
  const server = createServer((socket) => {
    sockets.add(socket);
    const index = received.push('') - 1;
    let pending = '';
    let idle: NodeJS.Timeout | undefined;
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(idle);
      sockets.delete(socket);
    });
    socket.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      received[index] += text;
      pending += text;
      clearTimeout(idle);
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        pending = pending.slice(end + 4);
        socket.write(`${ok}\r\nok`);
      }
      if (pending !== '') idle = setTimeout(() => socket.end(`${ok}Connection: close\r\n\r\nok`), 200);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('recorder has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    lines: () => received.flatMap((text) => text.split(/\r?\n/)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
