import { request as httpRequest } from 'node:http';

export interface SentResponse {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are arbitrary JSON that the assertions inspect.
  readonly body: any;
}

/**
 * Sends one request with exactly these headers (node:http adds only Host and, for a Buffer body,
 * Content-Length unless given) and reads the JSON answer: what a Go client's request looks like.
 * `chunked` sends the body with `Transfer-Encoding: chunked` instead of a Content-Length.
 */
export function send(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer | string,
  options: { chunked?: boolean } = {},
): Promise<SentResponse> {
  const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const head = { ...headers };
  if (bytes !== undefined && options.chunked !== true && head['Content-Length'] === undefined) {
    head['Content-Length'] = String(bytes.length);
  }
  if (options.chunked === true) head['Transfer-Encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    const request = httpRequest(url + path, { method, headers: head }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: the assertion on the body shows it
        }
        resolve({ status: response.statusCode ?? 0, body: parsed });
      });
      response.on('error', reject);
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      // The server may answer and close while the rest of a refused body is still being written.
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    if (bytes === undefined) request.end();
    else if (options.chunked === true) {
      for (let at = 0; at < bytes.length; at += 1 << 20) request.write(bytes.subarray(at, at + (1 << 20)));
      request.end();
    } else request.end(bytes);
  });
}
