import { createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';

/** A certificate and its private key, PEM. */
export interface TlsCertificate {
  readonly cert: string;
  readonly key: string;
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
const SUBJECT_ALT_NAME = '2.5.29.17';
const VALIDITY_DAYS = 365;

/**
 * A self-signed certificate (ECDSA P-256) for `domain` and `*.domain`, so HTTPS callbacks to any
 * name under the domain complete their handshake with targets that do not verify certificates.
 * Built with node:crypto alone: DER by hand, signed with the fresh key. Written here because the
 * one certificate this needs is a hundred lines of DER, where the libraries that make certificates
 * (node-forge, @peculiar/x509) bring their own big-number or WebCrypto stacks; the tests read the
 * result back with node's X509Certificate and complete real TLS handshakes with it.
 */
export function selfSignedCertificate(domain: string, now = new Date()): TlsCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = sequence(set(sequence(oid(COMMON_NAME), utf8String(domain))));
  const notAfter = new Date(now.getTime() + VALIDITY_DAYS * 86_400_000);
  const altNames = sequence(dnsName(domain), dnsName(`*.${domain}`));
  const tbs = sequence(
    tagged(0xa0, integer(Buffer.from([2]))),
    integer(serialNumber()),
    sequence(oid(ECDSA_WITH_SHA256)),
    name,
    sequence(utcTime(new Date(now.getTime() - 3_600_000)), utcTime(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tagged(0xa3, sequence(sequence(oid(SUBJECT_ALT_NAME), tagged(0x04, altNames)))),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = sequence(
    tbs,
    sequence(oid(ECDSA_WITH_SHA256)),
    tagged(0x03, Buffer.concat([Buffer.from([0]), signature])),
  );
  return {
    cert: pem('CERTIFICATE', der),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** Why a given certificate or key cannot be used, said for the user; undefined when the pair is good. */
export function certificateProblem(
  certificate: TlsCertificate,
  names: { readonly cert: string; readonly key: string },
): string | undefined {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(certificate.cert);
  } catch {
    return `${names.cert} is not a PEM certificate (expected -----BEGIN CERTIFICATE-----)`;
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(certificate.key);
  } catch {
    return `${names.key} is not an unencrypted PEM private key (expected -----BEGIN PRIVATE KEY----- or similar)`;
  }
  if (!x509.checkPrivateKey(key)) return `${names.key} is not the private key of ${names.cert}`;
  return undefined;
}

/**
 * 16 random bytes, the first 0x40–0x7f: positive, and with no leading zero byte, which DER's
 * minimal encoding of an INTEGER forbids (OpenSSL refused one certificate in 256).
 */
function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x3f) | 0x40;
  return bytes;
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

function tagged(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function sequence(...items: Buffer[]): Buffer {
  return tagged(0x30, Buffer.concat(items));
}

function set(...items: Buffer[]): Buffer {
  return tagged(0x31, Buffer.concat(items));
}

function integer(bytes: Buffer): Buffer {
  return tagged(0x02, bytes);
}

function utf8String(text: string): Buffer {
  return tagged(0x0c, Buffer.from(text, 'utf8'));
}

function dnsName(text: string): Buffer {
  return tagged(0x82, Buffer.from(text, 'ascii'));
}

function utcTime(date: Date): Buffer {
  const iso = date.toISOString();
  const text = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return tagged(0x17, Buffer.from(text, 'ascii'));
}

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tagged(0x06, Buffer.from(bytes));
}
