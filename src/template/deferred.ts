/**
 * A template checked and put away: what a scan needs before running it (id, info, file, whether it
 * is self-contained, how many requests it makes) and its text; its compiled form is made again when
 * a run needs it. A library of 10,000 templates would otherwise hold 10,000 compiled templates
 * (their expressions, regexes and operators) through a scan that runs a few dozen at a time.
 */
import { payloadFileReader } from './load.js';
import type { TemplateInfo } from './model.js';
import { type ParsedTemplate, parseTemplate } from './parse.js';
import { writesOastName } from './placeholders.js';

/** What a scan does to each compiled template before running it (`-var` payload files). */
export type TemplateChange = (template: ParsedTemplate) => ParsedTemplate | Error;

/** What a scan needs of a template before running it. */
export interface TemplateSummary {
  readonly file: string;
  readonly id: string;
  readonly info: TemplateInfo;
  readonly selfContained: boolean;
  readonly requestCount: number;
  /** Its requests write `{{interactsh-url}}`: its runs need an interactsh server. */
  readonly writesOastName: boolean;
}

/** The summary of a compiled template. */
export function summaryOf(template: ParsedTemplate): TemplateSummary {
  return {
    file: template.file,
    id: template.id,
    info: template.info,
    selfContained: template.selfContained,
    requestCount: template.requestCount,
    writesOastName: template.http.some(writesOastName),
  };
}

export class DeferredTemplate implements TemplateSummary {
  readonly file: string;
  readonly id: string;
  readonly info: TemplateInfo;
  readonly selfContained: boolean;
  readonly requestCount: number;
  /** Its requests write `{{interactsh-url}}`: its runs need an interactsh server. */
  readonly writesOastName: boolean;

  /**
   * @param checked the summary of the template as compiled once from `text` (or as a cache
   *   remembers it)
   * @param root the folder its payload files are looked up in, up from its own
   */
  constructor(
    checked: TemplateSummary,
    readonly text: string,
    private readonly root: string,
    private readonly change: TemplateChange = (template) => template,
  ) {
    this.file = checked.file;
    this.id = checked.id;
    this.info = checked.info;
    this.selfContained = checked.selfContained;
    this.requestCount = checked.requestCount;
    this.writesOastName = checked.writesOastName;
  }

  /**
   * The template compiled again from its text. Its payload files are read again: one changed or
   * removed since the template was checked makes this throw, saying why.
   */
  compile(): ParsedTemplate {
    const result = parseTemplate(this.file, this.text, { payloadFiles: payloadFileReader(this.root) });
    if (result.status !== 'ok') {
      const first = result.diagnostics.find((d) => d.severity === 'error');
      const why = first === undefined ? 'it no longer runs' : first.message;
      throw new Error(`${this.file} no longer compiles as it did when the scan started: ${why}`);
    }
    const changed = this.change(result.template);
    if (changed instanceof Error) throw changed;
    return changed;
  }

  /**
   * The same template with `change` applied to its compiled form, checked once now: the error
   * `change` gives for it, if any.
   */
  changed(change: TemplateChange): DeferredTemplate | Error {
    const both: TemplateChange = (template) => {
      const first = this.change(template);
      return first instanceof Error ? first : change(first);
    };
    const checked = change(this.compile());
    if (checked instanceof Error) return checked;
    return new DeferredTemplate(summaryOf(checked), this.text, this.root, both);
  }
}
