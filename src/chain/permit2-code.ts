/**
 * Uniswap's Permit2 runtime code as its constructor leaves it on a given chain. Its EIP712.sol
 * caches the chain id and the domain separator (of the contract's own address) in two immutables,
 * which the compiler leaves zeroed in the deployed code. anvil_setCode runs no constructor, so the
 * devnet writes them here, for the canonical address, exactly as the CREATE2 deployment would.
 */
import { concat, domainSeparator, numberToHex, slice, type Address, type Hex } from 'viem';
import { permit2DeployedBytecode, permit2Immutables } from './artifacts/index.ts';
import { permit2Domain } from './permit.ts';

export function permit2RuntimeCode(chainId: number, permit2Address: Address): Hex {
  const values: Record<keyof typeof permit2Immutables, Hex> = {
    _CACHED_CHAIN_ID: numberToHex(chainId, { size: 32 }),
    _CACHED_DOMAIN_SEPARATOR: domainSeparator({ domain: permit2Domain(chainId, permit2Address) }),
  };
  const writes = Object.entries(permit2Immutables)
    .flatMap(([name, refs]) => refs.map((r) => ({ ...r, value: values[name as keyof typeof values] })))
    .sort((a, b) => a.start - b.start);
  const parts: Hex[] = [];
  let at = 0;
  for (const w of writes) {
    parts.push(slice(permit2DeployedBytecode, at, w.start), w.value);
    at = w.start + w.length;
  }
  parts.push(slice(permit2DeployedBytecode, at));
  return concat(parts);
}
