import { Command } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { acceptSingleDashLongFlags } from './argv.js';
import { memoryIo } from './io.js';
import { run } from './program.js';

async function keyhole(...argv: string[]) {
  const io = memoryIo();
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

function program() {
  return new Command()
    .option('-t, --templates <path>')
    .option('--sf, --secret-file <files>')
    .option('--silent')
    .option('-j, --jsonl');
}

describe('single-dash flags', () => {
  it("are read as keyhole's long flags, nuclei's spelling", () => {
    expect(acceptSingleDashLongFlags(program(), ['-sf', 'a.yaml', '-silent', '-j', '-t', 'x'])).toEqual([
      '--sf',
      'a.yaml',
      '--silent',
      '-j',
      '-t',
      'x',
    ]);
  });

  it('keep a value that looks like a flag, and everything after --', () => {
    expect(acceptSingleDashLongFlags(program(), ['-t', '-tags', '--', '-ut'])).toEqual([
      '-t',
      '-tags',
      '--',
      '-ut',
    ]);
  });

  it('are never split into short flags: -tags is not -t ags', () => {
    expect(() => acceptSingleDashLongFlags(program(), ['-tags', 'cve'])).toThrow(
      '-tags is a nuclei option keyhole does not support; keyhole help COMMAND lists the flags it takes',
    );
  });

  it('name a nuclei flag keyhole lacks by both its spellings', () => {
    expect(() => acceptSingleDashLongFlags(program(), ['-ut'])).toThrow(
      /^-ut \(-update-templates\) is a nuclei option keyhole does not support/,
    );
    expect(() => acceptSingleDashLongFlags(program(), ['-exclude-tags=x'])).toThrow(
      /^-exclude-tags \(-etags\) is a nuclei option/,
    );
    expect(() => acceptSingleDashLongFlags(program(), ['-s', 'high'])).toThrow(
      /^-s \(-severity\) is a nuclei option/,
    );
  });

  it('take a nuclei flag as soon as keyhole defines it', () => {
    const withTags = program().option('--tags <tags>');
    expect(acceptSingleDashLongFlags(withTags, ['-tags', 'cve'])).toEqual(['--tags', 'cve']);
  });

  it('refuse a word that is no flag of keyhole or nuclei as an unknown option', () => {
    expect(() => acceptSingleDashLongFlags(program(), ['-tagz'])).toThrow("unknown option '-tagz'");
  });
});

describe('the CLI with a flag it does not take', () => {
  it('stops before any work, exit 1, naming the nuclei flag', async () => {
    expect(await keyhole('scan', '-u', 'http://127.0.0.1:1', '-t', 'x.yaml', '-headless')).toEqual({
      code: 1,
      out: '',
      err: 'error: -headless is a nuclei option keyhole does not support; keyhole help COMMAND lists the flags it takes\n',
    });
  });

  it('suggests the closest flag of keyhole for a typo', async () => {
    const result = await keyhole('scan', '-silentt');
    expect(result).toEqual({
      code: 1,
      out: '',
      err: "error: unknown option '-silentt' (did you mean -silent?)\n",
    });
  });

  it("reads nuclei's flags that keyhole has, in nuclei's spelling", async () => {
    const result = await keyhole(
      'scan',
      '-dr',
      '-fr',
      '-t',
      'x.yaml',
      '-u',
      'http://127.0.0.1:1',
      '--no-store',
    );
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      'error: -dr (follow no redirect) and -fr (follow them) contradict each other; leave one out\n',
    );
  });
});
