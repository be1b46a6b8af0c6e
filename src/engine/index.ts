/**
 * The template engine: runs parsed nuclei HTTP templates against a target and reports nuclei's
 * result events. Used by the scanner (targets × templates) and by dynamic secrets (login templates).
 */

export { rfc3339, unreachableEvent } from './event.js';
export { LoginError, TemplateLoginRunner } from './login.js';
export { usesOast } from './oast.js';
export { type RunnableTemplate, runTemplate } from './run-template.js';
export {
  DEFAULT_USER_AGENT,
  type RequestFailure,
  type RequestOutcome,
  type RunOptions,
  type SendingOverrides,
  type SkippedRequest,
  type TemplateRun,
} from './types.js';
