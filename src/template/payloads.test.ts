import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileTemplateString, type TemplateString } from '../dsl/index.js';
import { payloadFileReader } from './load.js';
import type { PayloadSet, Payloads } from './model.js';
import { combinationCount, payloadCombinations, payloadFileValues } from './payloads.js';

const pos = { line: 1, col: 1, offset: 0 };
const set = (name: string, values: string[]): PayloadSet => ({
  name,
  values: values.map((value) => compileTemplateString(value) as TemplateString),
  source: { kind: 'inline' },
  pos,
});

/** The text of each value of each combination. */
function texts(payloads: Payloads, limit = Number.POSITIVE_INFINITY): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  for (const combination of payloadCombinations(payloads)) {
    if (out.length >= limit) break;
    out.push(Object.fromEntries(Object.entries(combination).map(([name, value]) => [name, value.text])));
  }
  return out;
}

describe('payloadCombinations', () => {
  it('batteringram yields each value of its single set', () => {
    const payloads: Payloads = { attack: 'batteringram', sets: [set('p', ['a', 'b', 'c'])] };
    expect(texts(payloads)).toEqual([{ p: 'a' }, { p: 'b' }, { p: 'c' }]);
    expect(combinationCount(payloads)).toBe(3);
  });

  it('pitchfork pairs values by position and stops at the shortest set', () => {
    const payloads: Payloads = {
      attack: 'pitchfork',
      sets: [set('user', ['u1', 'u2', 'u3', 'u4']), set('pass', ['p1'])],
    };
    expect(texts(payloads)).toEqual([{ user: 'u1', pass: 'p1' }]);
    expect(combinationCount(payloads)).toBe(1);
  });

  it('clusterbomb yields the cartesian product, the last set varying fastest', () => {
    const payloads: Payloads = {
      attack: 'clusterbomb',
      sets: [set('u', ['a', 'b']), set('p', ['1', '2', '3'])],
    };
    expect(texts(payloads)).toEqual([
      { u: 'a', p: '1' },
      { u: 'a', p: '2' },
      { u: 'a', p: '3' },
      { u: 'b', p: '1' },
      { u: 'b', p: '2' },
      { u: 'b', p: '3' },
    ]);
    expect(combinationCount(payloads)).toBe(6);
  });

  it('is lazy: taking the first combination of a huge product does not build the rest', () => {
    const big = Array.from({ length: 1000 }, (_, i) => String(i));
    const payloads: Payloads = { attack: 'clusterbomb', sets: [set('a', big), set('b', big), set('c', big)] };
    expect(combinationCount(payloads)).toBe(1e9);
    expect(texts(payloads, 1)).toEqual([{ a: '0', b: '0', c: '0' }]);
  });
});

describe('payload files', () => {
  it('have one value per line, empty lines skipped, CR dropped', () => {
    expect(payloadFileValues('a\r\n\r\nb\nc')).toEqual(['a', 'b', 'c']);
  });

  const trees: string[] = [];
  afterEach(() => {
    for (const root of trees.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  function tree(): string {
    const root = mkdtempSync(join(tmpdir(), 'keyhole-payloads-'));
    trees.push(root);
    mkdirSync(join(root, 'http', 'plugins'), { recursive: true });
    mkdirSync(join(root, 'helpers', 'lists'), { recursive: true });
    writeFileSync(join(root, 'helpers', 'lists', 'users.txt'), 'admin\nroot\n');
    writeFileSync(join(root, 'http', 'plugins', 'local.txt'), 'x\n');
    return root;
  }

  it('resolve beside the template first', () => {
    const root = tree();
    const read = payloadFileReader(root).read('local.txt', join(root, 'http', 'plugins', 't.yaml'));
    expect(read).toEqual({ path: join(root, 'http', 'plugins', 'local.txt'), values: ['x'] });
  });

  it('resolve helpers/… from a parent folder, as in the nuclei-templates layout', () => {
    const root = tree();
    const read = payloadFileReader(root).read(
      'helpers/lists/users.txt',
      join(root, 'http', 'plugins', 't.yaml'),
    );
    expect(read).toEqual({ path: join(root, 'helpers', 'lists', 'users.txt'), values: ['admin', 'root'] });
  });

  it('resolve helpers/… above the templates folder, as nuclei does, when the working directory holds it', () => {
    const root = tree();
    const read = payloadFileReader(join(root, 'http'), root).read(
      'helpers/lists/users.txt',
      join(root, 'http', 'plugins', 't.yaml'),
    );
    expect(read).toEqual({ path: join(root, 'helpers', 'lists', 'users.txt'), values: ['admin', 'root'] });
  });

  it('resolve against the working directory first', () => {
    const root = tree();
    writeFileSync(join(root, 'local.txt'), 'from-cwd\n');
    const read = payloadFileReader(root, root).read('local.txt', join(root, 'http', 'plugins', 't.yaml'));
    expect(read).toEqual({ path: join(root, 'local.txt'), values: ['from-cwd'] });
  });

  it('resolve helpers/… above the templates folder from any working directory', () => {
    const root = tree();
    const elsewhere = mkdtempSync(join(tmpdir(), 'keyhole-cwd-'));
    trees.push(elsewhere);
    const read = payloadFileReader(join(root, 'http'), elsewhere).read(
      'helpers/lists/users.txt',
      join(root, 'http', 'plugins', 't.yaml'),
    );
    expect(read).toEqual({ path: join(root, 'helpers', 'lists', 'users.txt'), values: ['admin', 'root'] });
  });

  it('refuse any other file found outside the working directory, the templates folder and the template folder', () => {
    const root = tree();
    writeFileSync(join(root, 'secret.txt'), 'key\n');
    const elsewhere = mkdtempSync(join(tmpdir(), 'keyhole-cwd-'));
    trees.push(elsewhere);
    const read = payloadFileReader(join(root, 'http'), elsewhere).read(
      'secret.txt',
      join(root, 'http', 'plugins', 't.yaml'),
    );
    expect('error' in read && read.error).toMatch(
      /was found at .*secret\.txt, outside the working directory/,
    );
  });

  it('refuse absolute paths and ".."', () => {
    const root = tree();
    const reader = payloadFileReader(root);
    const file = join(root, 'http', 'plugins', 't.yaml');
    expect('error' in reader.read('/etc/passwd', file)).toBe(true);
    expect('error' in reader.read('../../etc/passwd', file)).toBe(true);
  });
});
