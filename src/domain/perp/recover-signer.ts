/**
 * Signer recovery of a venue L1 action (spec rules 13 and 14). The connection id is the SDK's
 * `createL1ActionHash` of the action exactly as the client sent it: the hash depends on key order,
 * so the action is hashed as parsed, never rebuilt or re-ordered, and no vault address or
 * expiry is passed (rule 3; the strict checks refuse a request that carries them).
 */
import { createL1ActionHash } from '@nktkas/hyperliquid/signing';
import { getAddress, recoverTypedDataAddress, type Address, type Hex } from 'viem';
import type { SignedVenueAction, VenueNetwork } from './types.ts';
import { canonicalSignature } from './signed-action.ts';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as const;

/** The venue's L1 signing domain: name `Exchange`, version `1`, chain id 1337, zero contract. */
export const L1_DOMAIN = { name: 'Exchange', version: '1', chainId: 1337, verifyingContract: ZERO_ADDRESS } as const;
export const L1_TYPES = {
  Agent: [
    { name: 'source', type: 'string' },
    { name: 'connectionId', type: 'bytes32' },
  ],
} as const;

/** `source` of the Agent struct: `a` on mainnet, `b` on testnet (rule 14). */
export function l1Source(network: VenueNetwork): 'a' | 'b' {
  return network === 'mainnet' ? 'a' : 'b';
}

/** The connection id the signature commits to (rule 13). */
export function l1ConnectionId(signed: Pick<SignedVenueAction, 'action' | 'nonce'>): Hex {
  return createL1ActionHash({ action: signed.action as Record<string, unknown>, nonce: signed.nonce });
}

/**
 * The address that signed `signed` as an L1 action on `network`, as EIP-55 checksummed text
 * (compare addresses lower-cased). A signature that recovers at all recovers some address: a
 * tampered action, nonce or network yields a different one, which the caller then refuses.
 * @throws when the signature is not a valid secp256k1 signature (the strict checks run first).
 */
export async function recoverL1Signer(signed: SignedVenueAction, network: VenueNetwork): Promise<Address> {
  const { r, s, v } = canonicalSignature(signed.signature);
  const signature = `${r}${s.slice(2)}${v.toString(16)}` as Hex;
  const address = await recoverTypedDataAddress({
    domain: L1_DOMAIN,
    types: L1_TYPES,
    primaryType: 'Agent',
    message: { source: l1Source(network), connectionId: l1ConnectionId(signed) },
    signature,
  });
  return getAddress(address);
}
