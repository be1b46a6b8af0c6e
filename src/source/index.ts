export { Decoder } from './decode.js';
export {
  type Diagnostic,
  Diagnostics,
  formatDiagnostic,
  formatPath,
  type Path,
  type PathSegment,
  type Severity,
  sortDiagnostics,
} from './diagnostic.js';
export { boundedLines, type Line } from './lines.js';
export type { MapEntry, MapNode, NullNode, Position, ScalarNode, SeqNode, SourceNode } from './node.js';
export { describeNode } from './node.js';
export { formatOf, type ParsedSource, parseSource, type SourceFormat } from './parse.js';
export { printable, printableLines, quote } from './printable.js';
export {
  describeReadProblem,
  type ReadLimits,
  type ReadProblem,
  type ReadResult,
  readBounded,
} from './read.js';
export { formatBytes } from './size.js';
export { closest, didYouMean } from './suggest.js';
