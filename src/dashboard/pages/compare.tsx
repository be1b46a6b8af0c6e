import { COMPARISONS, type Comparison, type FindingSummary, type Scan } from '../../store/index.js';
import { formatTime, Layout, link, type Viewer } from '../layout.js';
import { FindingTable } from './scan.js';

export const COMPARED_PER_PAGE = 50;

export interface CompareView {
  /** The team's recent scans, to choose from. */
  readonly choices: readonly Scan[];
  readonly base: Scan | undefined;
  readonly head: Scan | undefined;
  readonly kind: Comparison;
  readonly counts: Record<Comparison, number> | undefined;
  readonly findings: readonly FindingSummary[];
  readonly next: string | undefined;
  readonly paged: boolean;
}

const KIND_LABELS: Record<Comparison, string> = { new: 'New', fixed: 'Fixed', unchanged: 'Unchanged' };
const KIND_HELP: Record<Comparison, string> = {
  new: 'found by the later scan and not by the earlier one',
  fixed: 'found by the earlier scan and no longer by the later one',
  unchanged: 'found by both scans',
};

/** Two scans side by side, by vuln hash: what the later one found new, no longer found, found again. */
export function ComparePage(props: { viewer: Viewer; view: CompareView }) {
  const { base, head, kind, counts, findings, next } = props.view;
  const here = { base: base?.id, head: head?.id };
  return (
    <Layout title="Compare scans" viewer={props.viewer} section="compare">
      <h1>Compare two scans</h1>
      <form class="filters" method="get" action="/compare">
        <ScanChoice name="base" label="Earlier scan" choices={props.view.choices} chosen={base} />
        <ScanChoice name="head" label="Later scan" choices={props.view.choices} chosen={head} />
        <button type="submit">Compare</button>
      </form>
      {base === undefined || head === undefined || counts === undefined ? (
        <p class="notice">Choose two scans of your team.</p>
      ) : (
        <>
          <nav class="tabs" aria-label="comparison">
            {COMPARISONS.map((k) => (
              <a href={link('/compare', { ...here, kind: k })} aria-current={k === kind ? 'page' : undefined}>
                {`${KIND_LABELS[k]} (${counts[k]})`}
              </a>
            ))}
          </nav>
          <p class="muted">{`${KIND_LABELS[kind]}: ${KIND_HELP[kind]}.`}</p>
          <FindingTable findings={findings} />
          <nav class="pager" aria-label="pages">
            {props.view.paged ? <a href={link('/compare', { ...here, kind })}>⇤ First page</a> : null}
            {next === undefined ? null : (
              <a href={link('/compare', { ...here, kind, after: next })}>Next →</a>
            )}
          </nav>
        </>
      )}
    </Layout>
  );
}

function ScanChoice(props: {
  name: string;
  label: string;
  choices: readonly Scan[];
  chosen: Scan | undefined;
}) {
  const choices =
    props.chosen === undefined || props.choices.some((s) => s.id === props.chosen?.id)
      ? props.choices
      : [props.chosen, ...props.choices];
  return (
    <label>
      {props.label}
      <select name={props.name} required>
        <option value="">choose a scan</option>
        {choices.map((scan) => (
          <option value={scan.id} selected={scan.id === props.chosen?.id}>
            {`${scan.name === '' ? scan.id : scan.name} — ${formatTime(scan.createdAt)}`}
          </option>
        ))}
      </select>
    </label>
  );
}
