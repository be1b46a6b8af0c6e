/**
 * Result events as nuclei builds them (`MakeResultEventItem`, `MakeDefaultResultEvent`): omitempty
 * rules, `null` for absent author/tags/cve-id/cwe-id. Their JSONL form is the output's
 * `serializeEvent`.
 */

import type { EventInfo, EventInteraction, ResultEvent } from '../event/index.js';
import type { Finding } from '../operators/index.js';
import type { TargetUrl } from '../targets/index.js';
import { effectivePort, formatTargetUrl, hasScheme, parseTargetUrl, TargetError } from '../targets/index.js';
import type { Template, TemplateInfo } from '../template/index.js';

/** The fields every event of a run shares: template and input. */
export interface EventBase {
  readonly templateId: string;
  readonly templatePath: string;
  readonly info: EventInfo;
  /** The scan input as given (`host` of the response variables). */
  readonly input: string;
  readonly fields: InputFields;
  /** `fields` as events carry them. */
  readonly inputPart: Partial<ResultEvent>;
}

/** nuclei's `GetJsonFieldsFromURL` over the scan input. */
export interface InputFields {
  readonly host?: string;
  readonly port?: string;
  readonly scheme?: string;
  readonly url?: string;
  readonly path?: string;
  /** The host when it is an IP literal (replaced by the dialed address when known). */
  readonly ip?: string;
}

export function inputFields(target: TargetUrl | undefined): InputFields {
  if (target === undefined) return {};
  const port = effectivePort(target);
  const isIp = /^[\d.]+$/.test(target.hostname) || target.hostname.includes(':');
  // Set one by one: made for every run, where spreads of optional parts cost more.
  const fields: { -readonly [K in keyof InputFields]: InputFields[K] } = { host: target.hostname };
  if (port !== '') fields.port = port;
  if (target.scheme !== '') fields.scheme = target.scheme;
  fields.url = formatTargetUrl(target);
  if (target.path !== '') fields.path = target.path;
  if (isIp) fields.ip = target.hostname;
  return fields;
}

/** Made once per template: every event of its runs shares it (events are read, never changed). */
const eventInfos = new WeakMap<TemplateInfo, EventInfo>();

/** The `info` object of events: nuclei's `model.Info` as it serialises. */
export function eventInfo(info: TemplateInfo): EventInfo {
  let made = eventInfos.get(info);
  if (made === undefined) {
    made = newEventInfo(info);
    eventInfos.set(info, made);
  }
  return made;
}

function newEventInfo(info: TemplateInfo): EventInfo {
  return {
    name: info.name,
    author: info.authors.length === 0 ? null : [...info.authors],
    tags: info.tags.length === 0 ? null : [...info.tags],
    ...(nonEmpty(info.description) ? { description: info.description } : {}),
    ...(nonEmpty(info.impact) ? { impact: info.impact } : {}),
    ...(info.references.length === 0 ? {} : { reference: [...info.references] }),
    severity: info.severity ?? '',
    ...(info.metadata === undefined || Object.keys(info.metadata).length === 0
      ? {}
      : { metadata: info.metadata as Record<string, unknown> }),
    ...(info.classification === undefined ? {} : { classification: info.classification }),
    ...(nonEmpty(info.remediation) ? { remediation: info.remediation } : {}),
  };
}

function nonEmpty(text: string | undefined): text is string {
  return text !== undefined && text !== '';
}

/** What one evaluated response contributes to its events. */
export interface ResponseFacts {
  /** URL of the evaluated response (after redirects: the hop's URL). */
  readonly matchedAt: string;
  readonly request: string;
  readonly response: string;
  /** The response's body was cut at its body limit. */
  readonly truncated: boolean;
  readonly curlCommand?: string;
  /** Address the request went to. */
  readonly ip?: string;
  /** Payload values of the request. */
  readonly meta?: Readonly<Record<string, string>>;
  /** The out-of-band callback the finding was evaluated with. */
  readonly interaction?: EventInteraction;
}

