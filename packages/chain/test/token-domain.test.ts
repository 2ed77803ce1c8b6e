import { createPublicClient, createWalletClient, getAddress, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvilAccounts, startAnvil, type RunningAnvil } from '@gateway/testkit';
import { compileSolidity, defineLocalChain, deployTestUsdc, readTokenDomain } from '../src/token';

// Tokens that are not FiatTokenV2-shaped, to exercise readTokenDomain's other paths.
const fixtureSource = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

abstract contract Eip712Fixture {
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    function separatorFor(string memory name, string memory version) internal view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256(bytes(version)), block.chainid, address(this)));
    }
}

// Publishes its domain only through EIP-5267 (no version()), as OpenZeppelin's ERC20Permit does.
contract Eip5267OnlyToken is Eip712Fixture {
    function name() external pure returns (string memory) { return "Fixture Dollar"; }
    function eip712Domain() external view returns (bytes1, string memory, string memory, uint256, address, bytes32, uint256[] memory) {
        return (hex"0f", "Fixture Dollar", "7", block.chainid, address(this), bytes32(0), new uint256[](0));
    }
    function DOMAIN_SEPARATOR() external view returns (bytes32) { return separatorFor("Fixture Dollar", "7"); }
}

// Says version "2" but signs with a separator built for version "1".
contract WrongSeparatorToken is Eip712Fixture {
    function name() external pure returns (string memory) { return "USD Coin"; }
    function version() external pure returns (string memory) { return "2"; }
    function DOMAIN_SEPARATOR() external view returns (bytes32) { return separatorFor("USD Coin", "1"); }
}

// A salted domain (like Polygon PoS bridged tokens), which TokenDomain cannot express.
contract SaltedDomainToken {
    function name() external pure returns (string memory) { return "Salted"; }
    function eip712Domain() external view returns (bytes1, string memory, string memory, uint256, address, bytes32, uint256[] memory) {
        return (hex"17", "Salted", "1", 0, address(this), bytes32(block.chainid), new uint256[](0));
    }
    function DOMAIN_SEPARATOR() external pure returns (bytes32) { return bytes32(0); }
}
`;

describe('readTokenDomain', () => {
  let anvil: RunningAnvil;
  let client: ReturnType<typeof createPublicClient>;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31337 });
    client = createPublicClient({ transport: http(anvil.rpcUrl, { retryCount: 0 }) });
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  async function deployFixture(contractName: string): Promise<Address> {
    const { abi, bytecode } = compileSolidity('Fixtures.sol', fixtureSource, contractName);
    const wallet = createWalletClient({
      account: privateKeyToAccount(anvilAccounts[0].privateKey),
      chain: defineLocalChain(anvil),
      transport: http(anvil.rpcUrl, { retryCount: 0 }),
    });
    const hash = await wallet.deployContract({ abi, bytecode });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    if (!receipt.contractAddress) throw new Error(`${contractName} was not deployed`);
    return getAddress(receipt.contractAddress);
  }

  it('takes the chain id from the node, not from a constant', async () => {
    const token = await deployTestUsdc({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, deployerKey: anvilAccounts[0].privateKey });
    const domain = await readTokenDomain(client, token.toLowerCase() as Hex);
    expect(domain).toEqual({ name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: token });
  });

  it('falls back to eip712Domain() when the token has no version()', async () => {
    const token = await deployFixture('Eip5267OnlyToken');
    await expect(readTokenDomain(client, token)).resolves.toEqual({
      name: 'Fixture Dollar',
      version: '7',
      chainId: 31337,
      verifyingContract: token,
    });
  });

  it('refuses a domain that does not hash to the token DOMAIN_SEPARATOR()', async () => {
    const token = await deployFixture('WrongSeparatorToken');
    await expect(readTokenDomain(client, token)).rejects.toThrow(
      /DOMAIN_SEPARATOR\(\) is 0x[0-9a-f]{64}, but the domain read from it .* hashes to 0x/,
    );
  });

  it('refuses a salted domain it cannot represent', async () => {
    const token = await deployFixture('SaltedDomainToken');
    await expect(readTokenDomain(client, token)).rejects.toThrow(/fields 0x17 .* not supported/);
  });

  it('says so when the address has no token at all', async () => {
    await expect(readTokenDomain(client, anvilAccounts[4].address)).rejects.toThrow(/has neither version\(\) nor eip712Domain\(\)/);
  });
});
