export { GoRegex, type RegexMatch, RegexSyntaxError } from './regex.js';
