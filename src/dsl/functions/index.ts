/**
 * The helper functions templates call, by name. Like projectdiscovery/dsl, every helper is also known by
 * its name without underscores (`tolower`, `base64decode`), which older templates use.
 */
import { checkFunctions } from './checks.js';
import { compressionFunctions } from './compression.js';
import { cookieFunctions } from './cookie-unsign.js';
import { dotnetGadgetFunctions } from './dotnet-gadget.js';
import { encodingFunctions } from './encoding.js';
import { fixed, type HelperFunction, textArg } from './helper.js';
import { javaGadgetFunctions } from './java-gadget.js';
import { jsonFunctions } from './json.js';
import { jwtFunctions } from './jwt.js';
import { llmFunctions } from './llm.js';
import { networkFunctions } from './network.js';
import { numberFunctions } from './numbers.js';
import { publicIpFunctions } from './public-ip.js';
import { randomFunctions } from './random.js';
import { resolveFunctions } from './resolve.js';
import { rsaFunctions } from './rsa.js';
import { runtimeFunctions } from './runtime.js';
import { stringFunctions } from './strings.js';
import { timeFunctions } from './time.js';
import { unpackFunctions } from './unpack.js';
import { versionFunctions } from './versions.js';
import { FINGERPRINTS_HOWTO, FINGERPRINTS_VARIABLE, wappalyzerFunctions } from './wappalyzer.js';
import { zipFunctions } from './zip.js';

export { type CallContext, cachedRegex, type HelperFunction } from './helper.js';
export { type OutboundSettings, registerOutbound } from './outbound.js';

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
  ...cookieFunctions,
  ...rsaFunctions,
  ...zipFunctions,
  ...resolveFunctions,
  ...javaGadgetFunctions,
  ...dotnetGadgetFunctions,
  ...publicIpFunctions,
  ...llmFunctions,
  ...unpackFunctions,
  ...wappalyzerFunctions,
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
 * nuclei's helper functions that keyhole does not implement, and why. A template calling one is
 * valid for nuclei, so it is reported as unsupported, by name, instead of as an error or, worse, as
 * text sent as written.
 */
const UNSUPPORTED_NUCLEI_FUNCTIONS: Readonly<Record<string, string>> = {};

export interface UnsupportedFunction {
  /** The canonical name (with underscores). */
  readonly name: string;
  readonly reason: string;
}

const unsupported = new Map<string, UnsupportedFunction>();
for (const [name, reason] of Object.entries(UNSUPPORTED_NUCLEI_FUNCTIONS)) {
  unsupported.set(name, { name, reason });
  unsupported.set(name.replaceAll('_', ''), { name, reason });
}

/** The nuclei helper keyhole does not implement, when `name` calls one. */
export function unsupportedNucleiFunction(name: string): UnsupportedFunction | undefined {
  return unsupported.get(name);
}

/** A helper that fails at every call until the user configures it, and how to. */
export interface UnconfiguredHelper {
  readonly name: string;
  readonly howto: string;
}

/** The helpers `environment` leaves unconfigured (wappalyzer without its fingerprints). */
export function unconfiguredHelpers(
  environment: Readonly<Record<string, string | undefined>>,
): readonly UnconfiguredHelper[] {
  const fingerprints = environment[FINGERPRINTS_VARIABLE] ?? '';
  return fingerprints === '' ? [{ name: 'wappalyzer', howto: FINGERPRINTS_HOWTO }] : [];
}

/** Canonical names (with underscores), for suggestions and documentation. */
export const functionNames: readonly string[] = ALL.map((helper) => helper.name).sort();
