import type { Abi, Hex } from 'viem';

/** What a compiled contract leaves behind for deployment, and how to prove it is current. */
export interface ContractArtifact {
  contractName: string;
  /** Full solc version string, e.g. `0.8.37+commit.f401782d.Emscripten.clang`. */
  solcVersion: string;
  /** SHA-256 (hex, no 0x) of the exact source bytes that were compiled. */
  sourceSha256: string;
  abi: Abi;
  /** Creation bytecode, 0x-prefixed. */
  bytecode: Hex;
}

/** Checks the shape of an artifact read from JSON, so a damaged file fails loudly at load time. */
export function parseContractArtifact(value: unknown): ContractArtifact {
  if (typeof value !== 'object' || value === null) {
    throw new Error('contract artifact: expected a JSON object');
  }
  const record = value as Record<string, unknown>;
  for (const key of ['contractName', 'solcVersion', 'sourceSha256', 'bytecode'] as const) {
    if (typeof record[key] !== 'string' || record[key] === '') {
      throw new Error(`contract artifact: "${key}" must be a non-empty string`);
    }
  }
  if (!Array.isArray(record.abi)) {
    throw new Error('contract artifact: "abi" must be an array');
  }
  if (!/^0x(?:[0-9a-f]{2})+$/i.test(record.bytecode as string)) {
    throw new Error('contract artifact: "bytecode" must be 0x-prefixed hex');
  }
  return {
    contractName: record.contractName as string,
    solcVersion: record.solcVersion as string,
    sourceSha256: record.sourceSha256 as string,
    abi: record.abi as Abi,
    bytecode: record.bytecode as Hex,
  };
}
