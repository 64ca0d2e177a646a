// EIP-712 typed data for `xchange` swap messages, as verified by contracts/XchangeAdapter.sol.
// Domain: name "RfqXchangeAdapter", version "1", chainId, verifyingContract = the adapter.
// Pure: no I/O.
import { getAddress, type Address, type TypedDataDefinition } from 'viem';

export const XCHANGE_DOMAIN_NAME = 'RfqXchangeAdapter';
export const XCHANGE_DOMAIN_VERSION = '1';

export const xchangeSwapTypes = {
  SwapMessage: [
    { name: 'quoteId', type: 'string' },
    { name: 'expiration', type: 'uint256' },
    { name: 'incomingTransfer', type: 'SwapTransfer' },
    { name: 'outgoingTransfer', type: 'SwapTransfer' },
  ],
  SwapTransfer: [
    { name: 'token', type: 'address' },
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
} as const;

export type SwapTransfer = { token: Address; from: Address; to: Address; amount: bigint };

/** The on-chain form of the spec's SwapMessage (whose `expiration` and `amount` travel as decimal strings). */
export type SwapMessage = {
  quoteId: string;
  /** Unix seconds; the adapter executes while block.timestamp <= expiration. */
  expiration: bigint;
  incomingTransfer: SwapTransfer;
  outgoingTransfer: SwapTransfer;
};

export type XchangeSwapTypedData = TypedDataDefinition<typeof xchangeSwapTypes, 'SwapMessage'>;

export function xchangeSwapTypedData(p: { chainId: number; adapterAddress: Address; message: SwapMessage }): XchangeSwapTypedData {
  return {
    domain: { name: XCHANGE_DOMAIN_NAME, version: XCHANGE_DOMAIN_VERSION, chainId: p.chainId, verifyingContract: p.adapterAddress },
    types: xchangeSwapTypes,
    primaryType: 'SwapMessage',
    message: p.message,
  };
}

/** Converts the spec's wire form (decimal strings) to the typed form; throws on a non-integer or a bad address. */
export function swapMessageFromWire(m: {
  quoteId: string;
  expiration: string;
  incomingTransfer: { token: string; from: string; to: string; amount: string };
  outgoingTransfer: { token: string; from: string; to: string; amount: string };
}): SwapMessage {
  const uint = (s: string) => {
    if (!/^\d+$/.test(s)) throw new Error(`not an unsigned integer: ${s}`);
    return BigInt(s);
  };
  const transfer = (t: { token: string; from: string; to: string; amount: string }): SwapTransfer => ({
    token: getAddress(t.token),
    from: getAddress(t.from),
    to: getAddress(t.to),
    amount: uint(t.amount),
  });
  return {
    quoteId: m.quoteId,
    expiration: uint(m.expiration),
    incomingTransfer: transfer(m.incomingTransfer),
    outgoingTransfer: transfer(m.outgoingTransfer),
  };
}
