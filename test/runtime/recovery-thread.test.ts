/**
 * Signer recovery on its own thread (src/runtime/recovery-thread.ts): the same signer as on the
 * event loop for the same order text (key order kept: a reordered text recovers another signer),
 * an unrecoverable signature answered as an error, and recoveries still answered once the thread
 * is gone (on the event loop).
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { signL1Action } from '@nktkas/hyperliquid/signing';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { RecoveryThread } from '../../src/runtime/recovery-thread.ts';
import { recoverSignerOfText } from '../../src/services/perp/check-reads.ts';

describe('RecoveryThread', () => {
  const thread = new RecoveryThread(pino({ level: 'silent' }));
  after(() => thread.stop());
  const wallet = privateKeyToAccount(generatePrivateKey());

  async function signedText() {
    const action = { type: 'order', orders: [{ a: 1, b: true, p: '3500', s: '0.1', r: false, t: { limit: { tif: 'Ioc' } } }], grouping: 'na' };
    const nonce = Date.now();
    return { action, nonce, signature: await signL1Action({ wallet, action, nonce, isTestnet: false }) };
  }

  it('recovers the signer of the order text, as the event loop does, many at once', async () => {
    const orders = await Promise.all([1, 2, 3, 4].map(() => signedText()));
    const texts = orders.map((o) => JSON.stringify(o));
    const recovered = await Promise.all(texts.map((t) => thread.recover(t, 'mainnet')));
    for (const r of recovered) assert.equal(r.address?.toLowerCase(), wallet.address.toLowerCase());
    assert.deepEqual(await recoverSignerOfText(texts[0]!, 'mainnet'), recovered[0]);
    const testnet = await thread.recover(texts[0]!, 'testnet');
    assert.notEqual(testnet.address?.toLowerCase(), wallet.address.toLowerCase(), 'another network recovers another signer');
  });

  it('hashes the text as given: reordered keys recover another signer; a bad signature is an error', async () => {
    const order = await signedText();
    const [first, ...rest] = Object.entries(order.action.orders[0]!);
    const reordered = { ...order, action: { ...order.action, orders: [Object.fromEntries([...rest, first!])] } };
    const other = await thread.recover(JSON.stringify(reordered), 'mainnet');
    assert.ok(other.address !== null && other.address.toLowerCase() !== wallet.address.toLowerCase());
    // An unpadded r is a valid form (the venue's Python SDK sends it); an r past the curve's order is not.
    const broken = await thread.recover(JSON.stringify({ ...order, signature: { ...order.signature, r: `0x${'f'.repeat(64)}` } }), 'mainnet');
    assert.equal(broken.address, null);
    assert.ok(broken.error instanceof Error);
    const notJson = await thread.recover('{', 'mainnet');
    assert.equal(notJson.address, null);
  });

  it('once stopped, recoveries run on the event loop and still answer', async () => {
    const stopped = new RecoveryThread(pino({ level: 'silent' }));
    await stopped.stop();
    const order = await signedText();
    const r = await stopped.recover(JSON.stringify(order), 'mainnet');
    assert.equal(r.address?.toLowerCase(), wallet.address.toLowerCase());
  });
});
