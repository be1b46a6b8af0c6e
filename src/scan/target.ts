import { isIPv6 } from 'node:net';
import { DEFAULT_USER_AGENT } from '../engine/index.js';
import { defaultPort, type HttpRequest, type Scheme, TransportError } from '../http/index.js';
import type { Dispatch } from '../send/index.js';
import { hasScheme } from '../targets/index.js';

/** The URL a scan input is scanned as, or why it cannot be. */
export type TargetResolution =
  | { readonly ok: true; readonly url: string }
  | { readonly ok: false; readonly message: string };

/** Whether something answers HTTP at `origin`: undefined when it does, else why not. */
export type Probe = (origin: string, signal?: AbortSignal) => Promise<string | undefined>;

/**
 * A target written with a scheme is scanned as written. One without (`app.example.com`,
 * `10.0.0.5:8080`) is probed as nuclei does: `https://` when something answers over TLS, else
 * `http://` when something answers in plain HTTP, else the target is unreachable.
 */
export async function resolveTarget(
  target: string,
  probe: Probe,
  signal?: AbortSignal,
): Promise<TargetResolution> {
  if (hasScheme(target)) return { ok: true, url: target };
  const host = isIPv6(target) ? `[${target}]` : target;
  const https = await probe(`https://${host}`, signal);
  if (https === undefined) return { ok: true, url: `https://${host}` };
  const http = await probe(`http://${host}`, signal);
  if (http === undefined) return { ok: true, url: `http://${host}` };
  return { ok: false, message: `nothing answers over https (${https}) or http (${http})` };
}

/** Probes with `GET /` (no secret: the probe only asks whether HTTP answers there); any response will do. */
export function httpProbe(dispatch: Dispatch, options: { readonly timeoutMs?: number }): Probe {
  return async (origin, signal) => {
    const url = new URL(origin);
    const scheme = url.protocol.slice(0, -1) as Scheme;
    const request: HttpRequest = {
      method: 'GET',
      scheme,
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port === '' ? defaultPort(scheme) : Number(url.port),
      target: '/',
      headers: [
        ['Host', url.host],
        ['User-Agent', DEFAULT_USER_AGENT],
        ['Accept', '*/*'],
      ],
      body: '',
    };
    try {
      await dispatch(request, {
        maxBodyBytes: 4096,
        timeoutMs: options.timeoutMs,
        signal,
      });
      return undefined;
    } catch (error) {
      if (error instanceof TransportError) return error.detail;
      throw error;
    }
  };
}
