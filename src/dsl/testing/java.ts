/**
 * A JVM reading Java gadgets, for tests: one Java program, compiled once, that deserializes its
 * standard input and reports each class it resolves, how reading ended, and (when asked) what a
 * TemplatesImpl read on the way does when asked for a transformer.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchFolder } from './scratch-folder.js';
import { commandWorks } from './tools.js';

export const hasJava = commandWorks('java', ['-version']) && commandWorks('javac', ['-version']);

/** Jars of Debian's packages (libcommons-collections3-java, libcommons-collections4-java, groovy). */
export const JARS = {
  commonsCollections3: '/usr/share/java/commons-collections3.jar',
  commonsCollections4: '/usr/share/java/commons-collections4.jar',
  groovy: '/usr/share/java/groovy.jar',
} as const;

export const hasJar = (jar: string) => hasJava && existsSync(jar);

const HARNESS = `
import java.io.*;
import java.util.*;

public class GadgetReader {
  static final List<javax.xml.transform.Templates> templates = new ArrayList<>();

  static class Reporting extends ObjectInputStream {
    Reporting(InputStream in) throws IOException { super(in); enableResolveObject(true); }
    @Override protected Object resolveObject(Object read) {
      if (read instanceof javax.xml.transform.Templates) templates.add((javax.xml.transform.Templates) read);
      return read;
    }
    @Override protected Class<?> resolveClass(ObjectStreamClass d) throws IOException, ClassNotFoundException {
      System.out.println("class " + d.getName());
      return super.resolveClass(d);
    }
    @Override protected Class<?> resolveProxyClass(String[] interfaces) throws IOException, ClassNotFoundException {
      System.out.println("proxy " + String.join(",", interfaces));
      return super.resolveProxyClass(interfaces);
    }
  }

  static String describe(Throwable e) {
    StackTraceElement top = e.getStackTrace().length > 0 ? e.getStackTrace()[0] : null;
    return e.getClass().getName() + ": " + e.getMessage() + (top == null ? "" : " in " + top.getClassName());
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("uids")) {
      for (String name : Arrays.copyOfRange(args, 1, args.length)) {
        ObjectStreamClass found = null;
        try { found = ObjectStreamClass.lookup(Class.forName(name, false, GadgetReader.class.getClassLoader())); }
        catch (ClassNotFoundException e) { System.out.println(name + " absent"); continue; }
        System.out.println(name + " " + (found == null ? "unserializable" : Long.toString(found.getSerialVersionUID())));
      }
      return;
    }
    try {
      Object read = new Reporting(new BufferedInputStream(System.in)).readObject();
      System.out.println("read " + read.getClass().getName());
    } catch (Throwable e) {
      System.out.println("refused " + describe(e));
    }
    if (args.length > 0 && args[0].equals("transform")) {
      for (javax.xml.transform.Templates read : templates) {
        try { read.newTransformer(); System.out.println("transformer made"); }
        catch (Throwable e) { System.out.println("transformer failed " + describe(e)); }
      }
    }
  }
}
`;

let compiled: string | undefined;

function harnessFolder(): string {
  if (compiled === undefined) {
    const folder = scratchFolder('java');
    writeFileSync(join(folder, 'GadgetReader.java'), HARNESS);
    execFileSync('javac', ['-d', folder, join(folder, 'GadgetReader.java')], { stdio: 'pipe' });
    compiled = folder;
  }
  return compiled;
}

export interface ReadOptions {
  /** Jars the reading JVM has. */
  readonly jars?: readonly string[];
  /** After reading, ask every TemplatesImpl read for a transformer. */
  readonly transform?: boolean;
}

/** What a JVM reports reading `payload`: `class NAME`, `proxy NAMES`, then `read NAME` or `refused …`. */
export function readWithJava(payload: Buffer, options: ReadOptions = {}): string[] {
  const classpath = [harnessFolder(), ...(options.jars ?? [])].join(':');
  const args = [
    // JDK 17 updates of late 2026 refuse to deserialize TemplatesImpl unless this is set; the targets
    // these gadgets are for (and every JDK 17 before those updates) read it, so the reader does too.
    '-Djdk.xml.enableTemplatesImplDeserialization=true',
    '-cp',
    classpath,
    'GadgetReader',
    ...(options.transform ? ['transform'] : []),
  ];
  const output = execFileSync('java', args, { input: payload, timeout: 60_000 }).toString();
  return output.trim().split('\n');
}

/** The serialVersionUID the JVM computes for each class: a number, `absent` or `unserializable`. */
export function serialVersionUids(
  names: readonly string[],
  jars: readonly string[] = [],
): Map<string, string> {
  const classpath = [harnessFolder(), ...jars].join(':');
  const output = execFileSync('java', ['-cp', classpath, 'GadgetReader', 'uids', ...names], {
    timeout: 60_000,
  }).toString();
  return new Map(
    output
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );
}

/** Waits up to 5 s for a file a command started by a JVM makes. */
export async function appears(path: string): Promise<boolean> {
  for (let waited = 0; waited < 5_000; waited += 100) {
    if (existsSync(path)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return existsSync(path);
}
