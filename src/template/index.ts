export type { UnsupportedFeature } from './context.js';
export { type FlowRef, type FlowSyntax, flowBlockIndex, parseFlow } from './flow.js';
export { analyseFlowScript, FLOW_PROTOCOLS, type FlowCall, type FlowScriptAnalysis } from './flow-script.js';
export { TEMPLATE_ID } from './info.js';
export { type ExternalVariable, externalVariables } from './inputs.js';
export {
  CLASSIFICATION_KEYS,
  EXTRACTOR_KEYS,
  HTTP_KEYS,
  INFO_KEYS,
  type KeySpec,
  type KeyStatus,
  MATCHER_KEYS,
  TEMPLATE_KEYS,
} from './keys.js';
export {
  isTemplateFile,
  type LoadOptions,
  listTemplateFiles,
  loadTemplate,
  loadTemplates,
  MAX_TEMPLATE_BYTES,
  payloadFileReader,
  readTemplateText,
  type TemplateFileText,
} from './load.js';
export {
  type AttackType,
  DEFAULT_MAX_REDIRECTS,
  type Flow,
  type FlowExpression,
  type HeaderTemplate,
  type HttpBlock,
  type HttpRequests,
  type MetadataValue,
  type PathTemplate,
  type PayloadSet,
  type Payloads,
  type RawRequestTemplate,
  type RedirectPolicy,
  type Template,
  type TemplateInfo,
  type TemplateText,
  type Variable,
} from './model.js';
export {
  type ParsedTemplate,
  type ParseOptions,
  parseTemplate,
  type TemplateResult,
} from './parse.js';
export {
  ATTACK_TYPES,
  combinationCount,
  type PayloadFileReader,
  type PayloadValues,
  payloadCombinations,
  payloadFileValues,
} from './payloads.js';
export {
  MAX_ANNOTATION_TIMEOUT_MS,
  type ParsedRawRequest,
  parseGoDuration,
  parseRawRequest,
  type RawAnnotations,
  type RawParseOptions,
  RawRequestError,
} from './raw.js';
export {
  mergePaths,
  mergeQueries,
  newRandstr,
  pathHasTrailingSlash,
  portOverride,
  type TargetVariableOptions,
  targetVariables,
  withPort,
} from './target.js';
