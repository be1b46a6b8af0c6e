/**
 * `wappalyzer(headers, body)`, as nuclei's: the technologies a response's headers, cookies and HTML
 * show, by wappalyzergo's fingerprints and matching rules, as a sorted list of `Name` or
 * `Name:version`. keyhole does not ship the fingerprints (they derive from GPL-3.0 data): the user
 * names a copy of wappalyzergo's fingerprints_data.json in KEYHOLE_WAPPALYZER_FINGERPRINTS.
 */
import { resolve } from 'node:path';
import { type DefaultTreeAdapterTypes, parse as parseHtml } from 'parse5';
import { argumentError } from '../errors.js';
import type { DslValue } from '../value.js';
import { arg, describe, fixed, type HelperFunction } from './helper.js';
import { outboundEnvironment, warningOfFailure } from './outbound.js';
import { FingerprintFileError, loadFingerprints, type Technology } from './wappalyzer-data.js';
import { evaluatePattern, type FingerprintPattern, type PatternMatch } from './wappalyzer-pattern.js';

export const FINGERPRINTS_VARIABLE = 'KEYHOLE_WAPPALYZER_FINGERPRINTS';

/** What a user reads when the fingerprints are not configured: how to give them. */
export const FINGERPRINTS_HOWTO = `set ${FINGERPRINTS_VARIABLE} to the path of a fingerprints_data.json (wappalyzergo's, from github.com/projectdiscovery/wappalyzergo; keyhole does not ship it)`;

/** A technology seen so far: wappalyzergo adds up the confidence of each sighting, up to 100. */
interface Sighting {
  confidence: number;
  version: string;
}

class Sightings {
  private readonly seen = new Map<string, Sighting>();

  add(name: string, version: string, confidence: number): void {
    const known = this.seen.get(name);
    if (known === undefined) {
      this.seen.set(name, { confidence, version });
      return;
    }
    known.confidence = Math.min(100, known.confidence + confidence);
    if (known.version === '') known.version = version;
  }

  addMatches(technologies: Iterable<readonly [Technology, PatternMatch]>): void {
    for (const [technology, match] of technologies) {
      this.add(technology.name, match.version, match.confidence);
      for (const implied of technology.implies) this.add(implied, '', match.confidence);
    }
  }

  /** Sorted as Go's sort.Strings sorts (by UTF-8 bytes, the same order as code points). */
  names(): string[] {
    const names: string[] = [];
    for (const [name, { confidence, version }] of this.seen) {
      if (confidence !== 0) names.push(version === '' ? name : `${name}:${version}`);
    }
    return names.sort((a, b) => compareCodePoints(a, b));
  }
}

function compareCodePoints(a: string, b: string): number {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return Buffer.compare(x, y);
}

/** The best of several matching patterns: the highest confidence, the most specific version. */
function bestOf(patterns: Iterable<FingerprintPattern>, text: string): PatternMatch | undefined {
  let best: { confidence: number; version: string } | undefined;
  for (const pattern of patterns) {
    const match = evaluatePattern(pattern, text);
    if (match === undefined) continue;
    best ??= { confidence: 0, version: '' };
    if (match.confidence > best.confidence) best.confidence = match.confidence;
    if (match.version !== '' && (best.version === '' || moreSpecific(match.version, best.version))) {
      best.version = match.version;
    }
  }
  return best;
}

function merge(into: PatternMatch | undefined, match: PatternMatch | undefined): PatternMatch | undefined {
  if (match === undefined) return into;
  if (into === undefined) return match;
  const version =
    match.version !== '' && (into.version === '' || moreSpecific(match.version, into.version))
      ? match.version
      : into.version;
  return { confidence: Math.max(into.confidence, match.confidence), version };
}

/** More dot-separated parts is more specific; with as many, the higher version. */
function moreSpecific(a: string, b: string): boolean {
  const x = versionParts(a);
  const y = versionParts(b);
  if (x.length !== y.length) return x.length > y.length;
  for (let i = 0; i < x.length; i++) {
    if ((x[i] as number) !== (y[i] as number)) return (x[i] as number) > (y[i] as number);
  }
  return false;
}

