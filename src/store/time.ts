/** Milliseconds since the Unix epoch, UTC: how the store keeps every timestamp, on both engines. */
export type EpochMs = number;

/** RFC 3339 with milliseconds and `Z`, the API's timestamp format; "" for a timestamp not set yet. */
export function formatTimestamp(ms: EpochMs | null | undefined): string {
  return ms === null || ms === undefined ? '' : new Date(ms).toISOString();
}

/**
 * A Go `time.Duration.String()` rendering (`1h2m3s`, `45s`, `350ms`, `0s`), the format users of
 * ProjectDiscovery's tools know. Durations of a second or more are shown in whole seconds.
 */
export function formatGoDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms));
  if (total === 0) return '0s';
  if (total < 1000) return `${total}ms`;
  const seconds = Math.floor(total / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}
