/**
 * Mono (Debian's mono-runtime, a .NET Framework-compatible runtime) reading .NET gadgets, for tests:
 * one C# program, compiled once, that deserializes its standard input with BinaryFormatter or
 * SoapFormatter and reports how reading ended, each inner exception on a line of its own. Mono has
 * no Windows-only assemblies (Microsoft.PowerShell.Editor) and checks what .NET Framework does not
 * (combining delegates of unlike types), so a gadget is read up to the step where Mono differs.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchFolder } from './scratch-folder.js';
import { commandWorks } from './tools.js';

export const hasMono = commandWorks('mono', ['--version']) && commandWorks('mcs', ['--version']);

const READER = `
using System;
using System.IO;
using System.Runtime.Serialization.Formatters.Binary;
using System.Runtime.Serialization.Formatters.Soap;

public class GadgetReader {
  public static void Main(string[] args) {
    var input = new MemoryStream();
    Console.OpenStandardInput().CopyTo(input);
    input.Position = 0;
    try {
      object read = args[0] == "soap"
        ? new SoapFormatter().Deserialize(input)
        : new BinaryFormatter().Deserialize(input);
      Console.WriteLine("read " + read.GetType().FullName);
    } catch (Exception e) {
      for (Exception x = e; x != null; x = x.InnerException) {
        Console.WriteLine("refused " + x.GetType().FullName + ": " + x.Message);
      }
    }
  }
}
`;

let compiled: string | undefined;

function reader(): string {
  if (compiled === undefined) {
    const folder = scratchFolder('mono');
    const source = join(folder, 'GadgetReader.cs');
    writeFileSync(source, READER);
    const program = join(folder, 'GadgetReader.exe');
    execFileSync('mcs', ['-r:System.Runtime.Serialization.Formatters.Soap.dll', `-out:${program}`, source], {
      stdio: 'pipe',
    });
    compiled = program;
  }
  return compiled;
}

/** What Mono reports reading `payload` with BinaryFormatter or SoapFormatter. */
export function readWithMono(payload: Buffer, formatter: 'binary' | 'soap'): string[] {
  const output = execFileSync('mono', [reader(), formatter], { input: payload, timeout: 60_000 }).toString();
  return output.trim().split('\n');
}
