/** commander argument collectors for repeatable flags. */

/** `-t a -t b` → `[a, b]`. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `-sf a.yaml,b.yaml -sf c.yaml` → `[a.yaml, b.yaml, c.yaml]`. */
export function collectList(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',').filter((f) => f !== '')];
}
