export { GoRegex, type RegexMatch, RegexSyntaxError } from './regex.js';
export { rememberBytes } from './subject.js';
