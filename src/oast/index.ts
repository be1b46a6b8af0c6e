/**
 * Out-of-band testing over the interactsh protocol: the client that registers with a server (public,
 * self-hosted or keyhole's own) and watches a scan's callbacks, and keyhole's own server (HTTP, HTTPS
 * and DNS callbacks, the register/poll/deregister API).
 */
export { certificateProblem, selfSignedCertificate, type TlsCertificate } from './certificate.js';
export { OastClient, OastClientError, type OastClientOptions, serverUrl } from './client.js';
export type { Interaction } from './protocol.js';
export {
  type ListenAddress,
  type OastServer,
  OastServerError,
  type OastServerOptions,
  startOastServer,
} from './server.js';
export { InteractionWatcher, OAST_DEFAULTS, type WatcherOptions } from './watcher.js';
