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
  /** Per key: its generation, and its load (none yet for a key asked once, see {@link readWhenAskedAgain}). */
  private readonly kept = new Map<
    string,
    { readonly generation: number; readonly value: Promise<unknown> | undefined }
  >();

  constructor(
    /** The generation of the tables named, undefined while changes are not heard. */
    private readonly generation: (tables: readonly string[]) => number | undefined,
    private readonly most = MOST_KEPT,
  ) {}

  /**
   * The counts of `key` (which must name everything `load` reads by: team, table, filter) as kept
   * while no change to `tables` (every table `load` reads) is heard, or loaded by `load` and kept;
   * undefined while changes are not heard. A load that fails is not kept. Calls of one key and
   * generation share one load.
   */
  read<T>(key: string, tables: readonly string[], load: () => Promise<T>): Promise<T> | undefined {
    const generation = this.generation(tables);
    if (generation === undefined) return undefined;
    const found = this.kept.get(key);
    if (found?.value !== undefined && found.generation === generation) {
      this.keep(key, found);
      return found.value as Promise<T>;
    }
    return this.load(key, generation, load);
  }

  /**
   * {@link read} for what costs more to load than one use of it saves: the first ask of `key` in
   * a generation answers undefined (the caller goes without) and only a second ask loads it. A
   * store whose every change is followed by one read then never pays for a load it does not use.
   */
  readWhenAskedAgain<T>(
    key: string,
    tables: readonly string[],
    load: () => Promise<T>,
  ): Promise<T> | undefined {
    const generation = this.generation(tables);
    if (generation === undefined) return undefined;
    const found = this.kept.get(key);
    if (found === undefined || found.generation !== generation) {
      this.keep(key, { generation, value: undefined });
      return undefined;
    }
    if (found.value !== undefined) {
      this.keep(key, found);
      return found.value as Promise<T>;
    }
    return this.load(key, generation, load);
  }

  private load<T>(key: string, generation: number, load: () => Promise<T>): Promise<T> {
    const value = load();
    this.keep(key, { generation, value });
    value.catch(() => {
      if (this.kept.get(key)?.value === value) this.kept.delete(key);
    });
    return value;
  }

  private keep(key: string, entry: { generation: number; value: Promise<unknown> | undefined }): void {
    // Kept again at the end, so the key read longest ago is the first to go.
    this.kept.delete(key);
    this.kept.set(key, entry);
    if (this.kept.size > this.most) {
      const oldest = this.kept.keys().next().value;
      if (oldest !== undefined) this.kept.delete(oldest);
    }
  }
}
