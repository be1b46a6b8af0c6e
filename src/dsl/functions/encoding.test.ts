import { describe, expect, it } from 'vitest';
import { bytesToText, DslEvaluationError } from '../index.js';
import { evaluate } from '../testing/evaluate.js';

function fails(source: string, variables = {}): DslEvaluationError {
  try {
    evaluate(source, variables);
  } catch (error) {
    if (error instanceof DslEvaluationError) return error;
    throw error;
  }
  throw new Error(`expected ${source} to fail`);
}

/** Raw bytes as the language holds them (see bytes.ts). */
function binary(...bytes: number[]): string {
  return bytesToText(Uint8Array.from(bytes));
}

describe('base64', () => {
  it('encodes with the standard padded alphabet', () => {
    expect(evaluate('base64("Hello")')).toBe('SGVsbG8=');
    expect(evaluate('base64(1234)')).toBe('MTIzNA==');
    expect(evaluate('base64decode(base64("x"))')).toBe('x');
  });

  it('decodes strictly, as Go StdEncoding does, ignoring line breaks', () => {
    expect(evaluate('base64_decode("SGVsbG8=")')).toBe('Hello');
    expect(evaluate('base64_decode(text)', { text: 'SGVs\r\nbG8=' })).toBe('Hello');
    expect(fails('base64_decode("SGVsbG8")').message).toContain('illegal base64');
    expect(fails('base64_decode("SGVs bG8=")').kind).toBe('argument');
    expect(fails('base64_decode("SGVsbG8_")').kind).toBe('argument');
  });

  it('encodes bytes, not UTF-16 code units', () => {
    expect(evaluate('base64("é")')).toBe('w6k=');
    expect(evaluate('base64(data)', { data: binary(0xff, 0x00, 0x80) })).toBe('/wCA');
    expect(evaluate('base64_decode("/wCA") == data', { data: binary(0xff, 0x00, 0x80) })).toBe(true);
  });

  it("wraps like Python's base64.encodebytes in base64_py: 76-character lines ending in a newline", () => {
    expect(evaluate('base64_py("Hello")')).toBe('SGVsbG8=\n');
    const encoded = evaluate('base64_py(repeat("a", 100))') as string;
    expect(encoded.split('\n').map((line) => line.length)).toEqual([76, 60, 0]);
    expect(evaluate('base64_py("")')).toBe('\n');
  });
});

describe('url encoding', () => {
  it("escapes as Go's url.QueryEscape", () => {
    expect(evaluate('url_encode("https://projectdiscovery.io/test?a=1")')).toBe(
      'https%3A%2F%2Fprojectdiscovery.io%2Ftest%3Fa%3D1',
    );
    expect(evaluate('url_encode("a b&c\\"~-_.")')).toBe('a+b%26c%22~-_.');
    expect(evaluate('url_encode("é")')).toBe('%C3%A9');
  });

  it("unescapes as Go's url.QueryUnescape", () => {
    expect(evaluate('url_decode("https:%2F%2Fprojectdiscovery.io%3Ftest=1")')).toBe(
      'https://projectdiscovery.io?test=1',
    );
    expect(evaluate('url_decode("%26test%22+x")')).toBe('&test" x');
    expect(evaluate('url_decode("%C3%A9")')).toBe('é');
    expect(fails('url_decode("%zz")').message).toContain('invalid URL escape');
    expect(fails('url_decode("%4")').kind).toBe('argument');
  });
});

describe('hex', () => {
  it('encodes bytes as lowercase hex', () => {
    expect(evaluate('hex_encode("aa")')).toBe('6161');
    expect(evaluate('hex_encode("é")')).toBe('c3a9');
    expect(evaluate('hex_encode(data)', { data: binary(0, 1, 0x42, 0x75, 0x64, 0x31, 0xff) })).toBe(
      '000142756431ff',
    );
  });

  it('decodes hex, failing on odd lengths and non-hex characters', () => {
    expect(evaluate('hex_decode("6161")')).toBe('aa');
    expect(evaluate('hex_decode("C3A9")')).toBe('é');
    expect(fails('hex_decode("616")').message).toContain('odd length');
    expect(fails('hex_decode("zz")').kind).toBe('argument');
  });
});

