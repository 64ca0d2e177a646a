/**
 * The maker-wrapper lookup against the real factory on anvil: what it asks the chain, and when an
 * answer is reused. The chain follower and the deposit head scanner read a new block at about the
 * same moment, so a question at a block already on its way is shared (a CI run once counted two
 * calls for one flood of forged logs when the two raced).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { connectChainContext, type ChainContext } from '../../../src/chain/chain-context.ts';
import { wrapperOfCalls, wrapperOfMaker } from '../../../src/chain/funds/wrapper-of.ts';
import { startTestChain, type TestChain } from '../../helpers/chain.ts';

describe('wrapperOfMaker', () => {
  let chain: TestChain;
  let context: ChainContext;
  const freshMaker = (): Address => privateKeyToAccount(generatePrivateKey()).address;
  const head = async () => Number(await context.custody.publicClient.getBlockNumber({ cacheTime: 0 }));
  const calls = async (work: () => Promise<unknown>) => {
    const before = wrapperOfCalls.count;
    await work();
    return wrapperOfCalls.count - before;
  };

  before(async () => {
    chain = await startTestChain();
    context = await connectChainContext(chain.stack.settings);
  });
  after(async () => {
    await chain?.stop();
  });

  it('questions at a block already asked, or on their way at a later block, cost one call', async () => {
    const maker = freshMaker();
    const block = await head();
    let answers: Array<Address | null> = [];
    assert.equal(await calls(async () => (answers = await Promise.all([wrapperOfMaker(context, maker, block), wrapperOfMaker(context, maker, block), wrapperOfMaker(context, maker, block - 1)]))), 1);
    assert.deepEqual(answers, [null, null, null]);
    assert.equal(await calls(() => wrapperOfMaker(context, maker, block)), 0, 'none up to the block asked: cached');
    // An answer at an earlier block says nothing of a later one.
    const another = freshMaker();
    assert.equal(await calls(() => Promise.all([wrapperOfMaker(context, another, block - 1), wrapperOfMaker(context, another, block)])), 2);
  });

  it('a wrapper deployed after a negative answer is found at a later block and at latest', async () => {
    const maker = freshMaker();
    const before = await head();
    assert.equal(await wrapperOfMaker(context, maker, before), null);
    assert.equal(await wrapperOfMaker(context, maker), null);
    const wrapper = await chain.wrapperFor(maker);
    // A maker registering asks at latest: never answered from the negative cache.
    assert.equal(await wrapperOfMaker(context, maker), wrapper);
    const other = freshMaker();
    assert.equal(await wrapperOfMaker(context, other, before), null);
    const otherWrapper = await chain.wrapperFor(other);
    assert.equal(await wrapperOfMaker(context, other, before), null, 'none at the earlier block, still');
    assert.equal(await wrapperOfMaker(context, other, await head()), otherWrapper);
    assert.equal(await calls(() => wrapperOfMaker(context, other, before)), 0, 'a found wrapper is cached for good');
  });
});