function versionParts(version: string): number[] {
  return version
    .split('.')
    .filter((part) => part !== '')
    .map((part) => (/^[-+]?\d+$/.test(part) ? Number.parseInt(part, 10) : 0));
}

/** Technologies whose `field` patterns keyed by a name match the value under that name. */
function* keyedMatches(
  technologies: readonly Technology[],
  field: 'headers' | 'cookies',
  values: ReadonlyMap<string, string>,
): Generator<readonly [Technology, PatternMatch]> {
  for (const technology of technologies) {
    let found: PatternMatch | undefined;
    for (const [key, pattern] of technology[field]) {
      const value = values.get(key);
      if (value !== undefined) found = merge(found, bestOf([pattern], value));
    }
    if (found !== undefined) yield [technology, found];
  }
}

function* textMatches(
  technologies: readonly Technology[],
  field: 'html' | 'scriptSrc',
  text: string,
): Generator<readonly [Technology, PatternMatch]> {
  for (const technology of technologies) {
    const found = bestOf(technology[field], text);
    if (found !== undefined) yield [technology, found];
  }
}

function* metaMatches(
  technologies: readonly Technology[],
  name: string,
  content: string,
): Generator<readonly [Technology, PatternMatch]> {
  for (const technology of technologies) {
    let found: PatternMatch | undefined;
    for (const [key, patterns] of technology.meta) {
      if (key === name) found = merge(found, bestOf(patterns, content));
    }
    if (found !== undefined) yield [technology, found];
  }
}

/**
 * wappalyzergo's reading of Set-Cookie (all its values joined by ", "): split at spaces, then each
 * piece at commas or semicolons; every `name=value` is a cookie, attributes (`path=/`) included.
 */
function cookiesOf(setCookie: string): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const word of setCookie.split(' ')) {
    if (word === '') continue;
    const pieces = word.includes(',') ? word.split(',') : word.includes(';') ? word.split(';') : [word];
    for (const piece of pieces) {
      const trimmed = piece.replace(/^ +| +$/g, '');
      const equals = trimmed.indexOf('=');
      if (equals >= 0) cookies.set(trimmed.slice(0, equals), trimmed.slice(equals + 1));
    }
  }
  return cookies;
}

type HtmlNode = DefaultTreeAdapterTypes.ChildNode | DefaultTreeAdapterTypes.Document;

/** The elements of a page in document order, template contents included. */
function* elements(node: HtmlNode): Generator<DefaultTreeAdapterTypes.Element> {
  if ('tagName' in node) yield node;
  const children = 'childNodes' in node ? node.childNodes : [];
  for (const child of children) yield* elements(child);
  if ('content' in node && node.content !== undefined) {
    for (const child of node.content.childNodes) yield* elements(child);
  }
}

function attribute(element: DefaultTreeAdapterTypes.Element, name: string): string {
  return element.attrs.find((attr) => attr.name === name)?.value ?? '';
}

/** The technologies `headers` (lower-case names) and `body` show, as wappalyzergo's Fingerprint. */
export function fingerprint(
  technologies: readonly Technology[],
  headers: ReadonlyMap<string, string>,
  body: string,
): string[] {
  const sightings = new Sightings();
  const lowered = new Map([...headers].map(([name, value]) => [name, value.toLowerCase()]));
  sightings.addMatches(keyedMatches(technologies, 'headers', lowered));
  const setCookie = lowered.get('set-cookie');
  if (setCookie !== undefined)
    sightings.addMatches(keyedMatches(technologies, 'cookies', cookiesOf(setCookie)));
  const page = body.toLowerCase();
  sightings.addMatches(textMatches(technologies, 'html', page));
  for (const element of elements(parseHtml(page))) {
    if (element.tagName === 'script' && element.attrs.length > 0) {
      sightings.addMatches(textMatches(technologies, 'scriptSrc', attribute(element, 'src')));
    } else if (element.tagName === 'meta' && element.attrs.length >= 2) {
      sightings.addMatches(
        metaMatches(technologies, attribute(element, 'name'), attribute(element, 'content')),
      );
    }
  }
  return sightings.names();
}

