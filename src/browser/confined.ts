import type { Duplex } from 'node:stream';
import type { Browser, BrowserContext, Page, Request, Route } from 'playwright-core';
import { launchChromium } from './chromium.js';
import { type BrowserDestination, ScopeProxy } from './scope-proxy.js';

/** A request of the page, as a `decorate` hook sees it and changes it. */
export interface PageRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface ConfinedBrowserOptions {
  readonly executablePath: string;
  /** Whether the page may send anything to a destination. */
  readonly allowed: (to: BrowserDestination) => boolean;
  /** Opens a connection for the browser (directly when unset). */
  readonly connect?: (hostname: string, port: number) => Duplex;
  /**
   * Resolves when the page may send its next request (`-rl`); each request it makes waits for it
   * before it goes. Redirect hops Chromium follows by itself are not seen, so not paced.
   */
  readonly pace?: () => Promise<void>;
  /**
   * What a request within the scope carries besides what the page gives it (a static secret);
   * asked first whether it adds anything to a URL, as reading a request's every header is slow.
   * `refused`: the request must not go at all (its secret failed its check).
   */
  readonly decorate?: {
    readonly wants: (url: string) => boolean;
    readonly apply: (request: PageRequest) => Promise<PageRequest | 'refused' | undefined>;
  };
}

/** A request the browser was kept from sending. */
export interface Refusal {
  readonly destination: BrowserDestination;
  /** The page itself (its main frame) was going there: the login cannot go on. */
  readonly navigation: boolean;
}

/**
 * One page in a fresh Chromium whose every request is decided by keyhole: requests outside the
 * scope are aborted as they are made (request interception), and whatever interception does not
 * see (the redirects Chromium follows, WebSockets) meets the scope proxy, Chromium's only way out.
 * Nothing is kept between two logins: each opens its own browser and closes it.
 */
export class ConfinedBrowser {
  private readonly inFlight = new Set<Request>();
  private lastActivity = Date.now();

  private constructor(
    private readonly refused: Refusal[],
    private readonly proxy: ScopeProxy,
    private readonly browser: Browser,
    readonly context: BrowserContext,
    readonly page: Page,
  ) {}

  static async open(options: ConfinedBrowserOptions): Promise<ConfinedBrowser> {
    const refused: Refusal[] = [];
    const proxy = await ScopeProxy.start({
      allowed: options.allowed,
      onRefused: (destination) => refused.push({ destination, navigation: false }),
      ...(options.connect === undefined ? {} : { connect: options.connect }),
    });
    let browser: Browser;
    try {
      browser = await launchChromium(options.executablePath, proxy.url);
    } catch (error) {
      await proxy.close();
      throw error;
    }
    try {
      const context = await browser.newContext({ serviceWorkers: 'block', ignoreHTTPSErrors: true });
      const page = await context.newPage();
      const confined = new ConfinedBrowser(refused, proxy, browser, context, page);
      await confined.watch(options);
      return confined;
    } catch (error) {
      await browser.close().catch(() => undefined);
      await proxy.close();
      throw error;
    }
  }

  /** What was kept from going out, in order. */
  refusals(): readonly Refusal[] {
    return this.refused;
  }

  /**
   * Waits until the page has had no request in flight for `quietMs` since it was called (its
   * scripts have done what the last action started), or `timeoutMs` passed (a page that polls
   * forever).
   */
  async settled(quietMs: number, timeoutMs: number): Promise<void> {
    const start = Date.now();
    const deadline = start + timeoutMs;
    while (Date.now() < deadline) {
      const quiet = Date.now() - Math.max(this.lastActivity, start);
      if (this.inFlight.size === 0 && quiet >= quietMs) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async close(): Promise<void> {
    await this.browser.close().catch(() => undefined);
    await this.proxy.close();
  }

  private async watch(options: ConfinedBrowserOptions): Promise<void> {
    const destination = (url: string): BrowserDestination | undefined => {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return undefined;
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
      const scheme = parsed.protocol === 'https:' ? 'https' : 'http';
      const port = parsed.port === '' ? (scheme === 'https' ? 443 : 80) : Number(parsed.port);
      return { scheme, hostname: parsed.hostname.replace(/^\[|\]$/g, ''), port };
    };
    this.context.on('request', (request) => {
      this.lastActivity = Date.now();
      const from = request.redirectedFrom();
      if (from !== null) this.inFlight.delete(from);
      this.inFlight.add(request);
      const to = destination(request.url());
      // Redirect hops are seen here, not by interception: the scope proxy refuses their connection.
      if (to !== undefined && !options.allowed(to))
        this.refused.push({ destination: to, navigation: this.isNavigation(request) });
    });
    const done = (request: Request) => {
      this.lastActivity = Date.now();
      this.inFlight.delete(request);
    };
    this.context.on('requestfinished', done);
    this.context.on('requestfailed', done);
    await this.context.route('**/*', async (route: Route) => {
      const request = route.request();
      const to = destination(request.url());
      if (to !== undefined && !options.allowed(to)) {
        await route.abort('blockedbyclient').catch(() => undefined);
        return;
      }
      const decorate = options.decorate;
      const extra =
        decorate === undefined || to === undefined || !decorate.wants(request.url())
          ? undefined
          : await decorate.apply({
              method: request.method(),
              url: request.url(),
              headers: await request.allHeaders(),
            });
      if (extra === 'refused') {
        await route.abort('blockedbyclient').catch(() => undefined);
        return;
      }
      await options.pace?.();
      await route
        .continue(extra === undefined ? {} : { url: extra.url, headers: { ...extra.headers } })
        .catch(() => undefined);
    });
  }

  private isNavigation(request: Request): boolean {
    try {
      return request.isNavigationRequest() && request.frame() === this.page.mainFrame();
    } catch {
      return false;
    }
  }
}