export function findingEvent(
  base: EventBase,
  finding: Finding,
  facts: ResponseFacts,
  timestamp: string,
): ResultEvent {
  const { fields } = base;
  const ip = facts.ip ?? fields.ip;
  return {
    'template-id': base.templateId,
    'template-path': base.templatePath,
    info: base.info,
    ...(nonEmpty(finding.matcherName) ? { 'matcher-name': finding.matcherName } : {}),
    ...(nonEmpty(finding.extractorName) ? { 'extractor-name': finding.extractorName } : {}),
    type: 'http',
    ...base.inputPart,
    'matched-at': facts.matchedAt,
    ...(finding.extractedResults.length === 0 ? {} : { 'extracted-results': [...finding.extractedResults] }),
    ...(facts.request === '' ? {} : { request: facts.request }),
    ...(facts.response === '' ? {} : { response: facts.response }),
    ...(facts.truncated ? { 'response-truncated': true } : {}),
    ...(facts.meta === undefined || Object.keys(facts.meta).length === 0 ? {} : { meta: { ...facts.meta } }),
    ...(nonEmpty(ip) ? { ip } : {}),
    timestamp,
    ...(facts.interaction === undefined ? {} : { interaction: facts.interaction }),
    ...(nonEmpty(facts.curlCommand) ? { 'curl-command': facts.curlCommand } : {}),
    'matcher-status': true,
  };
}

/**
 * nuclei's `WriteFailure` event: the run matched nothing; request and response of the last response,
 * and why the run failed when a request failed in transport.
 */
export function failureEvent(
  base: EventBase,
  facts: Pick<ResponseFacts, 'request' | 'response' | 'truncated' | 'ip'> | undefined,
  timestamp: string,
  error?: string,
): ResultEvent {
  const ip = facts?.ip ?? base.fields.ip;
  return {
    'template-id': base.templateId,
    'template-path': base.templatePath,
    info: base.info,
    type: 'http',
    ...base.inputPart,
    ...(nonEmpty(facts?.request) ? { request: facts.request } : {}),
    ...(nonEmpty(facts?.response) ? { response: facts.response } : {}),
    ...(facts?.truncated === true ? { 'response-truncated': true } : {}),
    ...(nonEmpty(ip) ? { ip } : {}),
    timestamp,
    'matcher-status': false,
    ...(nonEmpty(error) ? { error } : {}),
  };
}

/** The `-ms` event of a template that never ran against `input`: the target could not be reached. */
export function unreachableEvent(
  template: Pick<Template, 'id' | 'file' | 'info'>,
  input: string,
  error: string,
  timestamp: string,
): ResultEvent {
  const parsed = hasScheme(input) ? parseTargetUrl(input) : undefined;
  const fields = parsed === undefined || parsed instanceof TargetError ? {} : inputFields(parsed);
  const withHost: InputFields = fields.host === undefined ? { ...fields, host: input } : fields;
  const base: EventBase = {
    templateId: template.id,
    templatePath: template.file,
    info: eventInfo(template.info),
    input,
    fields: withHost,
    inputPart: inputPart(withHost),
  };
  return failureEvent(base, undefined, timestamp, error);
}

/** The input's fields as events carry them (made once per run: see {@link EventBase}). */
export function inputPart(fields: InputFields): Partial<ResultEvent> {
  // Assigned one by one: spreading conditional objects costs a run more than its request.
  const part: { -readonly [K in 'host' | 'port' | 'scheme' | 'url' | 'path']?: string } = {};
  if (nonEmpty(fields.host)) part.host = fields.host;
  if (nonEmpty(fields.port)) part.port = fields.port;
  if (nonEmpty(fields.scheme)) part.scheme = fields.scheme;
  if (nonEmpty(fields.url)) part.url = fields.url;
  if (nonEmpty(fields.path)) part.path = fields.path;
  return part;
}

/** RFC 3339 with the local offset, as Go writes `time.Time` (milliseconds kept). */
export function rfc3339(date: Date): string {
  const time = date.getTime();
  const second = Math.floor(time / 1000);
  // Every finding has a timestamp, and asking the time zone is the costly part of one: the text
  // up to the second and the offset are made once a second (zones change on whole seconds).
  if (second !== stamped.second) stamped = stampOf(date, second);
  return `${stamped.head}${String(time - second * 1000).padStart(3, '0')}${stamped.offset}`;
}

/** `2026-11-21T13:00:05.` and `+01:00` (or `Z`) of one second. */
let stamped = { second: Number.NaN, head: '', offset: '' };

function stampOf(date: Date, second: number): typeof stamped {
  const offset = -date.getTimezoneOffset();
  const local = new Date(second * 1000 + offset * 60_000).toISOString();
  const abs = Math.abs(offset);
  return {
    second,
    head: local.slice(0, -4),
    offset: offset === 0 ? 'Z' : `${offset > 0 ? '+' : '-'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`,
  };
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
