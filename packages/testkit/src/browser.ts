// Debian's Chromium driven by playwright-core (never a browser download), and the screenshots every
// browser test keeps of the pages a customer sees, on a desktop and a 390-px phone. A subpath of its
// own (@gateway/testkit/browser): only the browser tests load playwright-core.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

// Without the networking flags Chromium floods a closed network with refused connections.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** Both viewports of the page as it is now, as <folder>/<name>-desktop.png and -phone.png; the page is left at the desktop size. */
export async function screenshotBoth(page: Page, folder: string, name: string): Promise<void> {
  mkdirSync(folder, { recursive: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(folder, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(folder, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}
