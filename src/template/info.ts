import type { Classification, Severity } from '../event/index.js';
import { isSeverity, SEVERITIES } from '../event/index.js';
import type { MapEntry, Path, SourceNode } from '../source/index.js';
import { didYouMean } from '../source/index.js';
import type { ParseContext } from './context.js';
import { CLASSIFICATION_KEYS, INFO_KEYS } from './keys.js';
import type { MetadataValue, TemplateInfo } from './model.js';

/** nuclei's template id rule: letters and digits, with single `-` or `_` between them. */
export const TEMPLATE_ID = /^([a-zA-Z0-9]+[-_])*[a-zA-Z0-9]+$/;

export function decodeId(
  ctx: ParseContext,
  entry: MapEntry | undefined,
  root: SourceNode,
): string | undefined {
  if (entry === undefined) {
    ctx.error(root.pos, ['id'], 'the template needs an "id", e.g. "id: grafana-default-login"');
    return undefined;
  }
  const text = ctx.string(entry.value, ['id'], 'a template id');
  if (text === undefined) return undefined;
  if (!TEMPLATE_ID.test(text)) {
    ctx.error(
      entry.value.pos,
      ['id'],
      `"${text}" is not a valid template id; use letters and digits joined by single "-" or "_", ` +
        'with no spaces, e.g. "grafana-default-login"',
    );
    return undefined;
  }
  return text;
}

