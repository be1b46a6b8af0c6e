/**
 * Go's decoders as cookiemonster uses them, on byte strings (one character per byte, latin1), so that
 * a cookie accepted or refused by nuclei is accepted or refused here.
 */

const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const RAW_URL_BASE64 = /^[A-Za-z0-9_-]*$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Go's decoders skip CR and LF anywhere in base64 input. */
const withoutLineBreaks = (text: string) => text.replace(/[\r\n]/g, '');

export function isStdBase64(text: string): boolean {
  return STD_BASE64.test(withoutLineBreaks(text));
}

/** base64.StdEncoding.DecodeString: padded standard alphabet; undefined when Go returns an error. */
export function stdBase64(text: string): Buffer | undefined {
  const compact = withoutLineBreaks(text);
  return STD_BASE64.test(compact) ? Buffer.from(compact, 'base64') : undefined;
}

/** base64.RawURLEncoding.DecodeString: URL alphabet, no padding. */
export function rawUrlBase64(text: string): Buffer | undefined {
  const compact = withoutLineBreaks(text);
  if (!RAW_URL_BASE64.test(compact) || compact.length % 4 === 1) return undefined;
  return Buffer.from(compact, 'base64url');
}

/** hex.DecodeString. */
export function hexBytes(text: string): Buffer | undefined {
  return HEX.test(text) ? Buffer.from(text, 'hex') : undefined;
}

/** url.QueryUnescape on a byte string: `+` is a space, `%XX` a byte, any other `%` an error. */
export function queryUnescape(text: string): string | undefined {
  if (!text.includes('%') && !text.includes('+')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '+') out += ' ';
    else if (char !== '%') out += char;
    else {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 2;
    }
  }
  return out;
}

/** The bytes of a byte string. */
export const bytesOf = (text: string) => Buffer.from(text, 'latin1');
