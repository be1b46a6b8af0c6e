import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Browser } from 'playwright-core';

/** Debian's Chromium, where the `chromium` package installs it. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** Why no browser can be started: said as it is to the user, with what to do. */
export class BrowserUnavailable extends Error {
  override readonly name = 'BrowserUnavailable';
}

/**
 * Flags for a headless Chromium that talks to nothing but the page it is given: no sandbox (keyhole
 * may run as root), no GPU, none of its own background traffic, and every connection through
 * `proxy` (loopback included, WebRTC too), so nothing leaves it that keyhole has not allowed.
 */
function flags(proxy: string): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
    '--no-first-run',
    '--dns-prefetch-disable',
    `--proxy-server=${proxy}`,
    '--proxy-bypass-list=<-loopback>',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  ];
}

/**
 * Starts Chromium at `executablePath` (never a downloaded browser), its traffic through `proxy`.
 * playwright-core is loaded here, on the first browser login, not when keyhole starts.
 */
export async function launchChromium(executablePath: string, proxy: string): Promise<Browser> {
  try {
    await access(executablePath, constants.X_OK);
  } catch {
    throw new BrowserUnavailable(
      `a browser login needs Chromium, and there is none at ${executablePath}: install Debian's chromium package (apt-get install chromium), or set KEYHOLE_CHROMIUM to the path of a Chromium`,
    );
  }
  let playwright: typeof import('playwright-core');
  try {
    playwright = await import('playwright-core');
  } catch (error) {
    throw new BrowserUnavailable(
      `a browser login needs the playwright-core package, which cannot be loaded (${firstLine(error)}); reinstall keyhole with its dependencies`,
    );
  }
  try {
    return await playwright.chromium.launch({ executablePath, args: flags(proxy), headless: true });
  } catch (error) {
    throw new BrowserUnavailable(`Chromium at ${executablePath} did not start: ${firstLine(error)}`);
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]?.trim() ?? message;
}
