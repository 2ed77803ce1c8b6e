import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Eta } from 'eta';

export const PAGES_VIEWS_DIR = join(__dirname, '..', 'views');
export const PAGES_ASSETS_DIR = join(__dirname, '..', 'assets');

/** What every page hands to the shared layout (`<% layout('@layout', …) %>`). */
export interface LayoutData {
  title: string;
  brand: string;
  /** `gateway` (the payment host) or `sandbox` (the simulated provider). */
  theme?: 'gateway' | 'sandbox';
  /** A strip above the page, e.g. "Test mode". */
  banner?: string;
  /** Reload the page every N seconds when JavaScript is off (a page that follows live state). */
  refreshSeconds?: number;
  /**
   * Send the browser on to this URL after a moment. A new navigation, unlike a redirect of a
   * form post, which CSP `form-action 'self'` stops at another origin.
   */
  redirectTo?: string;
  /** File names under /assets/, loaded deferred; frame-guard.js is always there. */
  scripts?: string[];
  footer?: string;
  /** More classes on `<body>`, e.g. `checkout theme-dark`. */
  bodyClass?: string;
  /**
   * Inline CSS on `<body>` (custom properties such as `--accent:#0a7`). Escaped like all data,
   * but build it from validated values only (hex colours), never from raw input.
   */
  style?: string;
  /** An image URL shown in place of the brand mark (the page's CSP must allow its origin). */
  brandLogo?: string;
}

export interface PageRenderer {
  render(template: string, data: object): string;
}

/**
 * Server-rendered pages with Eta: every `<%= %>` is HTML-escaped (autoEscape), so data from a
 * URL or a database can never become markup. Templates live in the app's views folder; the
 * layout is shared and registered as `@layout`.
 */
export function createPageRenderer(viewsDir: string): PageRenderer {
  const eta = new Eta({ views: viewsDir, autoEscape: true, cache: true });
  eta.loadTemplate('@layout', readFileSync(join(PAGES_VIEWS_DIR, 'layout.eta'), 'utf8'));
  return { render: (template, data) => eta.render(template, data) };
}
