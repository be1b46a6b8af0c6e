import { createHash } from 'node:crypto';
import { domainItemKey } from './host.js';
import {
  type EntryOrigin,
  type Login,
  originLabel,
  type Scope,
  type ScopedSecret,
  type SecretSet,
  type SecretType,
} from './model.js';
import type { LoginEvent } from './resolver.js';

/**
 * An entry of a secret file as figures and plans name it: never a value, only what it is and where
 * it applies. A dynamic entry is one entry however many `secrets:` it fills from its login.
 */
export interface SecretEntry {
  /** `static[0] of secrets.yaml`. */
  readonly label: string;
  readonly kind: 'static' | 'dynamic';
  readonly types: readonly SecretType[];
  /** `app.test, app.test:8443` or `/(.*\.)?app\.test/`. */
  readonly scope: string;
  /**
   * Kind, types and scope, hashed: the same entry in another copy of the file (a worker's) has the
   * same fingerprint. Values and file names are not part of it, so it says nothing about a secret.
   */
  readonly fingerprint: string;
}

/** The entry a secret belongs to (its dynamic entry, for the items of a `secrets:` list). */
export function entryOf(secret: ScopedSecret): SecretEntry {
  const known = described.get(secret);
  if (known !== undefined) return known;
  const entry =
    secret.kind === 'static' ? describe(secret.origin, 'static', [secret]) : loginEntry(secret.login);
  described.set(secret, entry);
  return entry;
}

/** The dynamic entry of a login. */
export function loginEntry(login: Login): SecretEntry {
  const known = described.get(login);
  if (known !== undefined) return known;
  const entry = describe(login.origin, 'dynamic', login.secrets);
  described.set(login, entry);
  return entry;
}

/** The entry a login or secret check is of. */
export function eventEntry(event: LoginEvent): SecretEntry {
  return 'login' in event ? loginEntry(event.login) : entryOf(event.secret);
}

/** Every entry of a set, in file order, each once. */
export function entriesOf(set: SecretSet): SecretEntry[] {
  const seen = new Set<SecretEntry>();
  for (const secret of set.entries) seen.add(entryOf(secret));
  for (const login of set.logins) seen.add(loginEntry(login));
  return [...seen];
}

const described = new WeakMap<object, SecretEntry>();

function describe(
  origin: EntryOrigin,
  kind: 'static' | 'dynamic',
  secrets: readonly ScopedSecret[],
): SecretEntry {
  const types = [...new Set(secrets.map(typeOf))];
  const scope = [...new Set(secrets.map((s) => scopeText(s.scope)))].join('; ');
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([kind, types, secrets.map((s) => canonicalScope(s.scope))]))
    .digest('hex')
    .slice(0, 16);
  return { label: `${originLabel(origin)} of ${origin.file}`, kind, types, scope, fingerprint };
}

function typeOf(secret: ScopedSecret): SecretType {
  return secret.kind === 'static' ? secret.credential.type : secret.spec.type;
}

/** How a scope reads in a message. */
export function scopeText(scope: Scope): string {
  return scope.kind === 'domains'
    ? scope.domains.map(domainItemKey).join(', ')
    : scope.patterns.map((p) => `/${p.source}/`).join(', ');
}

function canonicalScope(scope: Scope): readonly string[] {
  const items =
    scope.kind === 'domains'
      ? scope.domains.map((d) => `d:${domainItemKey(d)}`)
      : scope.patterns.map((p) => `r:${p.source}`);
  return [...new Set(items)].sort();
}
