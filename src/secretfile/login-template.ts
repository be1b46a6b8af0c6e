import type { Diagnostic } from '../source/index.js';
import { type ExternalVariable, externalVariables, loadTemplate } from '../template/index.js';

export type LoginTemplateInfo =
  | {
      readonly ok: true;
      readonly extractorNames: readonly string[];
      /** Variables its requests read that it gives no value itself: the entry must. */
      readonly needs: readonly ExternalVariable[];
    }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

/**
 * What the secret-file loader needs to know about a login template: whether it parses, the names
 * of its named extractors (the values a dynamic secret may reference as `{{name}}`), and the
 * variables its requests need from the entry.
 */
export type LoginTemplateInspector = (path: string) => Promise<LoginTemplateInfo>;

/**
 * Reads the login template with the template parser: it must parse with no error and use no
 * feature keyhole does not run (a login that would be skipped can never give a session).
 */
export const inspectLoginTemplateFile: LoginTemplateInspector = async (path) => {
  const result = await loadTemplate(path);
  if (result.status === 'error') return { ok: false, diagnostics: result.diagnostics };
  if (result.status === 'unsupported') {
    const diagnostics: Diagnostic[] = result.features.map((feature) => ({
      severity: 'error',
      file: feature.file,
      line: feature.line,
      col: feature.col,
      path: feature.path,
      message: `unsupported: ${feature.feature}; a login template must use only features keyhole runs`,
    }));
    return { ok: false, diagnostics };
  }
  const names: string[] = [];
  for (const block of result.template.http) {
    for (const extractor of block.operators.model.extractors) {
      if (extractor.name !== undefined && extractor.name !== '' && !names.includes(extractor.name)) {
        names.push(extractor.name);
      }
    }
  }
  return { ok: true, extractorNames: names, needs: externalVariables(result.template) };
};
