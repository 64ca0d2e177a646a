// The reference maker's relay against a real devnet: a SELECTED MakerQuote carrying a
// custody-signed permit (what the service sends) settles through the maker's wrapper.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseUnits, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { connectSigner } from '../../../src/chain/clients.ts';
import { quoteHash, quoteNonce, rfqPermitTypedData } from '../../../src/chain/permit.ts';
import type { MakerQuote } from '../../../src/client/types.ts';
import { relaySettlement, settleCall, type ChainToken } from '../../../examples/maker/relay.ts';
import { startTestChain, testAccount, type TestChain } from '../../helpers/chain.ts';

let chain: TestChain;
const maker = testAccount();
let wrapper: Address;
let tokens: Map<string, ChainToken>;

before(async () => {
  chain = await startTestChain();
  await chain.fundGas(maker.address);
  wrapper = await chain.wrapperFor(maker.address);
  await chain.mint('ETH', maker.address, parseUnits('10', 18));
  await chain.mint('USDC', chain.custody, parseUnits('100000', 6));
  tokens = new Map(chain.stack.deployed.tokens.map((t) => [t.symbol, { address: t.address, decimals: t.decimals }]));
});
after(() => chain?.stop());

/** What the service puts on the winning maker's SELECTED quote (taker BUYs 0.5 ETH for 1500 USDC). */
async function selectedQuote(quoteId: string, deadline: number): Promise<MakerQuote> {
  const custody = privateKeyToAccount(chain.stack.settings.custodyKey);
  const permitSignature = await custody.signTypedData(rfqPermitTypedData({
    chainId: 31337,
    permit2Address: chain.stack.settings.permit2Address,
    token: chain.token('USDC'),
    amount: parseUnits('1500', 6),
    spender: wrapper,
    nonce: quoteNonce(quoteId),
    deadline: BigInt(deadline),
    witness: { quoteHash: quoteHash(quoteId), deliverToken: chain.token('ETH'), deliverAmount: parseUnits('0.5', 18), deliverTo: chain.custody },
  }));
  return {
    rfqId: 'rfq_x', quoteId, version: 1, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', status: 'SELECTED', settlementMode: 'permit2', receivedAt: 0,
    makerPays: { token: 'ETH', amount: '0.5' }, makerReceives: { token: 'USDC', amount: '1500' },
    permitSignature, spender: wrapper, settlementDeadline: deadline,
  };
}

const nowSecs = () => Math.floor(Date.now() / 1000);

describe('reference maker relay', () => {
  it('settles a selected quote: approves its wrapper once, delivers its leg, is paid the taker leg', async () => {
    const signer = await connectSigner(chain.rpcUrl, (maker as unknown as { __key: `0x${string}` }).__key);
    const quote = await selectedQuote('qt_relay_ok', nowSecs() + 600);
    const call = settleCall(quote, tokens);
    assert.ok(call);
    const before = { eth: await chain.balanceOf('ETH', maker.address), usdc: await chain.balanceOf('USDC', maker.address), custodyEth: await chain.balanceOf('ETH', chain.custody) };
    const hash = await relaySettlement(signer, call);
    assert.match(hash, /^0x[0-9a-f]{64}$/);
    assert.equal(before.eth - (await chain.balanceOf('ETH', maker.address)), parseUnits('0.5', 18));
    assert.equal((await chain.balanceOf('USDC', maker.address)) - before.usdc, parseUnits('1500', 6));
    assert.equal((await chain.balanceOf('ETH', chain.custody)) - before.custodyEth, parseUnits('0.5', 18));
    // A replayed SELECTED frame (reconnect) cannot settle twice: the permit nonce is spent.
    await assert.rejects(relaySettlement(signer, call), /InvalidNonce/);
  });

  it('a permit past its deadline is refused before anything is sent', async () => {
    const signer = await connectSigner(chain.rpcUrl, (maker as unknown as { __key: `0x${string}` }).__key);
    const latest = await signer.publicClient.getBlock();
    const call = settleCall(await selectedQuote('qt_relay_late', Number(latest.timestamp) - 5), tokens)!;
    const nonce = await signer.publicClient.getTransactionCount({ address: maker.address });
    await assert.rejects(relaySettlement(signer, call), /SignatureExpired/);
    assert.equal(await signer.publicClient.getTransactionCount({ address: maker.address }), nonce);
  });

  it('a quote without a permit (another settlement mode) gives no call', async () => {
    const quote = await selectedQuote('qt_no_permit', nowSecs() + 600);
    assert.equal(settleCall({ ...quote, permitSignature: null }, tokens), null);
  });
});
