export { type Decoded, decodeEvent, parseTimestamp } from './decode-event.js';
export {
  type BadLine,
  type ImportReport,
  type ImportTarget,
  importJsonl,
  MAX_REPORTED_ERRORS,
} from './import.js';
