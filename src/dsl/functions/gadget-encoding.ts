/**
 * The encodings generate_java_gadget and generate_dotnet_gadget give their payloads in, as nuclei's
 * library does for both.
 */
import { bytesToText } from '../bytes.js';
import { gzipGo } from './compression.js';

/** nuclei's `+` of base64 is escaped for a URL query, nothing else. */
const base64ForUrl = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replaceAll('+', '%2B');

/** The payload in nuclei's encodings: raw, hex, gzip, gzip-base64, base64-raw, and base64 otherwise. */
export function encodeGadget(payload: Buffer, encoding: string): string {
  switch (encoding) {
    case 'raw':
      return bytesToText(payload);
    case 'hex':
      return payload.toString('hex');
    case 'gzip':
      return bytesToText(gzipGo(payload));
    case 'gzip-base64':
      return base64ForUrl(gzipGo(payload));
    case 'base64-raw':
      return payload.toString('base64');
    default:
      return base64ForUrl(payload);
  }
}
