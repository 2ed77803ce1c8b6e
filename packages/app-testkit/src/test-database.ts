import { createPool, type DatabaseApp, migrate } from '@gateway/db';
import { createTestSchema, type TestSchema } from '@gateway/testkit';

/** A schema of the gateway's tables, with a pool per app taking its role (migration 014). */
export type TestDatabase = TestSchema<DatabaseApp>;

/** A freshly migrated schema of this test file's own (see createTestSchema). */
export function createTestDatabase(label = 't'): Promise<TestDatabase> {
  return createTestSchema(label, { createPool, migrate });
}
