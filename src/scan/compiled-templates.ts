/**
 * The compiled forms of a plan's deferred templates while their runs need them: a template is
 * compiled when a run of it starts, kept while runs of it are in flight, and then kept among the
 * most recently used few, so the templates every target runs stay compiled and the thousands of a
 * library run once each are let go.
 */
import type { RunnableTemplate } from '../engine/index.js';
import { DeferredTemplate } from '../template/index.js';

/** A template of a plan: compiled already, or put away and compiled when its runs start. */
export type PlanTemplate = RunnableTemplate | DeferredTemplate;

/** Compiled templates no run uses any more, kept in case the next target runs them too. */
export const KEPT_UNUSED = 128;

/**
 * How many unused compiled templates are worth keeping for a plan: {@link KEPT_UNUSED}, or none
 * when none would be found again. A target runs every template before the next target starts
 * them, so a template comes round again only after every other; with more templates than are
 * kept (a library) or a single target, each would be let go, or the scan end, before its next
 * run. Kept anyway, each lives long enough to be moved to V8's old space, which then grows with
 * garbage between full collections.
 */
export function keptUnusedFor(templatesPerTarget: number, targets: number): number {
  return targets > 1 && templatesPerTarget <= KEPT_UNUSED ? KEPT_UNUSED : 0;
}

export class CompiledTemplates {
  private readonly inUse = new Map<
    DeferredTemplate,
    { readonly template: RunnableTemplate; users: number }
  >();
  /** In the order they were last released: the first is the least recently used. */
  private readonly unused = new Map<DeferredTemplate, RunnableTemplate>();

  constructor(private readonly keptUnused = KEPT_UNUSED) {}

  /** The compiled template, for a run about to start; {@link release} when the run ends. */
  acquire(template: PlanTemplate): RunnableTemplate {
    if (!(template instanceof DeferredTemplate)) return template;
    const used = this.inUse.get(template);
    if (used !== undefined) {
      used.users++;
      return used.template;
    }
    const compiled = this.unused.get(template) ?? template.compile();
    this.unused.delete(template);
    this.inUse.set(template, { template: compiled, users: 1 });
    return compiled;
  }

  release(template: PlanTemplate): void {
    if (!(template instanceof DeferredTemplate)) return;
    const used = this.inUse.get(template);
    if (used === undefined) return;
    if (--used.users > 0) return;
    this.inUse.delete(template);
    this.unused.set(template, used.template);
    if (this.unused.size > this.keptUnused) {
      const oldest = this.unused.keys().next().value;
      if (oldest !== undefined) this.unused.delete(oldest);
    }
  }

  /** How many compiled forms are held (for tests and benchmarks). */
  get held(): number {
    return this.inUse.size + this.unused.size;
  }
}
