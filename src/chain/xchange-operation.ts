/**
 * What the quote path needs from the chain to check an xchange bundle: the adapter's name, the
 * custody address, and signature recovery over the adapter's EIP-712 domain (this node's adapter
 * and chain). CPU only: no RPC on the quote path.
 */
import { recoverTypedDataAddress, type Address, type Hex } from 'viem';
import type { XchangeOperation } from '../services/rfq/xchange-bundle.ts';
import type { ChainContext } from './chain-context.ts';
import { swapMessageFromWire, xchangeSwapTypedData, XCHANGE_DOMAIN_NAME } from './xchange.ts';

export function xchangeOperation(chain: ChainContext, adapterAddress: Address): XchangeOperation {
  return {
    adapterName: XCHANGE_DOMAIN_NAME,
    custodyAddress: chain.custodyAddress,
    recoverSigner: (bundle) =>
      recoverTypedDataAddress({
        ...xchangeSwapTypedData({ chainId: chain.chainId, adapterAddress, message: swapMessageFromWire(bundle.settlement.swapMessage) }),
        signature: bundle.settlement.adapterSignature as Hex,
      }),
  };
}
