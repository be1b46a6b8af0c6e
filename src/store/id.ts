import { Xid } from 'xid-ts';

/**
 * A new 20-character lowercase `[0-9a-v]` id that sorts by creation second: the xid format
 * (github.com/rs/xid) that ProjectDiscovery's services use and its clients validate
 * (`^[a-z0-9]{20}$`). xid-ts is a faithful port; it seeds the machine part per process at random,
 * so ids made by several workers at once do not collide.
 */
export function newId(): string {
  return new Xid().toString();
}

const ID_SHAPE = /^[0-9a-v]{20}$/;

/** True for a string in the shape of an id (it may still name nothing). */
export function isId(text: string): boolean {
  return ID_SHAPE.test(text);
}

/**
 * The least id made in the second of `at` or later: ids sort by the second they were made, so a
 * row made at `at` or later has an id at least this one.
 */
export function leastIdAt(at: number): string {
  const bytes = new Uint8Array(12);
  new DataView(bytes.buffer).setUint32(0, Math.max(0, Math.floor(at / 1000)));
  return new Xid(bytes).toString();
}
