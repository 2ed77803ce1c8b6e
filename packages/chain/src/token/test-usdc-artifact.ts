import { parseContractArtifact, type ContractArtifact } from './contract-artifact';
import artifactJson from './test-usdc.artifact.json';

/**
 * The committed build of contracts/TestUSDC.sol (regenerate with `pnpm --filter @gateway/chain
 * compile-token`). Loaded from JSON so deploying needs no compiler at run time.
 */
export const testUsdcArtifact: ContractArtifact = parseContractArtifact(artifactJson);
