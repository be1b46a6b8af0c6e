/** How many sets of counts are kept at most, unless told: a few per team (a bucket table, a filter). */
const MOST_KEPT = 1_024;

/**
 * Counts read from the store, kept in this process while the store is unchanged, so listings
 * read a team's counts once per change rather than once per page (PostgreSQL). `generation`
 * gives a number that grows whenever the data may have changed (see `ChangeWatch`), or undefined
 * while no change would be heard: then nothing is kept and {@link read} answers undefined, and
 * the caller reads the counts as part of its own query.
 *
 * What is kept was read after the generation it is kept under was taken, so it is never older
 * than that generation; a change announced meanwhile moves the generation, and the next read
 * loads the counts again.
 */
export class KeptCounts {
  private readonly kept = new Map<
    string,
    { readonly generation: number; readonly value: Promise<unknown> }
  >();

  constructor(
    private readonly generation: () => number | undefined,
    private readonly most = MOST_KEPT,
  ) {}

  /**
   * The counts of `key` (which must name everything `load` reads by: team, table, filter) as kept
   * for the current generation, or loaded by `load` and kept; undefined while changes are not
   * heard. A load that fails is not kept. Calls of one key and generation share one load.
   */
  read<T>(key: string, load: () => Promise<T>): Promise<T> | undefined {
    const generation = this.generation();
    if (generation === undefined) return undefined;
    const found = this.kept.get(key);
    if (found !== undefined && found.generation === generation) {
      this.keep(key, found);
      return found.value as Promise<T>;
    }
    const value = load();
    this.keep(key, { generation, value });
    value.catch(() => {
      if (this.kept.get(key)?.value === value) this.kept.delete(key);
    });
    return value;
  }

  private keep(key: string, entry: { generation: number; value: Promise<unknown> }): void {
    // Kept again at the end, so the key read longest ago is the first to go.
    this.kept.delete(key);
    this.kept.set(key, entry);
    if (this.kept.size > this.most) {
      const oldest = this.kept.keys().next().value;
      if (oldest !== undefined) this.kept.delete(oldest);
    }
  }
}
