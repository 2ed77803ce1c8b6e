// The browser tests' Chromium and screenshots (@gateway/testkit/browser), the screenshots kept in e2e/artifacts.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { screenshotBoth } from '@gateway/testkit/browser';

export { DESKTOP, launchChromium, PHONE } from '@gateway/testkit/browser';

const ARTIFACTS = join(__dirname, '..', '..', 'artifacts');

/** Both viewports of the page as it is now, as e2e/artifacts/<name>-desktop.png and -phone.png (git-ignored). */
export function screenshot(page: Page, name: string): Promise<void> {
  return screenshotBoth(page, ARTIFACTS, name);
}
