import {
  type HttpRequest,
  headerValues,
  mergeCookieHeader,
  RawRequestHead,
  setHeader,
  setQueryParams,
} from '../http/index.js';
import type { Credential } from './model.js';

/** `Basic base64(username:password)` (RFC 7617, UTF-8). */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/**
 * Applies a credential to a request, last, so it wins over template headers and `-H`:
 * basic/bearer replace `Authorization`; headers replace same-named ones (any casing) and are sent
 * with the file's casing; cookies are merged into one `Cookie` header; query parameters are set on
 * the request-target, replacing same-named ones.
 */
export function applyCredential(request: HttpRequest, credential: Credential): HttpRequest {
  switch (credential.type) {
    case 'basicauth':
      return {
        ...request,
        headers: setHeader(
          request.headers,
          'Authorization',
          basicAuthorization(credential.username, credential.password),
        ),
      };
    case 'bearertoken':
      return {
        ...request,
        headers: setHeader(request.headers, 'Authorization', `Bearer ${credential.token}`),
      };
    case 'header':
      return {
        ...request,
        headers: credential.headers.reduce(
          (headers, h) => setHeader(headers, h.name, h.value),
          request.headers,
        ),
      };
    case 'cookie': {
      const merged = mergeCookieHeader(headerValues(request.headers, 'Cookie'), credential.cookies);
      return { ...request, headers: setHeader(request.headers, 'Cookie', merged) };
    }
    case 'query':
      return { ...request, target: setQueryParams(request.target, credential.params) };
  }
}

/**
 * The same, on a raw request sent as written (`unsafe`): only the request line and the header
 * lines it concerns are rewritten, every other byte is kept. Undefined when the text does not start
 * with a request line.
 */
export function applyCredentialToRaw(raw: string, credential: Credential): string | undefined {
  const head = RawRequestHead.parse(raw);
  if (head === undefined) return undefined;
  switch (credential.type) {
    case 'basicauth':
      head.setHeader('Authorization', basicAuthorization(credential.username, credential.password));
      break;
    case 'bearertoken':
      head.setHeader('Authorization', `Bearer ${credential.token}`);
      break;
    case 'header':
      for (const h of credential.headers) head.setHeader(h.name, h.value);
      break;
    case 'cookie':
      head.setHeader('Cookie', mergeCookieHeader(head.headerValues('Cookie'), credential.cookies));
      break;
    case 'query':
      head.setRequestTarget(setQueryParams(head.requestTarget, credential.params));
      break;
  }
  return head.toString();
}
