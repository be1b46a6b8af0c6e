import { describe, expect, it } from 'vitest';
import { memoryIo } from '../io.js';
import { run } from '../program.js';

async function headings(...argv: string[]): Promise<string[]> {
  const io = memoryIo();
  expect(await run([...argv, '--help'], io)).toBe(0);
  return io
    .out()
    .split('\n')
    .filter((line) => /^[A-Z][A-Za-z-]*:$/.test(line));
}

describe('--help of the commands that scan', () => {
  it("lists scan's options under nuclei's headings, in nuclei's order, with keyhole's own between", async () => {
    expect(await headings('scan')).toEqual([
      'Target:',
      'Templates:',
      'Filtering:',
      'Output:',
      'Secrets:',
      'Configurations:',
      'Interactsh:',
      'Rate-Limit:',
      'Optimizations:',
      'Debug:',
      'Statistics:',
      'Store:',
      'Options:',
      'Examples:',
    ]);
  });

  it('puts each flag where nuclei has it', async () => {
    const io = memoryIo();
    await run(['scan', '--help'], io);
    const section = (heading: string) => {
      const text = io.out().split(`${heading}\n`)[1] ?? '';
      return text.slice(0, text.indexOf('\n\n'));
    };
    expect(section('Filtering:')).toContain('--tags <tags>');
    expect(section('Rate-Limit:')).toContain('--rl, --rate-limit <n>');
    expect(section('Optimizations:')).toContain('--mhe, --max-host-error <n>');
    expect(section('Debug:')).toContain('--debug-req');
    expect(section('Options:')).toBe('  -h, --help                                display help for command');
  });

  it('groups the request flags of retest and worker the same way', async () => {
    expect(await headings('retest')).toContain('Rate-Limit:');
    expect(await headings('worker')).toContain('Debug:');
  });
});
