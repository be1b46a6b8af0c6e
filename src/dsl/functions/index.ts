/**
 * The helper functions templates call, by name. Like projectdiscovery/dsl, every helper is also known by
 * its name without underscores (`tolower`, `base64decode`), which older templates use.
 */
import { checkFunctions } from './checks.js';
import { compressionFunctions } from './compression.js';
import { encodingFunctions } from './encoding.js';
import { fixed, type HelperFunction, textArg } from './helper.js';
import { jsonFunctions } from './json.js';
import { jwtFunctions } from './jwt.js';
import { networkFunctions } from './network.js';
import { numberFunctions } from './numbers.js';
import { randomFunctions } from './random.js';
import { rsaFunctions } from './rsa.js';
import { runtimeFunctions } from './runtime.js';
import { stringFunctions } from './strings.js';
import { timeFunctions } from './time.js';
import { unpackFunctions } from './unpack.js';
import { versionFunctions } from './versions.js';
import { zipFunctions } from './zip.js';

export { type CallContext, cachedRegex, type HelperFunction } from './helper.js';

/** Ports nuclei's network templates treat as "the protocol's usual port" (nuclei's own helper). */
const KNOWN_PORTS = new Set(['80', '443', '8080', '8081', '8443', '53']);

const nucleiFunctions: readonly HelperFunction[] = [
  fixed('getNetworkPort', 2, (args) => {
    const port = textArg(args, 0);
    return port === '' || KNOWN_PORTS.has(port) ? textArg(args, 1) : port;
  }),
];

const ALL: readonly HelperFunction[] = [
  ...stringFunctions,
  ...encodingFunctions,
  ...numberFunctions,
  ...compressionFunctions,
  ...jsonFunctions,
  ...randomFunctions,
  ...timeFunctions,
  ...versionFunctions,
  ...checkFunctions,
  ...networkFunctions,
  ...runtimeFunctions,
  ...jwtFunctions,
  ...rsaFunctions,
  ...zipFunctions,
  ...unpackFunctions,
  ...nucleiFunctions,
];

const byName = new Map<string, HelperFunction>();
for (const helper of ALL) {
  byName.set(helper.name, helper);
  const alias = helper.name.replaceAll('_', '');
  if (!byName.has(alias)) byName.set(alias, helper);
}

export function findFunction(name: string): HelperFunction | undefined {
  return byName.get(name);
}

/**
 * nuclei's helper functions that keyhole does not implement yet (some need the network, an LLM or a
 * Java gadget chain). A template calling one is valid for nuclei, so it is reported as unsupported,
 * by name, instead of as an error or, worse, as text sent as written.
 */
const UNIMPLEMENTED_NUCLEI_FUNCTIONS = [
  'cookie_unsign',
  'generate_dotnet_gadget',
  'generate_java_gadget',
  'llm_prompt',
  'public_ip',
  'resolve',
] as const;

const unimplemented = new Map<string, string>();
for (const name of UNIMPLEMENTED_NUCLEI_FUNCTIONS) {
  unimplemented.set(name, name);
  unimplemented.set(name.replaceAll('_', ''), name);
}

/** The canonical name of a nuclei helper keyhole does not implement, when `name` calls one. */
export function unimplementedNucleiFunction(name: string): string | undefined {
  return unimplemented.get(name);
}

/** Canonical names (with underscores), for suggestions and documentation. */
export const functionNames: readonly string[] = ALL.map((helper) => helper.name).sort();
