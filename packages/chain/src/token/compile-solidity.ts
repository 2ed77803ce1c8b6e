import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Abi, Hex } from 'viem';
import type { ContractArtifact } from './contract-artifact';

/** Where the test token's source lives (the package's contracts/ folder). */
export const testUsdcSourcePath = path.resolve(__dirname, '../../contracts/TestUSDC.sol');

// Fixed so the committed artifact can be reproduced byte for byte. Cancun runs on anvil and on
// every chain we target; bytecodeHash 'none' keeps a metadata IPFS hash out of the bytecode.
const compilerSettings = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none' },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
} as const;

interface SolcMessage {
  severity: 'error' | 'warning' | 'info';
  formattedMessage: string;
}

interface SolcOutput {
  errors?: SolcMessage[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

interface Solc {
  version(): string;
  compile(input: string): string;
}

// solc is a devDependency and takes about a second to load its WebAssembly, so it is required
// only when something actually compiles, never by importing @gateway/chain.
function loadSolc(): Solc {
  return require('solc') as Solc;
}

export function sha256Hex(bytes: string | Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Compiles one self-contained Solidity source (no imports) with the pinned settings and returns
 * the named contract. Throws with solc's own messages if compilation fails.
 */
export function compileSolidity(fileName: string, source: string, contractName: string): ContractArtifact {
  const solc = loadSolc();
  const input = {
    language: 'Solidity',
    sources: { [fileName]: { content: source } },
    settings: compilerSettings,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((message) => message.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed on ${fileName}:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const contract = output.contracts?.[fileName]?.[contractName];
  if (!contract) {
    throw new Error(`solc output has no contract ${contractName} in ${fileName}`);
  }
  return {
    contractName,
    solcVersion: solc.version(),
    sourceSha256: sha256Hex(source),
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}` as Hex,
  };
}

/** Compiles contracts/TestUSDC.sol exactly as the committed artifact was compiled. */
export function compileTestUsdc(): ContractArtifact {
  const source = readFileSync(testUsdcSourcePath, 'utf8');
  return compileSolidity('TestUSDC.sol', source, 'TestUSDC');
}
