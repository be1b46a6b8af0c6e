/** Types of server.js, for TypeScript callers (keyhole's own tests). */

/** The five areas, named after the kind of secret that opens each. */
export type AreaKey = 'login' | 'bearer' | 'basic' | 'header' | 'query';

export interface Area {
  readonly key: AreaKey;
  readonly name: string;
  /** How a client authenticates. */
  readonly auth: string;
  /** The demo credential that opens the area. */
  readonly credential: string;
  /** The planted weakness and where it is. */
  readonly weakness: string;
}

export interface DemoApp {
  /** Base URL of each area, `http://127.0.0.1:<port>`. */
  readonly urls: Readonly<Record<AreaKey, string>>;
  /** Stops every area and drops open connections. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** The port of any area (0: any free port); the others keep their default. */
  readonly ports?: Partial<Record<AreaKey, number>>;
}

export const HOST: '127.0.0.1';
export const AREAS: readonly Area[];
export const DEFAULT_BASE_PORT: number;
export const DEFAULT_PORTS: Readonly<Record<AreaKey, number>>;
export function portsFrom(base: number): Record<AreaKey, number>;
export function start(options?: StartOptions): Promise<DemoApp>;
