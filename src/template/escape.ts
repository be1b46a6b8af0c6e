/**
 * A path with a `%` that starts no valid escape (`/xyz/%u2s/%invalid`) cannot be parsed as a URL
 * path; nuclei keeps it as text and Go's client writes it escaped (`url.URL.EscapedPath`), so every
 * `%` becomes `%25` and every byte outside the path's safe set is percent-encoded. A path whose
 * escapes are all valid goes out as written.
 */
export function escapeInvalidPercentPath(requestTarget: string): string {
  if (!requestTarget.includes('%')) return requestTarget;
  const question = requestTarget.indexOf('?');
  const path = question < 0 ? requestTarget : requestTarget.slice(0, question);
  if (!INVALID_ESCAPE.test(path)) return requestTarget;
  const rest = question < 0 ? '' : requestTarget.slice(question);
  return `${goPathEscape(path)}${rest}`;
}

/** A `%` not followed by two hex digits. */
const INVALID_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/** Bytes Go leaves as they are in a path: unreserved, and the reserved ones a path may hold. */
const PATH_SAFE = /[A-Za-z0-9\-_.~$&+,/:;=@]/;

function goPathEscape(path: string): string {
  let out = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    const char = String.fromCharCode(byte);
    out +=
      byte < 0x80 && PATH_SAFE.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
