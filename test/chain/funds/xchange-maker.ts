/**
 * The xchange maker of the funds tests (xchange-deadline, xchange-final-time): registered in
 * `xchange` mode with its adapter signer, and quotes of 1 ETH for 3000 USDC with a signed swap.
 */
import { randomUUID } from 'node:crypto';
import { parseUnits, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import { connectSigner } from '../../../src/chain/clients.ts';
import { xchangeAdapterAbi } from '../../../src/chain/artifacts/index.ts';
import { swapMessageFromWire, xchangeSwapTypedData } from '../../../src/chain/xchange.ts';
import type { Harness } from '../../helpers/harness.ts';
import type { TestChain } from '../../helpers/chain.ts';

export const ETH_QTY = '1';
export const ETH_RAW = parseUnits(ETH_QTY, 18);
export const PRICE = '3000';
export const PRICE_RAW = parseUnits(PRICE, 6);

const keyOf = (account: PrivateKeyAccount) => (account as PrivateKeyAccount & { __key: Hex }).__key;

export interface XchangeMaker {
  h: Harness;
  chain: TestChain;
  maker: PrivateKeyAccount;
  adapterSigner: PrivateKeyAccount;
  adapter: Address;
  client: RfqClient;
}

/** Registers and signs in the maker, sets its adapter signer on chain, and gives it `ethRaw` ETH approved to the adapter. */
export async function setUpXchangeMaker(h: Harness, chain: TestChain, maker: PrivateKeyAccount, adapterSigner: PrivateKeyAccount, ethRaw: bigint): Promise<XchangeMaker> {
  const adapter = chain.stack.settings.xchangeAdapterAddress!;
  await h.admin.putMaker(maker.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['xchange'], adapterSigner: adapterSigner.address });
  const client = new RfqClient(h.url);
  await client.signIn(maker);
  await chain.fundGas(maker.address);
  const m = await connectSigner(chain.rpcUrl, keyOf(maker));
  await m.publicClient.waitForTransactionReceipt({ hash: await m.walletClient.writeContract({ address: adapter, abi: xchangeAdapterAbi, functionName: 'setSigner', args: [adapterSigner.address, true] }) });
  await chain.approve(maker, 'ETH', adapter);
  await chain.mint('ETH', maker.address, ethRaw);
  return { h, chain, maker, adapterSigner, adapter, client };
}

/** A taker with 5000 USDC (ledger and custody) buys 1 ETH: the maker's signed swap quoted and accepted. */
export async function acceptedXchangeQuote(x: XchangeMaker, windowMs: number) {
  const taker = await x.h.newUser();
  await x.h.fund(taker.account.address, { USDC: '5000' });
  await x.chain.mint('USDC', x.chain.custody, parseUnits('5000', 6));
  const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: ETH_QTY, windowMs });
  const { settlementDeadline } = await taker.client.getRfq(rfqId);
  const quoteId = `qt_${randomUUID()}`;
  const swapMessage = {
    quoteId,
    expiration: String(settlementDeadline),
    incomingTransfer: { token: x.chain.token('ETH'), from: x.maker.address, to: x.chain.custody, amount: ETH_RAW.toString() },
    outgoingTransfer: { token: x.chain.token('USDC'), from: x.chain.custody, to: x.maker.address, amount: PRICE_RAW.toString() },
  };
  const typed = xchangeSwapTypedData({ chainId: x.h.node.context.chain!.chainId, adapterAddress: x.adapter, message: swapMessageFromWire(swapMessage) });
  const xchange = { adapter: 'RfqXchangeAdapter', settlement: { swapMessage, adapterSignature: await x.adapterSigner.signTypedData(typed) } };
  await x.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: ETH_QTY }, makerReceives: { token: 'USDC', amount: PRICE }, xchange } as Parameters<RfqClient['submitQuote']>[0]);
  await taker.client.accept(rfqId, { quoteId });
  return { taker, rfqId, quoteId, settlementDeadline };
}
