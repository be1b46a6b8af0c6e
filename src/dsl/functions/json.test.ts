import { describe, expect, it } from 'vitest';
import { DslEvaluationError } from '../index.js';
import { evaluate } from '../testing/evaluate.js';

function fails(source: string): DslEvaluationError {
  try {
    evaluate(source);
  } catch (error) {
    if (error instanceof DslEvaluationError) return error;
    throw error;
  }
  throw new Error(`expected ${source} to fail`);
}

describe('json_minify', () => {
  it('removes whitespace and sorts keys, as Go re-marshals a map', () => {
    expect(evaluate('json_minify("{  \\"name\\":  \\"John Doe\\",   \\"foo\\":  \\"bar\\"     }")')).toBe(
      '{"foo":"bar","name":"John Doe"}',
    );
    expect(
      evaluate('json_minify(text)', { text: '{"b": {"z": 1, "a": [true, null, 1.5e3]}, "a": -0}' }),
    ).toBe('{"a":-0,"b":{"a":[true,null,1500],"z":1}}');
  });

  it('escapes HTML-sensitive characters as Go does', () => {
    expect(evaluate('json_minify(text)', { text: '{"x": "<a&b>\\u2028"}' })).toBe(
      '{"x":"\\u003ca\\u0026b\\u003e\\u2028"}',
    );
  });

  it('fails on input that is not a JSON object', () => {
    expect(fails('json_minify("[1,2]")').kind).toBe('argument');
    expect(fails('json_minify("{")').kind).toBe('argument');
  });
});

describe('json_prettify', () => {
  it('indents with four spaces, as json.Indent does', () => {
    expect(evaluate('json_prettify("{\\"foo\\":\\"bar\\",\\"name\\":\\"John Doe\\"}")')).toBe(
      '{\n    "foo": "bar",\n    "name": "John Doe"\n}',
    );
  });

  it('keeps empty objects and arrays compact and token text as written', () => {
    const text = ' {"a":[],"b":{}, "c":[1.50,{"d":"x\\"y"}]}';
    expect(evaluate('json_prettify(text)', { text })).toBe(
      '{\n    "a": [],\n    "b": {},\n    "c": [\n        1.50,\n        {\n            "d": "x\\"y"\n        }\n    ]\n}',
    );
  });

  it('fails on invalid JSON', () => {
    expect(fails('json_prettify("{\\"a\\":}")').kind).toBe('argument');
  });
});
