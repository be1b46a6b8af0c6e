/** Templates written inline in tests, parsed exactly as files are. */
import { type ParsedTemplate, parseTemplate } from '../../template/index.js';

export function template(text: string, file = 'inline.yaml'): ParsedTemplate {
  const result = parseTemplate(file, text);
  if (result.status !== 'ok') {
    const problems =
      result.status === 'unsupported'
        ? result.features.map((f) => f.feature)
        : result.diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`);
    throw new Error(`test template does not parse (${result.status}): ${problems.join('; ')}`);
  }
  return result.template;
}
