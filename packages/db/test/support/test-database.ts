import { createTestSchema, type TestSchema } from '@gateway/testkit';
import type { DatabaseApp } from '../../src/app-roles';
import { migrate } from '../../src/migrate';
import { createPool } from '../../src/pool';

// @gateway/app-testkit's createTestDatabase depends on this package, so this package's own tests bind the
// same schema to its sources here.
export type TestDatabase = TestSchema<DatabaseApp>;

export function createTestDatabase(label = 't'): Promise<TestDatabase> {
  return createTestSchema(label, { createPool, migrate });
}
