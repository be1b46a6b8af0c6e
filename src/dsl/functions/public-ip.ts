/**
 * `public_ip()`: this machine's address as the internet sees it. nuclei asks a third-party service
 * (checkip.amazonaws.com) once per run; keyhole asks the same service, or the one
 * `KEYHOLE_PUBLIC_IP_URL` names, only when a template calls the helper, says so, and keeps the answer
 * for the rest of the run. `KEYHOLE_PUBLIC_IP` gives the address instead, and nothing is asked.
 */
import { isIP } from 'node:net';
import { argumentError } from '../errors.js';
import { fixed, type HelperFunction } from './helper.js';
import { announce, callService, outboundEnvironment, serviceUrl, warningOfFailure } from './outbound.js';

export const PUBLIC_IP_SERVICE = 'https://checkip.amazonaws.com/';
/** A failure is kept this long, so that a run without internet does not ask before every request. */
const FAILURE_KEPT_MS = 5 * 60_000;
const TIMEOUT_MS = 5_000;

type Asked = { readonly address: string } | { readonly failure: Error; readonly at: number };

const asked = new Map<string, Asked>();

function ask(url: string): string {
  const known = asked.get(url);
  if (known !== undefined && 'address' in known) return known.address;
  if (known !== undefined && Date.now() - known.at < FAILURE_KEPT_MS) throw known.failure;
  try {
    announce(`public_ip() asks ${url} for this machine's public address (once per run)`);
    const answer = callService('public_ip', {
      url,
      method: 'GET',
      headers: {},
      timeoutMs: TIMEOUT_MS,
      maxBytes: 1024,
    });
    if (answer.status !== 200)
      throw argumentError('public_ip', `${url} answered with status ${answer.status}`);
    const address = answer.body.trim();
    if (isIP(address) === 0)
      throw argumentError('public_ip', `${url} answered with something other than an IP address`);
    asked.set(url, { address });
    return address;
  } catch (error) {
    asked.set(url, { failure: error as Error, at: Date.now() });
    throw error;
  }
}

export function publicIp(
  environment: Readonly<Record<string, string | undefined>> = outboundEnvironment(),
): string {
  const given = environment.KEYHOLE_PUBLIC_IP?.trim();
  if (given !== undefined && given !== '') {
    if (isIP(given) === 0)
      throw argumentError('public_ip', `KEYHOLE_PUBLIC_IP is not an IP address: ${JSON.stringify(given)}`);
    return given;
  }
  const configured = environment.KEYHOLE_PUBLIC_IP_URL?.trim();
  const url = configured
    ? serviceUrl('public_ip', 'KEYHOLE_PUBLIC_IP_URL', configured).href
    : PUBLIC_IP_SERVICE;
  return ask(url);
}

export const publicIpFunctions: readonly HelperFunction[] = [
  fixed('public_ip', 0, () => warningOfFailure(() => publicIp())),
];
