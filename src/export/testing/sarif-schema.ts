import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';

const schema = JSON.parse(
  readFileSync(new URL('../schema/sarif-schema-2.1.0.json', import.meta.url), 'utf8'),
);
const ajv = new Ajv2020({ allErrors: true, strict: false });
// ajv-formats is CommonJS: its plugin is the module's `default`, under both loaders.
formats.default(ajv);

/** The vendored SARIF 2.1.0 schema, compiled: true when the log is valid; `.errors` says why not. */
export const validSarif = ajv.compile(schema);
