/** The sandbox that runs a template's `flow:` JavaScript. */
export {
  DEFAULT_FLOW_LIMITS,
  type FlowHost,
  FlowHostError,
  type FlowLimits,
  type FlowValue,
  flowEngineCounts,
  runFlowScript,
} from './sandbox.js';
