import { describe, expect, it } from 'vitest';
import { type ParsedTemplate, parseTemplate } from './parse.js';
import { payloadCombinations } from './payloads.js';
import { VariablePayloadError, withVariablePayloads } from './variable-payloads.js';

function parsed(text: string): ParsedTemplate {
  const result = parseTemplate('t.yaml', text);
  if (result.status !== 'ok') throw new Error(JSON.stringify(result));
  return result.template;
}

const template = parsed(`id: file-var
info: {name: t, author: a}
http:
  - method: GET
    path: ["{{BaseURL}}/{{test}}"]
  - method: GET
    path: ["{{BaseURL}}/other"]
  - method: GET
    path: ["{{BaseURL}}/{{test}}/{{user}}"]
    attack: clusterbomb
    payloads:
      user: [a, b]
      test: [replaced]
`);

const file = { name: 'test', path: '/tmp/values.txt', values: ['one', 'two'] };

function withFile(t: ParsedTemplate): ParsedTemplate {
  const run = withVariablePayloads(t, [file]);
  if (run instanceof VariablePayloadError) throw run;
  return run;
}

function valuesOf(t: ParsedTemplate, block: number): Record<string, string>[] {
  const payloads = t.http[block]?.payloads;
  if (payloads === undefined) return [];
  return [...payloadCombinations(payloads)].map((c) =>
    Object.fromEntries(Object.entries(c).map(([name, value]) => [name, value.text])),
  );
}

describe('-var name=FILE', () => {
  it('makes the lines of FILE the payload values of the blocks that use the name', () => {
    const run = withFile(template);
    expect(valuesOf(run, 0)).toEqual([{ test: 'one' }, { test: 'two' }]);
    expect(run.http[0]?.requestCount).toBe(2);
    expect(run.requestCount).toBe(2 + 1 + 4);
  });

  it('leaves a block that does not use the name as it was', () => {
    expect(withFile(template).http[1]).toBe(template.http[1]);
  });

  it("replaces the block's own payload of that name and keeps its others", () => {
    expect(valuesOf(withFile(template), 2)).toEqual([
      { user: 'a', test: 'one' },
      { user: 'a', test: 'two' },
      { user: 'b', test: 'one' },
      { user: 'b', test: 'two' },
    ]);
  });

  it('is refused for a block that would then run two payloads with batteringram, as nuclei refuses it', () => {
    const batteringram = parsed(`id: two-sets
info: {name: t, author: a}
http:
  - method: GET
    path: ["{{BaseURL}}/{{test}}/{{user}}"]
    payloads:
      user: [a, b]
`);
    const refused = withVariablePayloads(batteringram, [file]);
    expect(refused).toBeInstanceOf(VariablePayloadError);
    expect((refused as Error).message).toBe(
      '-var test: t.yaml:4:5 would run two payloads (user, test) with batteringram, which takes one; give the block "attack: pitchfork" or "attack: clusterbomb"',
    );
  });
});
