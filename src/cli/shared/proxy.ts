/** `-proxy`: the proxies given (URLs, or files of them), and the first of them that answers. */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type ProxyServer, parseProxy, proxyAnswers } from '../../http/index.js';
import { UserError } from '../exit.js';
import type { CliIo } from '../io.js';
import { isFile } from './files.js';

/** A proxy file is a list of URLs, not a place for anything large. */
const MAX_PROXY_FILE = 1024 * 1024;

/**
 * As nuclei: each `-proxy` value is a proxy URL or a file of them (one per line), and the scan
 * uses the first that accepts a connection. None given: undefined. None answering: a `UserError`
 * saying why each was passed over, before any request.
 */
export async function chooseProxy(
  given: readonly string[],
  io: CliIo,
  timeoutMs: number,
): Promise<ProxyServer | undefined> {
  if (given.length === 0) return undefined;
  const proxies = (await Promise.all(given.map((item) => proxiesOf(item, io)))).flat();
  if (proxies.length === 0) throw new UserError('-proxy: the proxy files list no proxy');
  const passedOver: string[] = [];
  for (const proxy of proxies) {
    const why = await proxyAnswers(proxy, timeoutMs);
    if (why === undefined) return proxy;
    passedOver.push(`${proxy.label} (${why})`);
  }
  throw new UserError(`-proxy: no proxy answers: ${passedOver.join(', ')}; no request was sent`);
}

async function proxiesOf(item: string, io: CliIo): Promise<ProxyServer[]> {
  const path = resolve(io.cwd, item);
  if (!(await isFile(path))) return [parsed(item, '-proxy')];
  const text = await readFile(path, 'utf8');
  if (text.length > MAX_PROXY_FILE) throw new UserError(`-proxy ${item}: the file is over 1 MiB`);
  return text
    .split(/\r?\n/)
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '' && !line.startsWith('#'))
    .map(({ line, number }) => parsed(line, `-proxy ${item}:${number}`));
}

function parsed(text: string, where: string): ProxyServer {
  const proxy = parseProxy(text);
  if (typeof proxy === 'string') throw new UserError(`${where}: ${proxy}`);
  return proxy;
}
