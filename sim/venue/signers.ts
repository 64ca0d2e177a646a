// Who signed an action, recovered the way the venue does: L1 actions through the SDK's
// canonical msgpack hash (`createL1ActionHash`) inside the `Agent` EIP-712 message, user-signed
// actions as their own EIP-712 messages. A wrong key order, network, vault or expiry yields a
// different (unknown) signer, never an error of its own.
import { createL1ActionHash } from '@nktkas/hyperliquid/signing';
import { hashTypedData, recoverTypedDataAddress, zeroAddress, type Hex } from 'viem';
import { lower } from './engine.ts';
import type { Address } from './state.ts';

export type WireSignature = { r: `0x${string}`; s: `0x${string}`; v: number };

type Types = Record<string, readonly { name: string; type: string }[]>;

function signature(sig: WireSignature) {
  return { r: sig.r as Hex, s: sig.s as Hex, yParity: sig.v - 27 };
}

export async function recoverL1Signer(args: {
  action: Record<string, unknown>;
  nonce: number;
  signature: WireSignature;
  vaultAddress?: `0x${string}` | undefined;
  expiresAfter?: number | undefined;
  isTestnet: boolean;
}): Promise<{ signer: Address; hash: `0x${string}` }> {
  const hash = createL1ActionHash({
    action: args.action,
    nonce: args.nonce,
    vaultAddress: args.vaultAddress,
    expiresAfter: args.expiresAfter,
  });
  const signer = await recoverTypedDataAddress({
    domain: { name: 'Exchange', version: '1', chainId: 1337, verifyingContract: zeroAddress },
    types: { Agent: [{ name: 'source', type: 'string' }, { name: 'connectionId', type: 'bytes32' }] },
    primaryType: 'Agent',
    message: { source: args.isTestnet ? 'b' : 'a', connectionId: hash },
    signature: signature(args.signature),
  });
  return { signer: lower(signer), hash };
}

/** `types` is the SDK's definition for the action (`ApproveAgentTypes` ...); its first key is the primary type. */
export async function recoverUserSigner(args: {
  action: Record<string, unknown> & { signatureChainId: string };
  types: Types;
  signature: WireSignature;
}): Promise<{ signer: Address; hash: `0x${string}` }> {
  const primaryType = Object.keys(args.types)[0]!;
  const fields = args.types[primaryType]!;
  const message = Object.fromEntries(fields.map((f) => [f.name, args.action[f.name] ?? (f.type === 'string' ? '' : undefined)]));
  const typed = {
    domain: { name: 'HyperliquidSignTransaction', version: '1', chainId: Number.parseInt(args.action.signatureChainId, 16), verifyingContract: zeroAddress },
    types: { [primaryType]: fields },
    primaryType,
    message,
  } as const;
  const signer = await recoverTypedDataAddress({ ...typed, signature: signature(args.signature) } as never);
  return { signer: lower(signer), hash: hashTypedData(typed as never) };
}
