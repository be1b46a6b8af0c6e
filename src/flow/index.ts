/** The sandbox that runs a template's `flow:` JavaScript. */
export {
  DEFAULT_FLOW_LIMITS,
  type FlowHost,
  FlowHostError,
  type FlowLimits,
  type FlowOutcome,
  type FlowValue,
  MIN_FLOW_MEMORY_BYTES,
  runFlowScript,
} from './sandbox.js';
