/**
 * `--rescan ID`: a new scan of the stored scan's targets and templates, each template as the
 * store keeps its text (so the rescan runs what the scan ran, whatever became of the files since);
 * a template whose text was not stored (results imported without it) is read from its path.
 * `-resume ID` reads a stopped or failed scan the same way, to go on with it.
 */
import { loadStoredTemplate } from '../../../retest/index.js';
import type { Scan, Store } from '../../../store/index.js';
import type { ParsedTemplate } from '../../../template/index.js';
import { UserError } from '../../exit.js';
import type { ScanOutput } from '../../shared/scan-output.js';
import type { LoadedSecrets } from '../../shared/session.js';
import { plural } from '../../shared/words.js';
import { type ScanInputs, withoutLoginTemplates } from './inputs.js';

/** What the team's scan `scanId` ran, to run again; an unknown id is a usage error. */
export async function storedScanInputs(
  store: Store,
  teamId: string,
  scanId: string,
  secrets: LoadedSecrets | undefined,
  output: ScanOutput,
  flag: '--rescan' | '-resume' = '--rescan',
): Promise<ScanInputs> {
  const original = await store.scans.get(scanId, teamId);
  if (original === undefined) {
    throw new UserError(`${flag} ${scanId}: no scan has that id (GET /v1/scans lists them)`);
  }
  if (flag === '-resume') checkResumable(original);
  const read = await storedTemplates(store, original, output, flag);
  const templates = withoutLoginTemplates(read.templates, secrets?.set, output);
  const targets = await store.scans.targets(original.id);
  const { unsupported, texts } = read;
  return { templates, unsupported, targets, secrets, rescanOf: original, texts };
}

/** The stored scan's templates; one that cannot be read stops the rescan, unsupported ones are skipped. */
async function storedTemplates(
  store: Store,
  scan: Scan,
  output: ScanOutput,
  flag: string,
): Promise<{ templates: ParsedTemplate[]; unsupported: number; texts: Map<ParsedTemplate, string> }> {
  const refs = await store.scans.templates(scan.id);
  if (refs.length === 0) throw new UserError(`${flag} ${scan.id}: the scan has no templates to run`);
  const templates: ParsedTemplate[] = [];
  const texts = new Map<ParsedTemplate, string>();
  const broken: string[] = [];
  let unsupported = 0;
  for (const ref of refs) {
    const stored = await loadStoredTemplate(ref);
    if (stored.status === 'ok') {
      if (stored.from === 'file') output.info(`${ref.id}: its text was not stored; running ${ref.path}`);
      templates.push(stored.template);
      texts.set(stored.template, stored.text);
    } else if (stored.status === 'unsupported') {
      unsupported++;
      output.warn(`skipped ${ref.id}: ${stored.reason}`);
    } else broken.push(`${ref.id}: ${stored.reason}`);
  }
  if (broken.length > 0) {
    for (const text of broken) output.fatal(text);
    const count = plural(broken.length, 'template');
    throw new UserError(`${flag} ${scan.id}: ${count} of the scan cannot run; nothing was sent`);
  }
  if (templates.length === 0) throw new UserError(`${flag} ${scan.id}: none of its templates can run`);
  return { templates, unsupported, texts };
}

/** Only a scan that stopped or failed goes on; the others say what to do instead. */
function checkResumable(scan: Scan): void {
  const id = scan.id;
  switch (scan.status) {
    case 'failed':
      return;
    case 'finished':
      throw new UserError(`-resume ${id}: the scan finished; run it again as a new scan with --rescan ${id}`);
    case 'uploaded':
      throw new UserError(`-resume ${id}: the scan was imported, not run here; --rescan ${id} runs it`);
    default:
      throw new UserError(
        `-resume ${id}: the scan is ${scan.status}; only a scan that was stopped or failed can be resumed`,
      );
  }
}
