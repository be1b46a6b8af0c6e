import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium: the browser tests drive it, never a downloaded one. */
export const CHROMIUM = process.env.KEYHOLE_CHROMIUM ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Why the browser tests cannot run here, or undefined when they can. In CI (`CI=true`) a missing
 * browser is an error, not a reason to skip: `.ci/run` installs it.
 */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `${CHROMIUM} is absent: install Debian's chromium package (apt-get install chromium) to run the browser tests`;
  if (process.env.CI === 'true') throw new Error(reason);
  return reason;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}
