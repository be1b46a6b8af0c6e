export { Decoder } from './decode.js';
export {
  type Diagnostic,
  Diagnostics,
  formatDiagnostic,
  formatPath,
  type Path,
  sortDiagnostics,
} from './diagnostic.js';
export { boundedLines } from './lines.js';
export type { MapEntry, MapNode, Position, ScalarNode, SourceNode } from './node.js';
export { formatOf, type ParsedSource, parseSource } from './parse.js';
export { printable, printableLines, quote } from './printable.js';
export { describeReadProblem, type ReadProblem, readBounded } from './read.js';
export { formatBytes } from './size.js';
export { closest, didYouMean } from './suggest.js';
