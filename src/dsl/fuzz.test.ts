import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { functionNames } from './functions/index.js';
import {
  compileExpression,
  compileTemplateString,
  DslEvaluationError,
  DslSyntaxError,
  type DslValue,
} from './index.js';
import { REAL_DSL, REAL_TEMPLATE_TEXT } from './testing/real-expressions.js';

const value: fc.Arbitrary<DslValue> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.double(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), { maxLength: 4 }),
);

/**
 * Helpers that wait on the clock or on the network by design: `wait_for(60)` holds the thread a minute,
 * `jarm("host:1")` connects out, `resolve(x)` asks the system's name servers, `public_ip()` and
 * `llm_prompt(x)` ask a third-party service. Their own tests (runtime.test.ts, jarm.test.ts,
 * resolve.test.ts, public-ip.test.ts, llm.test.ts) cover them.
 */
const WAITING_HELPERS = new Set(['wait_for', 'jarm', 'resolve', 'public_ip', 'llm_prompt']);
const FUZZED_HELPERS = functionNames.filter((name) => !WAITING_HELPERS.has(name));

const VARIABLES = ['body', 'header', 'status_code', 'content_type', 'version', 'a', 'b', 'x'];

const scope = fc
  .record(
    Object.fromEntries(VARIABLES.map((name) => [name, value])) as Record<string, fc.Arbitrary<DslValue>>,
    {
      requiredKeys: [],
    },
  )
  .map((record) => new Map(Object.entries(record) as [string, DslValue][]) as ReadonlyMap<string, DslValue>);

/** Only the two documented failures may come out, and never an internal one. */
function expectOnlyDocumentedFailures(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DslEvaluationError);
    expect((error as DslEvaluationError).kind).not.toBe('internal');
  }
}

function compileAndEvaluate(source: string, variables: ReadonlyMap<string, DslValue>): void {
  const compiled = compileExpression(source);
  if (compiled instanceof DslSyntaxError) {
    expect(compiled.offset).toBeGreaterThanOrEqual(0);
    expect(compiled.offset).toBeLessThanOrEqual(source.length);
    return;
  }
  expectOnlyDocumentedFailures(() => compiled.evaluate(variables));
}

const TOKENS = [
  '(',
  ')',
  ',',
  '"',
  "'",
  '\\',
  '{{',
  '}}',
  '&&',
  '||',
  '!',
  '==',
  '+',
  '-',
  '*',
  '**',
  '/',
  '%',
  '?',
  ':',
  '??',
  '=~',
  '<<',
  '~',
  ' in ',
  '[',
  ']',
  '0x',
  '.',
  ' ',
  'body',
  'contains(',
  '§',
];

/** A real expression with random edits: deletions, insertions of syntax fragments, duplications. */
const mutatedReal = fc
  .tuple(
    fc.constantFrom(...REAL_DSL.map((entry) => entry.dsl)),
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 3 })),
        fc.nat({ max: 3 }),
      ),
      { minLength: 1, maxLength: 6 },
    ),
  )
  .map(([source, edits]) => {
    let text = source;
    for (const [position, fragment, kind] of edits) {
      const at = position % (text.length + 1);
      if (kind === 0) text = text.slice(0, at) + text.slice(at + 1);
      else if (kind === 1) text = text.slice(0, at) + fragment + text.slice(at);
      else if (kind === 2) text = text.slice(0, at) + text.slice(at, at + 5).repeat(2) + text.slice(at + 5);
      else text = text.slice(at) + text.slice(0, at);
    }
    return text;
  });

/** Well-formed expressions calling every helper with arguments of every type. */
const { expression } = fc.letrec<{ expression: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    fc.string({ maxLength: 12 }).map((text) => JSON.stringify(text)),
    fc.integer({ min: -100000, max: 100000 }).map(String),
    fc.constantFrom('1.5', '0x1f', 'true', 'false', '"{{a}}"', '"§b§"', '"1.2.3"', '"2022-01-13"', '"ff"'),
    fc.constantFrom(...VARIABLES),
  ),
  expression: fc.oneof(
    { depthSize: 'small' },
    tie('atom'),
    fc
      .tuple(fc.constantFrom(...FUZZED_HELPERS), fc.array(tie('expression'), { maxLength: 4 }))
      .map(([name, args]) => `${name}(${args.join(', ')})`),
    fc
      .tuple(
        tie('expression'),
        fc.constantFrom(
          '+',
          '-',
          '*',
          '/',
          '%',
          '**',
          '==',
          '!=',
          '<',
          '>=',
          '&&',
          '||',
          '&',
          '|',
          '^',
          '<<',
          '>>',
          '??',
          '=~',
          'in',
        ),
        tie('expression'),
      )
      .map(([left, operator, right]) => `(${left} ${operator} ${right})`),
    fc
      .tuple(fc.constantFrom('-', '!', '~'), tie('expression'))
      .map(([operator, operand]) => `${operator}(${operand})`),
    fc
      .tuple(tie('expression'), tie('expression'), tie('expression'))
      .map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
  ),
}));

describe('fuzzing the expression language', () => {
  it('compiles random text to an expression or a syntax error, never an exception', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), scope, (source, variables) => {
        compileAndEvaluate(source, variables);
      }),
      { numRuns: 2000 },
    );
  });

  it('survives mutated real expressions', () => {
    fc.assert(
      fc.property(mutatedReal, scope, (source, variables) => {
        compileAndEvaluate(source, variables);
      }),
      { numRuns: 3000 },
    );
  });

  it('evaluates helpers called with arguments of any type to a value or an evaluation error', () => {
    fc.assert(
      fc.property(expression, scope, (source, variables) => {
        compileAndEvaluate(source, variables);
      }),
      { numRuns: 3000 },
    );
  });

  it('compiles and renders random template text without an exception', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc
        .tuple(
          fc.constantFrom(...REAL_TEMPLATE_TEXT.map((entry) => entry.text)),
          fc.nat(),
          fc.constantFrom(...TOKENS),
        )
        .map(([source, position, fragment]) => {
          const at = position % (source.length + 1);
          return source.slice(0, at) + fragment + source.slice(at);
        }),
    );
    fc.assert(
      fc.property(text, scope, (source, variables) => {
        const compiled = compileTemplateString(source);
        if (compiled instanceof DslSyntaxError) return;
        const rendered = compiled.render(variables);
        expect(typeof rendered.text).toBe('string');
      }),
      { numRuns: 2000 },
    );
  });

  it('does not hang on adversarial nesting and long inputs', () => {
    const inputs = [
      '('.repeat(100000),
      `${'"'.repeat(50000)}`,
      `${'{{'.repeat(20000)}${'}}'.repeat(20000)}`,
      `{{a${'}}'.repeat(30000)}`,
      'a'.repeat(200000),
      `${'-'.repeat(150)}1`,
      `${'!'.repeat(150)}true`,
      `"${'{{"'.repeat(2000)}`,
    ];
    for (const input of inputs) {
      compileAndEvaluate(input, new Map());
      const compiled = compileTemplateString(input);
      if (!(compiled instanceof DslSyntaxError)) compiled.render(new Map());
    }
  });
});
