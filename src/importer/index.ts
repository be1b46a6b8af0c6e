export { type ImportReport, ImportStoppedError, importJsonl } from './import.js';
