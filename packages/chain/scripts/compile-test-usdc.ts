// Regenerates src/token/test-usdc.artifact.json from contracts/TestUSDC.sol.
// Run after editing the contract (`pnpm --filter @gateway/chain compile-token`) and commit both;
// test/token-artifact.test.ts fails while they disagree.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { compileTestUsdc } from '../src/token/compile-solidity';

const artifactPath = path.resolve(__dirname, '../src/token/test-usdc.artifact.json');
const artifact = compileTestUsdc();
writeFileSync(artifactPath, `${JSON.stringify(artifact, null, 2)}\n`);
const bytecodeBytes = (artifact.bytecode.length - 2) / 2;
console.log(`wrote ${path.relative(process.cwd(), artifactPath)} (solc ${artifact.solcVersion}, ${bytecodeBytes} bytes)`);
