export { applyCredentialToRaw, basicAuthorization } from './apply.js';
export { type Coverage, coverage } from './coverage.js';
export { entriesOf, entryOf, eventEntry, loginEntry, type SecretEntry } from './entries.js';
export { type DomainItem, type MatchKey, matchKey, matchKeyOfUrl } from './host.js';
export { type LoadResult, loadSecretFiles } from './load.js';
export { loginKind, loginTemplatePath } from './login-method.js';
export { loginRedirectRefusal, loginScope } from './login-scope.js';
export { SecretIndex } from './lookup.js';
export {
  type BrowserLoginSpec,
  type Credential,
  type DynamicSecret,
  type FormLoginSpec,
  type FormSuccess,
  type Login,
  type OAuth2Spec,
  originLabel,
  type ScopedSecret,
  type SecretSet,
  type SecretSpec,
  type StaticSecret,
  type Verify,
} from './model.js';
export { isCredentialHeader, REDACTED, Redactor } from './redact.js';
export {
  type Applied,
  type LoginContext,
  type LoginEvent,
  type LoginRunner,
  SecretResolver,
} from './resolver.js';
export { hotp, type LoginValue, OneTimeCode, valueNow } from './totp.js';
