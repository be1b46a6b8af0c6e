/**
 * SoapFormatter's form of a BinaryFormatter stream whose root object has only string members (the
 * SOAP 1.1 encoding .NET remoting writes: the object an element named by its class in a namespace
 * naming its CLR namespace and assembly, each member a child element with an id). The gadgets made
 * of one such object are written this way; others are refused.
 */
import { type ClassRecord, NrbfError, type NrbfRecord } from './dotnet-nrbf.js';

const ENVELOPE_NAMESPACES = [
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema"',
  'xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/"',
  'xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"',
  'xmlns:clr="http://schemas.microsoft.com/soap/encoding/clr/1.0"',
  'SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"',
].join(' ');

/** Text as XML character data; a carriage return is kept as a reference, which a parser does not fold. */
function xmlText(text: string): string {
  return text.replace(/[&<>"\r]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The namespace SoapFormatter gives a class: its CLR namespace, and its assembly unless mscorlib. */
function classNamespace(className: string, assembly: string | undefined): string {
  const dot = className.lastIndexOf('.');
  const clrNamespace = className.slice(0, dot);
  return assembly === undefined
    ? `http://schemas.microsoft.com/clr/ns/${clrNamespace}`
    : `http://schemas.microsoft.com/clr/nsassem/${clrNamespace}/${encodeURIComponent(assembly)}`;
}

/** The SOAP envelope of the stream's root object, or an NrbfError when it is not one SOAP can hold. */
export function writeSoap(records: readonly NrbfRecord[]): string {
  const classes = records.filter((record): record is ClassRecord => record.record === 'class');
  const [root] = classes;
  const onlyStrings = root?.values.every((value) => typeof value === 'object' && value.record === 'string');
  if (root === undefined || classes.length !== 1 || !onlyStrings) {
    throw new NrbfError('its objects are not all written by this SOAP writer');
  }
  const library = records.find((record) => record.record === 'library' && record.id === root.library);
  const assembly = library?.record === 'library' ? library.name : undefined;
  const shortName = root.name.slice(root.name.lastIndexOf('.') + 1);
  const members = root.members.map((member, index) => {
    const value = root.values[index];
    if (typeof value !== 'object' || value.record !== 'string')
      throw new NrbfError('a member is not a string');
    return `<${member.name} id="ref-${value.id}" xsi:type="xsd:string" xmlns="">${xmlText(value.value)}</${member.name}>`;
  });
  return [
    `<SOAP-ENV:Envelope ${ENVELOPE_NAMESPACES}>`,
    '<SOAP-ENV:Body>',
    `<a1:${shortName} id="ref-${root.id}" xmlns:a1="${classNamespace(root.name, assembly)}">`,
    ...members,
    `</a1:${shortName}>`,
    '</SOAP-ENV:Body>',
    '</SOAP-ENV:Envelope>',
    '',
  ].join('\r\n');
}
