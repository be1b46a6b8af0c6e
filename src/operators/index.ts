export type { OperatorError } from './errors.js';
export type { Condition, Extractor, Matcher, Operators } from './model.js';
export { type CompiledOperators, compileOperators, type Finding, type OperatorResult } from './operators.js';
export { responseVariables } from './response.js';
