import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RequestFailure, SkippedRequest } from '../engine/index.js';
import type { ResultEvent } from '../event/index.js';
import { vulnHash } from '../store/index.js';
import { judge, type RunFacts } from './verdict.js';

/** An event with `fields` over a plain finding; a field given as undefined is left out. */
function event(fields: { [K in keyof ResultEvent]?: ResultEvent[K] | undefined } = {}): ResultEvent {
  const made: Record<string, unknown> = {
    'template-id': 'exposed',
    info: { name: 'exposed', author: null, tags: null, severity: 'high' },
    type: 'http',
    host: 'app.test',
    'matched-at': 'https://app.test/a',
    timestamp: '2024-01-01T00:00:00Z',
    'matcher-status': true,
    ...fields,
  };
  for (const [name, value] of Object.entries(made)) if (value === undefined) delete made[name];
  return made as unknown as ResultEvent;
}

function findingOf(e: ResultEvent) {
  return { vulnHash: vulnHash(e), event: e };
}

const facts = (events: ResultEvent[], extra: Partial<RunFacts> = {}): RunFacts => ({
  events,
  failures: [],
  skipped: [],
  rejected: [],
  ...extra,
});

const none = { otherFindings: new Set<string>(), extractedNames: new Set<string>() };

const refused: RequestFailure = {
  block: 0,
  url: 'https://app.test/a',
  kind: 'refused',
  message: 'the login of dynamic[0] failed',
};

describe('a retest verdict', () => {
  it('is matched, and the same finding, when the re-run reports the finding again', () => {
    const found = event({ 'matcher-name': 'debug' });
    const verdict = judge(findingOf(found), facts([event({ 'matcher-name': 'debug' })]), none);
    expect(verdict).toMatchObject({ resultType: 'matched', same: true });
  });

  it('is matched when the same check matches with other extracted values or at another URL', () => {
    const found = event({ 'extractor-name': 'version', 'extracted-results': ['4.8.1'] });
    const now = event({
      'extractor-name': 'version',
      'extracted-results': ['4.9.0'],
      'matched-at': 'https://app.test/b',
    });
    expect(judge(findingOf(found), facts([now]), none)).toMatchObject({
      resultType: 'matched',
      same: false,
      match: now,
    });
  });

  it('is not matched when only another check of the template matches', () => {
    const found = event({ 'matcher-name': 'phpinfo' });
    const verdict = judge(findingOf(found), facts([event({ 'matcher-name': 'debug-page' })]), none);
    expect(verdict).toEqual({ resultType: 'not_matched' });
  });

  it('is not matched when the only match left is exactly another finding of the scan', () => {
    const atA = event({ 'matched-at': 'https://app.test/a' });
    const atB = event({ 'matched-at': 'https://app.test/b' });
    const context = { ...none, otherFindings: new Set([vulnHash(atA), vulnHash(atB)]) };
    expect(judge(findingOf(atA), facts([atB]), context)).toEqual({ resultType: 'not_matched' });
    expect(judge(findingOf(atB), facts([atB]), context)).toMatchObject({ resultType: 'matched', same: true });
  });

  it('ignores events that did not match', () => {
    const found = event();
    const failed = event({ 'matcher-status': false });
    expect(judge(findingOf(found), facts([failed]), none)).toEqual({ resultType: 'not_matched' });
  });

  it('is an error, saying why, when nothing matched and a request could not be made', () => {
    const verdict = judge(findingOf(event()), facts([], { failures: [refused, refused, refused] }), none);
    expect(verdict).toEqual({
      resultType: 'error',
      reason: 'https://app.test/a: not sent: the login of dynamic[0] failed (and 2 more failed requests)',
    });
  });

  it('is an error, not fixed, when nothing matched and the target turned away the secret of a request', () => {
    const run = facts([event({ 'matcher-status': false })], {
      rejected: [
        { entry: 'static[0] of s.yaml', rejection: 'unauthorized' },
        { entry: 'static[0] of s.yaml', rejection: 'unauthorized' },
      ],
    });
    expect(judge(findingOf(event()), run, none)).toEqual({
      resultType: 'error',
      reason:
        'the target turned away the secret of static[0] of s.yaml (2 requests answered 401 Unauthorized): the re-run did not see what the scan saw, so whether it is fixed cannot be told; check the secret',
    });
    const found = event();
    expect(judge(findingOf(found), { ...run, events: [found] }, none)).toMatchObject({
      resultType: 'matched',
    });
  });

  it('is matched even when another request of the run failed', () => {
    const found = event();
    expect(judge(findingOf(found), facts([found], { failures: [refused] }), none)).toMatchObject({
      resultType: 'matched',
    });
  });

  it('is an error when a request waited for a value nobody gave (-var), not when the target gave none', () => {
    const skip = (placeholder: string): SkippedRequest => ({
      cause: 'unresolved',
      block: 0,
      request: 1,
      unresolved: [placeholder],
      missing: [placeholder.slice(2, -2)],
      reason: `unresolved ${placeholder}; give the value with -var name=value`,
    });
    const context = { ...none, extractedNames: new Set(['csrf']) };
    expect(judge(findingOf(event()), facts([], { skipped: [skip('{{ csrf }}')] }), context)).toEqual({
      resultType: 'not_matched',
    });
    expect(judge(findingOf(event()), facts([], { skipped: [skip('{{username}}')] }), context)).toEqual({
      resultType: 'error',
      reason: 'a request was not sent: unresolved {{username}}; give the value with -var name=value',
    });
  });

  it('is matched whenever the run reports the finding itself, whatever else happened', () => {
    const arbitraryEvent = fc.record({
      'matcher-name': fc.constantFrom(undefined, 'a', 'b'),
      'matched-at': fc.constantFrom('https://app.test/a', 'https://app.test/b'),
      'matcher-status': fc.boolean(),
    });
    fc.assert(
      fc.property(
        arbitraryEvent,
        fc.array(arbitraryEvent),
        fc.array(fc.constant(refused)),
        (found, others, failures) => {
          const finding = event({ ...found, 'matcher-status': true });
          const run = facts([...others.map((o) => event(o)), finding], { failures });
          const context = { ...none, otherFindings: new Set(others.map((o) => vulnHash(event(o)))) };
          expect(judge(findingOf(finding), run, context).resultType).toBe('matched');
        },
      ),
    );
  });

  it('is never matched when the run reports no match', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(undefined, 'a', 'b')), fc.boolean(), (names, failed) => {
        const run = facts(
          names.map((name) => event({ 'matcher-name': name, 'matcher-status': false })),
          { failures: failed ? [refused] : [] },
        );
        expect(judge(findingOf(event()), run, none).resultType).toBe(failed ? 'error' : 'not_matched');
      }),
    );
  });
});
