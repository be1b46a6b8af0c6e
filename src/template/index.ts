export { DeferredTemplate, type TemplateChange } from './deferred.js';
export { escapeInvalidPercentPath } from './escape.js';
export { flowBlockIndex } from './flow.js';
export { type ExternalVariable, externalVariables } from './inputs.js';
export {
  type DuplicateId,
  type SelectedResult,
  type Selection,
  type SelectOptions,
  selectTemplates,
} from './library.js';
export {
  isTemplateFile,
  listTemplateFiles,
  loadTemplate,
  loadTemplates,
  MAX_TEMPLATE_BYTES,
  payloadFileReader,
  readTemplateText,
} from './load.js';
export {
  type AttackType,
  DEFAULT_MAX_REDIRECTS,
  type FlowExpression,
  type HttpBlock,
  type RedirectPolicy,
  type Template,
  type TemplateInfo,
} from './model.js';
export { type ParsedTemplate, type ParseOptions, parseTemplate, type TemplateResult } from './parse.js';
export { type PayloadFileReader, payloadCombinations, payloadFileValues } from './payloads.js';
export { writesOastName } from './placeholders.js';
export { parseRawRequest, RawRequestError } from './raw.js';
export {
  conditionScope,
  type DefaultExclusions,
  filterTakes,
  idMatches,
  isGlob,
  NO_FILTER,
  PROTOCOL_TYPES,
  readMetadata,
  type TemplateFilter,
  type TemplateMetadata,
} from './select.js';
export {
  mergeQueries,
  newRandstr,
  pathHasTrailingSlash,
  portOverride,
  targetVariables,
  withPort,
} from './target.js';
export { type VariableFile, VariablePayloadError, withVariablePayloads } from './variable-payloads.js';
