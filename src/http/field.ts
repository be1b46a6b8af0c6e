const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Why `name` cannot be sent as a header name (RFC 9110 token), or undefined when it can. */
export function headerNameProblem(name: string): string | undefined {
  if (name === '') return 'the header name is empty';
  if (!TOKEN.test(name)) {
    return `the header name ${JSON.stringify(name)} may only hold letters, digits and !#$%&'*+-.^_\`|~`;
  }
  return undefined;
}

/**
 * Why `value` cannot be sent as a header value, or undefined when it can. Line breaks are refused
 * because they would let a value inject further headers.
 */
export function headerValueProblem(value: string): string | undefined {
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) {
    return 'the header value must not contain line breaks or control characters';
  }
  return undefined;
}
