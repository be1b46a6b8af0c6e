export {
  type CheckedTarget,
  checkTarget,
  parseTargetList,
  type TargetList,
  TargetListReader,
  type TargetProblem,
} from './targets.js';
