// Permit2 typed data for RFQ settlement (DESIGN.md §5, "Spot, permit2 mode"). Pure: no I/O.
// Makers build against these exact types, so they are part of the interface.
export { xchangeSwapTypedData, swapMessageFromWire, type SwapMessage, type SwapTransfer } from './xchange.ts';
import { hashStruct, hexToBigInt, keccak256, stringToHex, type Address, type Hex, type TypedDataDefinition } from 'viem';

/** Appended by Permit2 to "PermitWitnessTransferFrom(...,"; identical to RfqMakerWrapper.WITNESS_TYPE_STRING. */
export const RFQ_FILL_WITNESS_TYPE_STRING =
  'RfqFill witness)RfqFill(bytes32 quoteHash,address deliverToken,uint256 deliverAmount,address deliverTo)TokenPermissions(address token,uint256 amount)';

export const rfqPermitTypes = {
  PermitWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'RfqFill' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  RfqFill: [
    { name: 'quoteHash', type: 'bytes32' },
    { name: 'deliverToken', type: 'address' },
    { name: 'deliverAmount', type: 'uint256' },
    { name: 'deliverTo', type: 'address' },
  ],
} as const;

export type RfqPermitTypedData = TypedDataDefinition<typeof rfqPermitTypes, 'PermitWitnessTransferFrom'>;

export type RfqFillWitness = {
  quoteHash: Hex;
  /** The maker's leg (`makerPays`). */
  deliverToken: Address;
  deliverAmount: bigint;
  /** Custody. */
  deliverTo: Address;
};

export type RfqPermitParams = {
  chainId: number;
  permit2Address: Address;
  /** The taker's pay token (what the maker receives). */
  token: Address;
  /** The payment leg in raw units (`makerReceives`). */
  amount: bigint;
  /** The maker's wrapper. */
  spender: Address;
  nonce: bigint;
  /** `settlementDeadline`, unix seconds; Permit2 accepts while block.timestamp <= deadline. */
  deadline: bigint;
  witness: RfqFillWitness;
};

/** `keccak256(utf8(quoteId))`: the RfqFill witness's quoteHash and the RfqSettled topic. */
export function quoteHash(quoteId: string): Hex {
  return keccak256(stringToHex(quoteId));
}

/** `uint256(keccak256(utf8(quoteId)))`: the permit nonce, derivable by the maker from the quote alone. */
export function quoteNonce(quoteId: string): bigint {
  return hexToBigInt(quoteHash(quoteId));
}

/** Permit2's EIP-712 domain (its EIP712.sol): a name, the chain and the contract, no version. */
export function permit2Domain(chainId: number, permit2Address: Address): { name: 'Permit2'; chainId: number; verifyingContract: Address } {
  return { name: 'Permit2', chainId, verifyingContract: permit2Address };
}

/** Typed data for the custody key to sign (viem `signTypedData`) and the maker to relay. */
export function rfqPermitTypedData(p: RfqPermitParams): RfqPermitTypedData {
  return {
    domain: permit2Domain(p.chainId, p.permit2Address),
    types: rfqPermitTypes,
    primaryType: 'PermitWitnessTransferFrom',
    message: {
      permitted: { token: p.token, amount: p.amount },
      spender: p.spender,
      nonce: p.nonce,
      deadline: p.deadline,
      witness: p.witness,
    },
  };
}

/** hashStruct(RfqFill): the `witness` argument the wrapper passes to Permit2. */
export function rfqFillWitnessHash(w: RfqFillWitness): Hex {
  return hashStruct({ data: w, primaryType: 'RfqFill', types: rfqPermitTypes });
}