describe('html', () => {
  it("escapes the five characters Go's html.EscapeString escapes", () => {
    expect(evaluate('html_escape("<body>test</body>")')).toBe('&lt;body&gt;test&lt;/body&gt;');
    expect(evaluate(`html_escape("'&\\"")`)).toBe('&#39;&amp;&#34;');
  });

  it('unescapes named and numeric HTML5 references', () => {
    expect(evaluate('html_unescape("&lt;body&gt;test&lt;/body&gt;")')).toBe('<body>test</body>');
    expect(evaluate('html_unescape("&aacute;&#225;&#xE1;&amp")')).toBe('ááá&');
  });
});

describe('hashes', () => {
  it('computes MD5, SHA-1, SHA-256 and SHA-512 as lowercase hex', () => {
    expect(evaluate('md5("Hello")')).toBe('8b1a9953c4611296a827abf8c47804d7');
    expect(evaluate('md5(1234)')).toBe('81dc9bdb52d04dc20036dbd8313ed055');
    expect(evaluate('sha1("Hello")')).toBe('f7ff9e8b7bb2e09b70935a5d785e0cc5d9d0abf0');
    expect(evaluate('sha256("Hello")')).toBe(
      '185f8db32271fe25f561a6fc938b2e264306ec304eda518007d1764826381969',
    );
    expect(evaluate('sha512("Hello")')).toBe(
      '3615f80c9d293ed7402687f94b22d58e529b8cc7916f8fac7fddf7fbd5af4cf777d3d795a7a00a16bf7e7f3fb9561ee9baae480da9fe7a18769e71886b03f315',
    );
  });

  it('hashes the bytes a binary body stands for', () => {
    expect(evaluate('md5(data)', { data: binary(0xff, 0xfe, 0x00) })).toBe(
      '266e75fcf28db213599bf0f3f46976a8',
    );
  });

  it('computes HMACs with SHA-1, SHA-256 and SHA-512', () => {
    expect(evaluate("hmac('sha1', 'test', 'scrt')")).toBe('8856b111056d946d5c6c92a21b43c233596623c6');
    expect(evaluate("hmac('sha256', 'test', 'scrt')")).toBe(
      '1f1bff5574f18426eb376d6dd5368a754e67a798aa2074644d5e3fd4c90c7a92',
    );
    expect(evaluate("hmac('sha512', 'test', 'scrt')")).toBe(
      '1d3fff1dbb7369c1615ffb494813146bea051ce07e5d44bdeca539653ea97656bf9d38db264cddbe6a83ea15139c8f861a7e73e10e43ad4865e852a9ee6de2e9',
    );
    expect(fails("hmac('md5', 'a', 'b')").kind).toBe('argument');
  });

  it('computes MurmurHash3 x86 32-bit with seed 0 as a signed decimal string', () => {
    expect(evaluate('mmh3("Hello")')).toBe('316307400');
    expect(evaluate('mmh3("hello")')).toBe('613153351');
    expect(evaluate('mmh3("")')).toBe('0');
    expect(evaluate('mmh3("The quick brown fox jumps over the lazy dog")')).toBe('776992547');
  });
});

describe('ciphers and xor', () => {
  it('encrypts with AES-CBC and PKCS#7 padding (vector from openssl enc -aes-128-cbc)', () => {
    const key = '0123456789abcdef';
    expect(evaluate(`hex_encode(aes_cbc("Hello", "${key}", "${key}"))`)).toBe(
      '06edf08fb970c671de80b7e188fae798',
    );
    expect(fails('aes_cbc("x", "short", "0123456789abcdef")').message).toContain('16, 24 or 32 bytes');
    expect(fails(`aes_cbc("x", "${key}", "short")`).message).toContain('IV');
  });

  it('encrypts with AES-GCM under a random nonce (nonce, ciphertext, tag)', () => {
    const first = evaluate(
      'hex_encode(aes_gcm("AES256Key-32Characters1234567890", "exampleplaintext"))',
    ) as string;
    const second = evaluate(
      'hex_encode(aes_gcm("AES256Key-32Characters1234567890", "exampleplaintext"))',
    ) as string;
    expect(first).toHaveLength((12 + 16 + 16) * 2);
    expect(first).not.toBe(second);
  });

  it('xors equally long inputs byte by byte', () => {
    expect(evaluate('hex_encode(xor("ab", "AB"))')).toBe('2020');
    expect(fails('xor("a", "bc")').kind).toBe('argument');
  });
});
