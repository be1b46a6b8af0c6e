/**
 * Debian's Chromium for the logins that need a real browser: started on demand (playwright-core is
 * loaded then, not before), one fresh page per login, its network confined to the login's scope.
 */
export { BrowserUnavailable, DEFAULT_CHROMIUM } from './chromium.js';
export { ConfinedBrowser, type ConfinedBrowserOptions, type PageRequest, type Refusal } from './confined.js';
export type { BrowserDestination } from './scope-proxy.js';
