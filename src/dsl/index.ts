/**
 * The expression language of nuclei templates: `{{…}}` placeholders in requests and the `dsl:`
 * expressions of matchers and extractors. govaluate's syntax and semantics, nuclei's helper functions,
 * Go's byte-string semantics (see bytes.ts for how bytes are held in JavaScript strings).
 */
export { bytesToText, replaceInvalidBytes, textToBytes } from './bytes.js';
export { type CompiledExpression, compileExpression } from './compile.js';
export { DslEvaluationError, DslSyntaxError } from './errors.js';
export {
  type OutboundSettings,
  registerOutbound,
  type UnconfiguredHelper,
  unconfiguredHelpers,
} from './functions/index.js';
export { LayeredScope } from './layers.js';
export { ScopeView } from './scope-view.js';
export { compileTemplateString, type TemplateString, type UnresolvedPlaceholder } from './template.js';
export { type DslValue, toText } from './value.js';
