import { describe, expect, it } from 'vitest';
import type { RetestOutcome } from '../../../retest/index.js';
import { retestLine } from './output.js';

/** A finding as an imported file may have left it: its template id and host hold terminal controls. */
const finding = {
  id: 'cmknvrvsii6s73au799g',
  scanId: 'cmknvrvsii6s73au7990',
  vulnHash: 'h',
  templateId: 'cve\x1b]0;owned\x07',
  templatePath: '',
  templateEncoded: '',
  target: 'https://app.test',
};

describe('a retest line', () => {
  it("shows the control characters of an imported finding's template id and target as escapes", () => {
    const outcome = {
      finding,
      target: 'https://app.test/\u202e',
      verdict: { resultType: 'error', reason: 'the server said \x1b[2J' },
      events: [],
    } as unknown as RetestOutcome;
    expect(retestLine(outcome, 'open', false)).toBe(
      '[cmknvrvsii6s73au799g] cve\\x1b]0;owned\\x07 https://app.test/\\u202e → error: the server said \\x1b[2J',
    );
  });
});