/**
 * A header block as nuclei's helper reads it (Go's textproto): `Name: value` lines up to the first
 * empty one, continuation lines folded in, repeated names joined by ", ". A leading status line
 * (`HTTP/1.1 200 OK`, which the `header` variable starts with) is passed over.
 */
export function parseHeaderBlock(raw: string): Map<string, string> {
  const headers = new Map<string, string>();
  const lines = raw.replace(/^[\r\n]+/, '').split('\n');
  if (lines[0]?.startsWith('HTTP/') === true) lines.shift();
  let last: string | undefined;
  for (const [index, full] of lines.entries()) {
    const line = full.endsWith('\r') ? full.slice(0, -1) : full;
    if (line === '') break;
    if (line.startsWith(' ') || line.startsWith('\t')) {
      if (last === undefined) throw argumentError('wappalyzer', 'the header block starts with a folded line');
      headers.set(last, `${headers.get(last) ?? ''} ${line.trim()}`.trim());
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).toLowerCase();
    if (name === '' || /[\s]/.test(name)) {
      throw argumentError('wappalyzer', `line ${index + 1} of the header block is not "Name: value"`);
    }
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    const known = headers.get(name);
    headers.set(name, known === undefined ? value : `${known}, ${value}`);
    last = name;
  }
  return headers;
}

let loaded:
  | { readonly file: string; readonly outcome: readonly Technology[] | FingerprintFileError }
  | undefined;

/** The fingerprints the environment names, read on first use and kept. */
function configuredFingerprints(): readonly Technology[] {
  const setting = outboundEnvironment()[FINGERPRINTS_VARIABLE] ?? '';
  if (setting === '') throw argumentError('wappalyzer', `no technology fingerprints: ${FINGERPRINTS_HOWTO}`);
  const file = resolve(setting);
  if (loaded?.file !== file) {
    let outcome: readonly Technology[] | FingerprintFileError;
    try {
      outcome = loadFingerprints(file);
    } catch (error) {
      if (!(error instanceof FingerprintFileError)) throw error;
      outcome = error;
    }
    loaded = { file, outcome };
    recent.clear();
  }
  if (loaded.outcome instanceof FingerprintFileError) {
    throw argumentError('wappalyzer', `${FINGERPRINTS_VARIABLE}: ${loaded.outcome.message}`);
  }
  return loaded.outcome;
}

/** nuclei's helper takes text (or nil) and refuses anything else. */
function textOrNothing(args: readonly DslValue[], index: number, what: string): string {
  const value = arg(args, index);
  if (value === null) return '';
  if (typeof value === 'string') return value;
  throw argumentError(
    'wappalyzer',
    `argument ${index + 1} (${what}) must be a string, not ${describe(value)}`,
  );
}

/**
 * The last answers: a template often asks about the same response more than once (a matcher and an
 * extractor, `contains(wappalyzer(…), "A") && contains(wappalyzer(…), "B")`), and with wappalyzergo's
 * thousands of technologies an answer costs tens of milliseconds.
 */
const recent = new Map<string, readonly string[]>();
const RECENT_LIMIT = 8;

function rememberedFingerprint(
  technologies: readonly Technology[],
  header: string,
  body: string,
): readonly string[] {
  const key = `${header}\u0000${body}`;
  let names = recent.get(key);
  if (names === undefined) {
    names = fingerprint(technologies, parseHeaderBlock(header), body);
    if (recent.size >= RECENT_LIMIT) recent.delete(recent.keys().next().value as string);
    recent.set(key, names);
  }
  return names;
}

export const wappalyzerFunctions: readonly HelperFunction[] = [
  fixed('wappalyzer', 2, (args) =>
    warningOfFailure(() => {
      const header = textOrNothing(args, 0, 'headers');
      const body = textOrNothing(args, 1, 'body');
      return [...rememberedFingerprint(configuredFingerprints(), header, body)];
    }),
  ),
];
