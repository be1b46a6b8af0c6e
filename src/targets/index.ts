export {
  type CheckedTarget,
  checkTarget,
  describeTargetProblem,
  MAX_TARGET_LINE_BYTES,
  parseTargetList,
  readTargetList,
  type TargetList,
  TargetListReader,
  type TargetProblem,
} from './targets.js';
