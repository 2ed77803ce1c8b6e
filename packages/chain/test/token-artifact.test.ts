import { readFileSync } from 'node:fs';
import type { AbiParameter } from 'viem';
import { compileTestUsdc, sha256Hex, testUsdcArtifact, testUsdcSourcePath, usdcAbi } from '../src/token';

// Indexed-ness matters too: it decides how a log is decoded.
function parameterTypes(parameters: readonly (AbiParameter & { indexed?: boolean })[] | undefined): string {
  return (parameters ?? []).map((parameter) => `${parameter.type}${parameter.indexed ? ' indexed' : ''}`).join(',');
}

describe('committed TestUSDC artifact', () => {
  // Compiling once keeps the suite near one second; solc is deterministic for fixed settings.
  const compiled = compileTestUsdc();

  // On failure: run `pnpm --filter @gateway/chain compile-token` and commit the artifact.
  it('was built from the current contracts/TestUSDC.sol', () => {
    expect(testUsdcArtifact.sourceSha256).toBe(sha256Hex(readFileSync(testUsdcSourcePath)));
  });

  it('was built by the installed solc', () => {
    expect(testUsdcArtifact.solcVersion).toBe(compiled.solcVersion);
  });

  it('matches a fresh compilation (abi and bytecode)', () => {
    expect(testUsdcArtifact.contractName).toBe('TestUSDC');
    expect(testUsdcArtifact.abi).toEqual(compiled.abi);
    expect(testUsdcArtifact.bytecode).toBe(compiled.bytecode);
  });

  it('implements every function and event of the USDC ABI the gateway uses', () => {
    const missing = usdcAbi.filter(
      (wanted) =>
        !testUsdcArtifact.abi.some(
          (entry) =>
            entry.type === wanted.type &&
            'name' in entry &&
            entry.name === wanted.name &&
            parameterTypes(entry.inputs) === parameterTypes(wanted.inputs) &&
            (wanted.type !== 'function' || (entry.type === 'function' && parameterTypes(entry.outputs) === parameterTypes(wanted.outputs))),
        ),
    );
    expect(missing.map((entry) => entry.name)).toEqual([]);
  });
});
