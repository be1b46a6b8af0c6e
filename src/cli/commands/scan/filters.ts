/** The template selection flags of `keyhole scan` (`-tags`, `-s`, `-id`, `-tc`, …), read and checked. */
import { compileExpression, DslSyntaxError } from '../../../dsl/index.js';
import { isSeverity, SEVERITIES, type Severity } from '../../../event/index.js';
import { didYouMean } from '../../../source/index.js';
import { PROTOCOL_TYPES, type TemplateFilter } from '../../../template/index.js';
import { UserError } from '../../exit.js';
import type { ScanFlags } from './command.js';

/**
 * The selection as given: the filters' fields (`-pt` values are nuclei's protocol types), with
 * `-tc` expressions still as text and paths still relative to where they are resolved. The values
 * of -tags, -etags, -itags, -a, -id and -eid are as written (not yet lower-cased): one may name a
 * file of values, as in nuclei (see `templateFilter`).
 */
export interface SelectionConfig extends Omit<TemplateFilter, 'conditions'> {
  /** `--templates-dir` (or `-ud`), when given. */
  readonly templatesDir: string | undefined;
  readonly conditions: readonly string[];
  /** `-tl`, `-td`: print the selection and exit. */
  readonly show: 'list' | 'display' | undefined;
  readonly strict: boolean;
}

type GivenFlags = Partial<ScanFlags>;

export function selectionConfig(flags: GivenFlags): SelectionConfig {
  const words = (values: readonly string[] | undefined) => given(values).map((v) => v.toLowerCase());
  const config: SelectionConfig = {
    templatesDir: templatesDirFlag(flags),
    tags: given(flags.tags),
    excludeTags: given(flags.excludeTags),
    includeTags: given(flags.includeTags),
    authors: given(flags.author),
    ids: given(flags.templateId),
    excludeIds: given(flags.excludeId),
    severities: severities(words(flags.severity), '-s/-severity'),
    excludeSeverities: severities(words(flags.excludeSeverity), '-es/-exclude-severity'),
    protocols: protocols(words(flags.type)),
    conditions: conditions(flags.templateCondition ?? []),
    includePaths: (flags.includeTemplates ?? []).map((p) => p.trim()).filter((p) => p !== ''),
    excludePaths: (flags.excludeTemplates ?? []).map((p) => p.trim()).filter((p) => p !== ''),
    show: flags.templateDisplay === true ? 'display' : flags.tl === true ? 'list' : undefined,
    strict: flags.strict === true,
  };
  return config;
}

/** Whether any flag narrows the selection (a rescan, which runs what was stored, refuses them). */
export function filtersGiven(config: SelectionConfig): string[] {
  const given: [string, boolean][] = [
    ['-tags', config.tags.length > 0],
    ['-etags', config.excludeTags.length > 0],
    ['-itags', config.includeTags.length > 0],
    ['-a', config.authors.length > 0],
    ['-id', config.ids.length > 0],
    ['-eid', config.excludeIds.length > 0],
    ['-s', config.severities.length > 0],
    ['-es', config.excludeSeverities.length > 0],
    ['-pt', config.protocols.length > 0],
    ['-tc', config.conditions.length > 0],
    ['-it', config.includePaths.length > 0],
    ['-et', config.excludePaths.length > 0],
    ['--templates-dir', config.templatesDir !== undefined],
    ['-tl', config.show === 'list'],
    ['-td', config.show === 'display'],
  ];
  return given.filter(([, on]) => on).map(([flag]) => flag);
}

function given(values: readonly string[] | undefined): string[] {
  return (values ?? []).map((v) => v.trim()).filter((v) => v !== '');
}

function templatesDirFlag(flags: GivenFlags): string | undefined {
  const given = flags.templatesDir;
  const nuclei = flags.updateTemplateDir;
  if (given !== undefined && nuclei !== undefined && given !== nuclei) {
    throw new UserError('--templates-dir and -ud name the same folder: give one of them');
  }
  const dir = given ?? nuclei;
  if (dir !== undefined && dir.trim() === '') {
    throw new UserError('--templates-dir needs a folder, such as ~/nuclei-templates');
  }
  return dir;
}

function severities(values: readonly string[], flag: string): Severity[] {
  return values.map((value) => {
    if (isSeverity(value)) return value;
    throw new UserError(
      `${flag}: unknown severity "${value}"${didYouMean(value, SEVERITIES)}; use ${SEVERITIES.join(', ')}`,
    );
  });
}

function protocols(values: readonly string[]): string[] {
  const known: readonly string[] = PROTOCOL_TYPES;
  for (const value of values) {
    if (!known.includes(value)) {
      throw new UserError(
        `-pt/-type: unknown protocol type "${value}"${didYouMean(value, known)}; use ${known.join(', ')}`,
      );
    }
  }
  return [...values];
}

/** `-tc` expressions must compile: a typo would otherwise select nothing, silently. */
function conditions(values: readonly string[]): string[] {
  for (const value of values) {
    const compiled = compileExpression(value);
    if (compiled instanceof DslSyntaxError) {
      throw new UserError(
        `-tc/-template-condition "${value}": ${compiled.message} (at character ${compiled.offset + 1}); write it in nuclei's DSL, such as 'severity == "high" && contains(join(",", tags), "cve")'`,
      );
    }
  }
  return [...values];
}
