import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';

/**
 * TLS settings for scanning. Without verification (the default, as scanners do) old protocol
 * versions and weak ciphers are allowed too, so that legacy targets can still be reached; with
 * verification, Node's defaults apply unchanged.
 */
export function tlsOptions(verify: boolean): ConnectionOptions {
  if (verify) return { rejectUnauthorized: true };
  return { rejectUnauthorized: false, minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' };
}

/** SNI name for a host: none for IP literals (TLS forbids them there). */
export function serverName(hostname: string): string | undefined {
  return isIP(hostname) === 0 ? hostname : undefined;
}
