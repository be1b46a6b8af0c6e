import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { certificateProblem, selfSignedCertificate } from './certificate.js';

const names = { cert: '--tls-cert a.pem', key: '--tls-key b.pem' };

describe('the self-signed certificate of the HTTPS listener', () => {
  it('names the domain and every name under it, is signed by its own key, and is valid from now for a year', () => {
    const now = new Date('2026-03-01T12:00:00Z');
    const { cert, key } = selfSignedCertificate('oast.example.com', now);
    const x509 = new X509Certificate(cert);
    expect(x509.subject).toBe('CN=oast.example.com');
    expect(x509.subjectAltName).toBe('DNS:oast.example.com, DNS:*.oast.example.com');
    expect(x509.checkHost('c0ffee.oast.example.com')).toBe('*.oast.example.com');
    expect(x509.checkHost('example.com')).toBeUndefined();
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.checkPrivateKey(createPrivateKey(key))).toBe(true);
    expect(new Date(x509.validFrom).getTime()).toBeLessThanOrEqual(now.getTime());
    expect(new Date(x509.validTo).getTime()).toBe(now.getTime() + 365 * 86_400_000);
  });

  it('is accepted every time it is made, whatever its random serial number', () => {
    for (let i = 0; i < 1_000; i++) {
      expect(
        certificateProblem(selfSignedCertificate('oast.test'), names),
        `certificate ${i}`,
      ).toBeUndefined();
    }
  });

  it('is a fresh key and serial number each time', () => {
    const first = new X509Certificate(selfSignedCertificate('oast.test').cert);
    const second = new X509Certificate(selfSignedCertificate('oast.test').cert);
    expect(first.serialNumber).not.toBe(second.serialNumber);
    expect(first.publicKey.equals(second.publicKey)).toBe(false);
  });
});

describe('a given certificate and key', () => {
  it('are accepted as a matching pair', () => {
    expect(certificateProblem(selfSignedCertificate('oast.test'), names)).toBeUndefined();
  });

  it('are refused, naming which, when one is not PEM or they do not match', () => {
    const good = selfSignedCertificate('oast.test');
    expect(certificateProblem({ ...good, cert: 'not a certificate' }, names)).toBe(
      '--tls-cert a.pem is not a PEM certificate (expected -----BEGIN CERTIFICATE-----)',
    );
    expect(certificateProblem({ ...good, key: good.cert }, names)).toMatch(
      /^--tls-key b\.pem is not an unencrypted PEM private key/,
    );
    expect(certificateProblem({ ...good, key: selfSignedCertificate('oast.test').key }, names)).toBe(
      '--tls-key b.pem is not the private key of --tls-cert a.pem',
    );
  });
});
