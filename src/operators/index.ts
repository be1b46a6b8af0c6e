export { formatOperatorError, type OperatorError } from './errors.js';
export { goJson, type Value } from './go-json.js';
export type {
  Condition,
  Extractor,
  ExtractorType,
  Matcher,
  MatcherType,
  Operators,
} from './model.js';
export {
  type CompiledOperators,
  compileOperators,
  type Finding,
  type OperatorResult,
} from './operators.js';
export {
  indexedResponseData,
  mergeResponseData,
  type ReceivedResponse,
  type ResponseContext,
  type ResponseData,
  responseCookies,
  responseVariables,
  variablesOnly,
} from './response.js';
