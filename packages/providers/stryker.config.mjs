// StrykerJS for this package: `pnpm mutate` at the repository root (see stryker.shared.mjs).
import { mutationConfig } from '../../stryker.shared.mjs';

export default mutationConfig('providers');
