/**
 * Matchers and extractors as a template declares them (nuclei's `matchers`, `extractors` and
 * `matchers-condition`). The template parser builds these from YAML; this folder compiles and
 * evaluates them against responses.
 */

export type Condition = 'and' | 'or';

interface MatcherBase {
  readonly name?: string;
  /** Which part of the response to look at: `body` (default), `header`, `all`, `raw`, a header name, `body_2`, … */
  readonly part: string;
  /** How several values of one matcher combine. */
  readonly condition: Condition;
  readonly negative: boolean;
  /** Internal matchers gate a flow or a request but produce no finding of their own. */
  readonly internal: boolean;
  readonly caseInsensitive: boolean;
  /** Report every value that matched, not only the first. */
  readonly matchAll: boolean;
}

export type Matcher =
  | (MatcherBase & { readonly type: 'word'; readonly words: readonly string[]; readonly encoding?: 'hex' })
  | (MatcherBase & { readonly type: 'regex'; readonly regex: readonly string[] })
  | (MatcherBase & { readonly type: 'status'; readonly status: readonly number[] })
  | (MatcherBase & { readonly type: 'size'; readonly size: readonly number[] })
  | (MatcherBase & { readonly type: 'binary'; readonly binary: readonly string[] })
  | (MatcherBase & { readonly type: 'dsl'; readonly dsl: readonly string[] })
  | (MatcherBase & { readonly type: 'xpath'; readonly xpath: readonly string[] });

export type MatcherType = Matcher['type'];

interface ExtractorBase {
  readonly name?: string;
  readonly part: string;
  /** Internal values feed later requests and logins but are not reported as results. */
  readonly internal: boolean;
  readonly caseInsensitive: boolean;
}

export type Extractor =
  | (ExtractorBase & { readonly type: 'regex'; readonly regex: readonly string[]; readonly group: number })
  | (ExtractorBase & { readonly type: 'kval'; readonly kval: readonly string[] })
  | (ExtractorBase & { readonly type: 'json'; readonly json: readonly string[] })
  | (ExtractorBase & {
      readonly type: 'xpath';
      readonly xpath: readonly string[];
      readonly attribute?: string;
    })
  | (ExtractorBase & { readonly type: 'dsl'; readonly dsl: readonly string[] });

export type ExtractorType = Extractor['type'];

export interface Operators {
  readonly matchers: readonly Matcher[];
  /** How the matchers combine; nuclei's default is `or`. */
  readonly matchersCondition: Condition;
  readonly extractors: readonly Extractor[];
}
