/**
 * The fields the filters look at (id, tags, authors, severity, protocol), read from a template's
 * lines without a YAML parser, for templates written the plain way nearly all are. Anything this
 * reader does not know for sure (quotes, anchors, flow collections, tabs, block scalars, a key
 * given twice) gives up, and the caller parses the YAML instead.
 */
import { isSeverity, type Severity } from '../event/index.js';
import { TEMPLATE_ID } from './info.js';
import { type FilterFields, protocolOfKeys } from './select.js';

/** A one-line plain value nothing in YAML reads differently: no quotes, indicators or escapes. */
const PLAIN = /^[A-Za-z0-9_][A-Za-z0-9 ,._+/()-]*$/;
const TOP_KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?:\s(.*))?$/;
const CHILD_KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?:\s(.*))?$/;

interface InfoFields {
  name: boolean;
  author?: string[];
  tags?: string[];
  severity?: string;
}

export function readQuickFields(file: string, text: string): FilterFields | undefined {
  if (text.includes('\t') || text.startsWith('\uFEFF') || file.toLowerCase().endsWith('.json'))
    return undefined;
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  const keys: string[] = [];
  let id: string | undefined;
  let info: InfoFields | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (isBlankOrComment(line) || line.startsWith(' ')) continue;
    const match = TOP_KEY.exec(line);
    if (match === null) return undefined;
    const key = match[1] as string;
    if (keys.includes(key)) return undefined;
    keys.push(key);
    const value = valueText(match[2]);
    if (key === 'id') {
      if (value === undefined || !PLAIN.test(value) || !TEMPLATE_ID.test(value)) return undefined;
      id = value;
    } else if (key === 'info') {
      if (value !== '') return undefined;
      const read = readInfo(lines, i + 1);
      if (read === undefined) return undefined;
      info = read;
    }
  }
  if (id === undefined || info === undefined || !info.name) return undefined;
  const authors = info.author ?? [];
  const severity = info.severity?.toLowerCase();
  if (authors.length === 0 || (severity !== undefined && !isSeverity(severity))) return undefined;
  return {
    file,
    id,
    protocol: protocolOfKeys(keys),
    info: {
      authors,
      tags: info.tags ?? [],
      ...(severity === undefined ? {} : { severity: severity as Severity }),
    },
  };
}

/** The info block's name (present or not), author, tags and severity, from the line after `info:`. */
function readInfo(lines: readonly string[], start: number): InfoFields | undefined {
  const fields: InfoFields = { name: false };
  let indent: number | undefined;
  let list: 'author' | 'tags' | 'other' | undefined;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i] as string;
    if (isBlankOrComment(line)) continue;
    const own = line.length - line.trimStart().length;
    if (own === 0) break;
    indent ??= own;
    if (own < indent) return undefined;
    const body = line.slice(own);
    if (own > indent || body.startsWith('- ') || body === '-') {
      if (list === 'author' || list === 'tags') {
        if (own > indent && !body.startsWith('-')) return undefined;
        const item = valueText(body.slice(1));
        if (item === undefined || !PLAIN.test(item)) return undefined;
        const values = fields[list] ?? [];
        values.push(...normalised([item]));
        fields[list] = values;
      }
      continue;
    }
    const match = CHILD_KEY.exec(body);
    if (match === null) return undefined;
    const key = match[1] as string;
    const value = valueText(match[2]);
    if (value === undefined) return undefined;
    list = 'other';
    if (key === 'name') {
      if (fields.name || /^[|>&*!{[]/.test(value)) return undefined;
      fields.name = value !== '';
    } else if (key === 'author' || key === 'tags') {
      if (fields[key] !== undefined) return undefined;
      if (value === '') list = key;
      else if (!PLAIN.test(value)) return undefined;
      fields[key] = normalised(value.split(','));
    } else if (key === 'severity') {
      if (fields.severity !== undefined || !PLAIN.test(value)) return undefined;
      fields.severity = value.trim();
    }
  }
  return fields;
}

/** nuclei's string-or-list fields: trimmed, lower-cased, empty items dropped. */
function normalised(items: readonly string[]): string[] {
  return items.map((item) => item.trim().toLowerCase()).filter((item) => item !== '');
}

/**
 * A value after `key:` with a trailing ` # comment` taken off; undefined for an anchor, an alias, a
 * tag or a null, which YAML reads differently from their text.
 */
function valueText(raw: string | undefined): string | undefined {
  const value = (raw ?? '').replace(/(^|\s)#.*$/, '').trim();
  return /^[&*!]/.test(value) || /^(null|Null|NULL|~)$/.test(value) ? undefined : value;
}

function isBlankOrComment(line: string): boolean {
  const trimmed = line.trimStart();
  return trimmed === '' || trimmed.startsWith('#');
}
