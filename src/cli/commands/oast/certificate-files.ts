import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { certificateProblem, type TlsCertificate } from '../../../oast/index.js';
import { UserError } from '../../exit.js';

/** The flags that name the certificate and key files, as the command spells them. */
export interface CertificateFlags {
  readonly cert: string;
  readonly key: string;
}

/**
 * The HTTPS listener's certificate from the files the user named, checked: readable, PEM, and a
 * matching pair. Undefined when neither is given (the listener makes a self-signed one).
 */
export function readCertificateFiles(
  certPath: string | undefined,
  keyPath: string | undefined,
  cwd: string,
  flags: CertificateFlags,
): TlsCertificate | undefined {
  if (certPath === undefined && keyPath === undefined) return undefined;
  if (certPath === undefined || keyPath === undefined) {
    throw new UserError(
      `${flags.cert} FILE and ${flags.key} FILE go together: give both, or neither for a self-signed certificate`,
    );
  }
  const certificate = {
    cert: readPem(resolve(cwd, certPath), certPath, flags.cert),
    key: readPem(resolve(cwd, keyPath), keyPath, flags.key),
  };
  const problem = certificateProblem(certificate, {
    cert: `${flags.cert} ${certPath}`,
    key: `${flags.key} ${keyPath}`,
  });
  if (problem !== undefined) throw new UserError(problem);
  return certificate;
}

function readPem(path: string, given: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a folder'
            : String(error);
    throw new UserError(`${flag} ${given}: cannot read it (${why})`);
  }
}
