// `pnpm docs:errors`: writes docs/errors.md from the error guide in packages/domain
// (error-guide.ts); packages/domain/test/error-guide.test.ts fails while the two differ.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorGuideMarkdown } from '@gateway/domain';

writeFileSync(join(__dirname, '..', 'docs', 'errors.md'), errorGuideMarkdown());
console.log('docs/errors.md written');
