export { applyCredential, applyCredentialToRaw, basicAuthorization } from './apply.js';
export { type Coverage, type CoveredTarget, coverage, targetKey } from './coverage.js';
export { fillPlaceholders, placeholdersIn } from './credential.js';
export { entriesOf, entryOf, loginEntry, type SecretEntry, scopeText } from './entries.js';
export {
  type DomainItem,
  type MatchKey,
  matchKey,
  matchKeyOfUrl,
  normaliseHost,
  parseDomainItem,
} from './host.js';
export { type LoadOptions, type LoadResult, loadSecretFiles } from './load.js';
export { loginRedirectRefusal } from './login-scope.js';
export {
  inspectLoginTemplateFile,
  type LoginTemplateInfo,
  type LoginTemplateInspector,
} from './login-template.js';
export { SecretIndex } from './lookup.js';
export {
  type Credential,
  type DynamicSecret,
  type EntryOrigin,
  type Login,
  originLabel,
  type Reauth,
  type ScopedSecret,
  SECRET_TYPES,
  type SecretSet,
  type SecretSpec,
  type SecretType,
  type StaticSecret,
} from './model.js';
export { MIN_REDACTED_LENGTH, REDACTED, Redactor } from './redact.js';
export { type CommandRunner, DEFAULT_COMMAND_TIMEOUT_MS, runCommand } from './references.js';
export {
  type Applied,
  type Destination,
  type LoginContext,
  type LoginEvent,
  type LoginRunner,
  type Resolution,
  type ResolverOptions,
  SecretResolver,
} from './resolver.js';
