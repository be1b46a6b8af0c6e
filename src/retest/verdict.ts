/**
 * Whether a re-run reproduced a finding.
 *
 * A finding is one check of a template (its `matcher-name` / `extractor-name`, empty for a template
 * whose matchers have no names) that matched on a target; its vuln hash adds where it matched and
 * what it extracted. The re-run reproduces the finding when it reports a match of the same check
 * that is either
 *   - the same finding (the same vuln hash), or
 *   - the same check matching with another URL or other extracted values, unless that match is
 *     exactly another finding of the same scan.
 * URL and values are not required to be equal because they change between runs while the weakness
 * stays (random paths such as `{{randstr}}.php`, rotating tokens, a version string after an upgrade
 * that did not fix it), and calling a live weakness fixed is the costlier mistake. The exception
 * keeps apart findings that differ only by URL: when `/a` and `/b` were both found and only `/b`
 * still matches, `/b` reproduces and `/a` is fixed.
 *
 * When nothing reproduced, the retest is an `error` rather than `not_matched` if a request could
 * not be made (transport failure, a secret's login failed, an unbuildable request), if the target
 * turned away the secret a request carried (a 401, a redirect to its login page: the re-run did not
 * see what the scan saw behind the login), or if a request was left out for want of a value the
 * target does not provide (`-var`): without those answers "fixed" would be a guess.
 */
import type { RequestFailure, SkippedRequest } from '../engine/index.js';
import type { ResultEvent } from '../event/index.js';
import type { Rejection } from '../send/index.js';
import { vulnHash } from '../store/index.js';

export type Verdict =
  | {
      readonly resultType: 'matched';
      /** The match that reproduced the finding. */
      readonly match: ResultEvent;
      /** True when it is the very same finding (same vuln hash). */
      readonly same: boolean;
    }
  | { readonly resultType: 'not_matched' }
  | { readonly resultType: 'error'; readonly reason: string };

/** The finding being retested, as far as the verdict needs it. */
export interface FindingIdentity {
  readonly vulnHash: string;
  readonly event: Pick<ResultEvent, 'matcher-name' | 'extractor-name'>;
}

/** What the re-run did (events redacted as the findings were when stored). */
export interface RunFacts {
  readonly events: readonly ResultEvent[];
  readonly failures: readonly RequestFailure[];
  readonly skipped: readonly SkippedRequest[];
  /** Answers that turned away the secret their request carried: the entry's label, and how. */
  readonly rejected: readonly SecretRejected[];
}

export interface SecretRejected {
  /** `static[0] of secrets.yaml`. */
  readonly entry: string;
  readonly rejection: Rejection;
}

export interface VerdictContext {
  /** Vuln hashes of the other findings of the finding's scan. */
  readonly otherFindings: ReadonlySet<string>;
  /** Names the template's own extractors set: a request waiting for one is the target's doing. */
  readonly extractedNames: ReadonlySet<string>;
}

export function judge(finding: FindingIdentity, run: RunFacts, context: VerdictContext): Verdict {
  const sameCheck = run.events.filter(
    (event) => event['matcher-status'] && checkOf(event) === checkOf(finding.event),
  );
  const hashed = sameCheck.map((event) => ({ event, hash: vulnHash(event) }));
  const same = hashed.find((m) => m.hash === finding.vulnHash);
  if (same !== undefined) return { resultType: 'matched', match: same.event, same: true };
  const changed = hashed.find((m) => !context.otherFindings.has(m.hash));
  if (changed !== undefined) return { resultType: 'matched', match: changed.event, same: false };
  const failure = run.failures[0];
  if (failure !== undefined)
    return { resultType: 'error', reason: failureReason(failure, run.failures.length) };
  const [rejected] = run.rejected;
  if (rejected !== undefined)
    return { resultType: 'error', reason: rejectedReason(rejected, run.rejected.length) };
  const missing = run.skipped.find(
    (skip) => !skip.unresolved.every((p) => context.extractedNames.has(nameOf(p))),
  );
  if (missing !== undefined)
    return { resultType: 'error', reason: `a request was not sent: ${missing.reason}` };
  return { resultType: 'not_matched' };
}

function rejectedReason(first: SecretRejected, count: number): string {
  const how = first.rejection === 'unauthorized' ? 'answered 401 Unauthorized' : 'redirected to a login page';
  const answers = count === 1 ? 'a request' : `${count} requests`;
  return `the target turned away the secret of ${first.entry} (${answers} ${how}): the re-run did not see what the scan saw, so whether it is fixed cannot be told; check the secret`;
}

function checkOf(event: Pick<ResultEvent, 'matcher-name' | 'extractor-name'>): string {
  return JSON.stringify([event['matcher-name'] ?? '', event['extractor-name'] ?? '']);
}

function failureReason(failure: RequestFailure, count: number): string {
  const more = count > 1 ? ` (and ${count - 1} more failed request${count > 2 ? 's' : ''})` : '';
  switch (failure.kind) {
    case 'transport':
      return `${failure.message}${more}`;
    case 'refused':
    case 'host-skipped':
      return `${failure.url}: not sent: ${failure.message}${more}`;
    case 'invalid':
      return `${failure.url}: ${failure.message}${more}`;
  }
}

/** `{{ name }}` → `name`; an expression stays as written (never an extractor's name). */
function nameOf(placeholder: string): string {
  const inner = /^\{\{(.*)\}\}$/s.exec(placeholder)?.[1] ?? placeholder;
  return inner.trim();
}

/** The names a template's extractors set, for {@link VerdictContext.extractedNames}. */
export function extractorNames(template: {
  readonly http: readonly {
    readonly operators: { readonly model: { readonly extractors: readonly { readonly name?: string }[] } };
  }[];
}): Set<string> {
  const names = new Set<string>();
  for (const block of template.http)
    for (const extractor of block.operators.model.extractors) if (extractor.name) names.add(extractor.name);
  return names;
}
