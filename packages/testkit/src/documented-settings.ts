import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const CONFIGURATION_PAGE = join(__dirname, '..', '..', '..', 'docs', 'configuration.md');

/** The settings an app's config schema reads that docs/configuration.md does not name (as `NAME`): empty when all are there. */
export function undocumentedSettings(schema: { properties: Record<string, unknown> }): string[] {
  const page = readFileSync(CONFIGURATION_PAGE, 'utf8');
  return Object.keys(schema.properties).filter((name) => !page.includes(`\`${name}\``));
}
