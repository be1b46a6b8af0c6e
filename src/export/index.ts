/**
 * Findings exported for other tools: SARIF 2.1.0, markdown (an index and a file per finding), one
 * JSON array, CSV. Plain functions of redacted result events; the caller writes the files.
 */
export { type CsvFinding, csvExport } from './csv.js';
export { jsonExport } from './json.js';
export {
  MARKDOWN_INDEX,
  markdownFileName,
  markdownFinding,
  markdownIndexHeader,
  markdownIndexRow,
} from './markdown.js';
export { type ExportTool, sarifExport, sarifLog } from './sarif.js';
