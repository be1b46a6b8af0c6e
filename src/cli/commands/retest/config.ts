/** The flags and arguments of `keyhole retest`, read into checked values. */
import type { OastPlan } from '../../../scan/index.js';
import { isId } from '../../../store/index.js';
import { UserError } from '../../exit.js';
import { type RunConfig, runConfig } from '../../shared/request-config.js';
import { oastConfig } from '../scan/oast-config.js';
import type { RetestFlags } from './command.js';

export interface RetestConfig extends RunConfig {
  /** The findings: given vuln ids, or every finding of a scan. */
  readonly select: { readonly vulnIds: readonly string[] } | { readonly scanId: string };
  /** Where out-of-band callbacks go, for findings whose template needs them; none with `-ni`. */
  readonly oast: OastPlan | undefined;
}

export function retestConfig(vulnIds: readonly string[], flags: RetestFlags, cwd?: string): RetestConfig {
  const config = { ...runConfig(flags), oast: oastConfig(flags, cwd) };
  if (vulnIds.length > 0 && flags.scan !== undefined) {
    throw new UserError('give vuln ids or --scan SCAN_ID, not both');
  }
  if (flags.scan !== undefined) return { ...config, select: { scanId: flags.scan } };
  if (vulnIds.length === 0) {
    throw new UserError(
      'nothing to retest: give the vuln ids of findings, or --scan SCAN_ID for all of a scan',
    );
  }
  const malformed = vulnIds.filter((id) => !isId(id));
  if (malformed.length > 0) {
    throw new UserError(
      `not a vuln id: ${malformed.map((id) => JSON.stringify(id)).join(', ')} (vuln ids are 20 characters of 0-9 and a-v)`,
    );
  }
  return { ...config, select: { vulnIds: [...new Set(vulnIds)] } };
}
