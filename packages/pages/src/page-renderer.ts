import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Eta } from 'eta';

export const PAGES_VIEWS_DIR = join(__dirname, '..', 'views');
export const PAGES_ASSETS_DIR = join(__dirname, '..', 'assets');

export interface PageRenderer {
  render(template: string, data: object): string;
}

/**
 * Server-rendered pages with Eta: every `<%= %>` is HTML-escaped (autoEscape), so data from a
 * URL or a database can never become markup. Templates live in the app's views folder; the
 * layout is shared and registered as `@layout` (views/layout.eta: what a page hands it). Its `style`
 * goes into a `style` attribute, escaped like all data: build it from validated values only (hex
 * colours), never from raw input; a `brandLogo` origin must be one the page's CSP allows.
 */
export function createPageRenderer(viewsDir: string): PageRenderer {
  const eta = new Eta({ views: viewsDir, autoEscape: true, cache: true });
  eta.loadTemplate('@layout', readFileSync(join(PAGES_VIEWS_DIR, 'layout.eta'), 'utf8'));
  return { render: (template, data) => eta.render(template, data) };
}
