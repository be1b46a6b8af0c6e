export { type Decoded, decodeEvent, parseTimestamp } from './decode-event.js';
export {
  type BadLine,
  type ImportReport,
  ImportStoppedError,
  type ImportTarget,
  importJsonl,
  MAX_LINE_BYTES,
  MAX_NESTING,
  MAX_REPORTED_ERRORS,
  type StoppedScan,
} from './import.js';