export function decodeInfo(
  ctx: ParseContext,
  entry: MapEntry | undefined,
  root: SourceNode,
): TemplateInfo | undefined {
  if (entry === undefined) {
    ctx.error(root.pos, ['info'], 'the template needs an "info" block with at least "name" and "author"');
    return undefined;
  }
  const map = ctx.decode.map(entry.value, ['info'], 'an info block (name, author, severity, …)');
  if (map === undefined) return undefined;
  const fields = ctx.fields(map, ['info'], INFO_KEYS);
  const name =
    fields.name === undefined ? undefined : ctx.decode.text(fields.name.value, ['info', 'name'], 'a name');
  if (fields.name === undefined)
    ctx.error(map.pos, ['info', 'name'], 'info needs a "name" saying what the template finds');
  const authors =
    fields.author === undefined ? [] : stringSlice(ctx, fields.author.value, ['info', 'author'], true);
  if (authors.length === 0) {
    ctx.error(
      fields.author?.value.pos ?? map.pos,
      ['info', 'author'],
      'info needs an "author" (a name, or several separated by commas)',
    );
  }
  const tags = fields.tags === undefined ? [] : stringSlice(ctx, fields.tags.value, ['info', 'tags'], true);
  const references =
    fields.reference === undefined
      ? []
      : stringSlice(ctx, fields.reference.value, ['info', 'reference'], false);
  const severity = fields.severity === undefined ? undefined : decodeSeverity(ctx, fields.severity.value);
  const classification =
    fields.classification === undefined ? undefined : decodeClassification(ctx, fields.classification.value);
  const metadata = fields.metadata === undefined ? undefined : decodeMetadata(ctx, fields.metadata.value);
  const optionalText = (key: 'description' | 'impact' | 'remediation'): string | undefined => {
    const e = fields[key];
    if (e === undefined || e.value.kind === 'null') return undefined;
    return ctx.string(e.value, ['info', key]);
  };
  if (name === undefined || authors.length === 0) return undefined;
  const description = optionalText('description');
  const impact = optionalText('impact');
  const remediation = optionalText('remediation');
  return {
    name,
    authors,
    tags,
    references,
    ...(severity === undefined ? {} : { severity }),
    ...(description === undefined ? {} : { description }),
    ...(classification === undefined ? {} : { classification }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(impact === undefined ? {} : { impact }),
    ...(remediation === undefined ? {} : { remediation }),
  };
}

/**
 * nuclei's string-or-list fields: a string is split at commas; every item is trimmed and, for
 * `normalise` fields (authors, tags, CVE and CWE ids), lower-cased. Empty items are dropped.
 */
function stringSlice(ctx: ParseContext, node: SourceNode, path: Path, normalise: boolean): string[] {
  const items: string[] = [];
  if (node.kind === 'null') return items;
  if (node.kind === 'scalar') items.push(...node.text.split(','));
  else if (node.kind === 'seq') {
    node.items.forEach((item, i) => {
      const text = ctx.string(item, [...path, i]);
      if (text !== undefined) items.push(text);
    });
  } else {
    ctx.error(node.pos, path, 'expected a text value or a list of them');
  }
  return items.map((i) => (normalise ? i.trim().toLowerCase() : i.trim())).filter((i) => i !== '');
}

function decodeSeverity(ctx: ParseContext, node: SourceNode): Severity | undefined {
  const text = ctx.string(node, ['info', 'severity'], 'a severity');
  if (text === undefined) return undefined;
  const lower = text.trim().toLowerCase();
  if (isSeverity(lower)) return lower;
  ctx.error(
    node.pos,
    ['info', 'severity'],
    `unknown severity "${text}"${didYouMean(lower, SEVERITIES)}; expected one of ${SEVERITIES.join(', ')}`,
  );
  return undefined;
}

function decodeClassification(ctx: ParseContext, node: SourceNode): Classification | undefined {
  if (node.kind === 'null') return undefined;
  const path = ['info', 'classification'];
  const map = ctx.decode.map(node, path, 'a classification block');
  if (map === undefined) return undefined;
  const fields = ctx.fields(map, path, CLASSIFICATION_KEYS);
  const list = (key: 'cve-id' | 'cwe-id'): string[] | null => {
    const e = fields[key];
    if (e === undefined) return null;
    const values = stringSlice(ctx, e.value, [...path, key], true);
    return values.length === 0 ? null : values;
  };
  const number = (key: 'cvss-score' | 'epss-score' | 'epss-percentile'): number | undefined => {
    const e = fields[key];
    if (e === undefined || e.value.kind === 'null') return undefined;
    const text = ctx.string(e.value, [...path, key], 'a number');
    if (text === undefined) return undefined;
    const value = Number(text.trim());
    if (text.trim() === '' || !Number.isFinite(value)) {
      ctx.error(e.value.pos, [...path, key], `expected a number, found "${text}"`);
      return undefined;
    }
    return value;
  };
  const text = (key: 'cvss-metrics' | 'cpe'): string | undefined => {
    const e = fields[key];
    if (e === undefined || e.value.kind === 'null') return undefined;
    return ctx.string(e.value, [...path, key]);
  };
  const out: Classification = { 'cve-id': list('cve-id'), 'cwe-id': list('cwe-id') };
  const metrics = text('cvss-metrics');
  const cvss = number('cvss-score');
  const epss = number('epss-score');
  const percentile = number('epss-percentile');
  const cpe = text('cpe');
  return {
    ...out,
    ...(metrics === undefined ? {} : { 'cvss-metrics': metrics }),
    ...(cvss === undefined ? {} : { 'cvss-score': cvss }),
    ...(epss === undefined ? {} : { 'epss-score': epss }),
    ...(percentile === undefined ? {} : { 'epss-percentile': percentile }),
    ...(cpe === undefined ? {} : { cpe }),
  };
}

function decodeMetadata(ctx: ParseContext, node: SourceNode): Record<string, MetadataValue> | undefined {
  if (node.kind === 'null') return undefined;
  const map = ctx.decode.map(node, ['info', 'metadata'], 'a mapping of metadata fields');
  if (map === undefined) return undefined;
  const value = metadataValue(map);
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, MetadataValue>)
    : undefined;
}

/** YAML values with their types: plain scalars become numbers or booleans as YAML reads them. */
export function metadataValue(node: SourceNode): MetadataValue {
  switch (node.kind) {
    case 'null':
      return null;
    case 'scalar':
      return node.style === 'plain' ? plainScalar(node.text) : node.text;
    case 'seq':
      return node.items.map(metadataValue);
    case 'map': {
      const out: Record<string, MetadataValue> = {};
      for (const entry of node.entries) out[entry.key.text] = metadataValue(entry.value);
      return out;
    }
  }
}

function plainScalar(text: string): MetadataValue {
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?(0|[1-9][0-9]*)$/.test(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : text;
  }
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number(text);
  return text;
}
