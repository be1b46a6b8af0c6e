/** `json_minify` and `json_prettify` with the output of Go's encoding/json. */
import { argumentError } from '../errors.js';
import { compareGoStrings } from '../go-strings.js';
import { fixed, type HelperFunction, textArg } from './helper.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function parseJson(name: string, text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw argumentError(name, 'the input is not valid JSON');
  }
}

/** Go's json.Marshal of what json.Unmarshal put in a map[string]interface{}: keys sorted, HTML escaped. */
function minify(text: string): string {
  const value = parseJson('json_minify', text);
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    throw argumentError('json_minify', 'the input must be a JSON object');
  }
  return marshal(value);
}

/** Go's json.Marshal of a value json.Unmarshal produced: object keys sorted, HTML escaped. */
export function marshal(value: Json): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'string') return quote(value);
  if (Array.isArray(value)) return `[${value.map(marshal).join(',')}]`;
  const keys = Object.keys(value).sort(compareGoStrings);
  return `{${keys.map((key) => `${quote(key)}:${marshal(value[key] as Json)}`).join(',')}}`;
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/** Go's JSON string encoding: HTML-sensitive characters, U+2028/9 and invalid UTF-8 escaped. */
function quote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    const short = SHORT_ESCAPES[char];
    if (short !== undefined) out += short;
    else if (
      code < 0x20 ||
      char === '<' ||
      char === '>' ||
      char === '&' ||
      code === 0x2028 ||
      code === 0x2029
    ) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    } else if (code >= 0xd800 && code <= 0xdfff) out += '\\ufffd';
    else out += char;
  }
  return `${out}"`;
}

/** Go's json.Indent(dst, src, "", "    "): token text kept, whitespace re-laid, empty {} and [] kept. */
function prettify(text: string): string {
  parseJson('json_prettify', text);
  let out = '';
  let depth = 0;
  let pendingIndent = false;
  let i = text.length - text.replace(/^[ \t\r\n]+/, '').length;
  const body = text.replace(/[ \t\r\n]+$/, '');
  const newline = (): string => `\n${'    '.repeat(depth)}`;
  while (i < body.length) {
    const char = body[i] as string;
    if (char === ' ' || char === '\t' || char === '\r' || char === '\n') {
      i += 1;
      continue;
    }
    if (pendingIndent && char !== '}' && char !== ']') {
      pendingIndent = false;
      depth += 1;
      out += newline();
    }
    if (char === '"') {
      const end = stringEnd(body, i);
      out += body.slice(i, end);
      i = end;
      continue;
    }
    i += 1;
    if (char === '{' || char === '[') {
      pendingIndent = true;
      out += char;
    } else if (char === ',') out += `,${newline()}`;
    else if (char === ':') out += ': ';
    else if (char === '}' || char === ']') {
      if (pendingIndent) pendingIndent = false;
      else {
        depth -= 1;
        out += newline();
      }
      out += char;
    } else out += char;
  }
  return out + text.slice(body.length);
}

function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

export const jsonFunctions: readonly HelperFunction[] = [
  fixed('json_minify', 1, (args) => minify(textArg(args, 0))),
  fixed('json_prettify', 1, (args) => prettify(textArg(args, 0))),
];
