/**
 * The custody check reads one snapshot: a custody transfer confirmed (its row CONFIRMED above the
 * follower's cursor and its posting to the custody book, in one transaction) while the check
 * reads is either wholly before or wholly after it, never half. Found by the simulation (seed 2002
 * on PostgreSQL, `npm run sim -- --chain --venue`): the book was read before a withdrawal's
 * confirmation committed and the transfers after it, so the confirmed amount was added back to a
 * book that did not yet hold its debit, and the check reported custody short on chain.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { parseUnits, type Address } from 'viem';
import type { CompiledQuery } from 'kysely';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { startTestChain, type TestChain } from '../../helpers/chain.ts';
import { balanceOf, depositOnChain, waitFor, wallet } from './helpers.ts';
import { custodyInvariant } from '../../../src/chain/funds/custody-invariant.ts';
import { connectChainContext } from '../../../src/chain/chain-context.ts';
import { postMovement } from '../../../src/store/ledger.ts';
import { inTransaction } from '../../../src/store/outbox.ts';
import { readCursor } from '../../../src/store/chain-cursor.ts';
import { promisedPayoutPostings } from '../../../src/domain/ledger/index.ts';

const USDC = (n: string) => parseUnits(n, 6);

/**
 * The database as the check sees it, running `between` once right after the first statement that
 * reads the custody book has answered (and given its connection back: PGlite has only one).
 */
function afterCustodyBookRead(db: Harness['node']['store']['db'], between: () => Promise<void>): typeof db {
  let done = false;
  const executor = db.getExecutor();
  const wrapped = new Proxy(executor, {
    get(target, prop, receiver) {
      if (prop !== 'executeQuery') return bound(target, prop, receiver);
      return async (compiled: CompiledQuery) => {
        const result = await target.executeQuery(compiled);
        if (!done && compiled.sql.includes("book = 'custody'")) {
          done = true;
          await between();
        }
        return result;
      };
    },
  });
  return new Proxy(db, { get: (target, prop, receiver) => (prop === 'getExecutor' ? () => wrapped : bound(target, prop, receiver)) });
}

/** Kysely's classes keep private fields: their methods must run on the real object, not the proxy. */
function bound(target: object, prop: string | symbol, receiver: unknown): unknown {
  const value = Reflect.get(target, prop, receiver) as unknown;
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}

for (const backend of backends()) {
  describe(`custody check against a confirmation committing while it reads [${backend}]`, () => {
    let chain: TestChain;
    let h: Harness;
    before(async () => {
      chain = await startTestChain();
      h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, logLevel: 'fatal' });
    });
    after(async () => {
      await h?.close();
      await chain?.stop();
    });

    it('sees the confirmation wholly or not at all: no violation either way', async () => {
      const user = await wallet(h, chain);
      await depositOnChain(chain, user.account, 'USDC', USDC('8'));
      await waitFor('deposit credited', () => balanceOf(user.client, 'USDC'), (b) => b?.total === '8');
      const db = h.node.store.db;
      const cursor = (await readCursor(db, 'main'))!;
      // A payout of 3 USDC confirmed far above the cursor (so the follower cannot pass it during the
      // test): at the cursor block custody still holds it, so the check adds it back to the book.
      const confirm = () => inTransaction(db, async (tx) => {
        const now = Date.now();
        await tx.insertInto('custody_transfers').values({
          id: randomUUID(), purpose: 'payout', owner_id: `qt_${randomUUID()}`, token: 'USDC', token_address: chain.token('USDC').toLowerCase(), to_address: (user.account.address as Address).toLowerCase(),
          amount: USDC('3'), status: 'CONFIRMED', from_address: chain.custody.toLowerCase(), nonce: null, raw_tx: null, tx_hash: null, send_attempts: 1, signed_at: now, last_sent_at: now,
          confirmed_block: cursor.blockNumber + 100_000, last_error: null, call_data: null, gas: null, created_at: now, updated_at: now, cancel_requested_at: null, escalated_at: null, not_after_secs: null,
        }).execute();
        await postMovement(tx, { movementId: randomUUID(), kind: 'PAYOUT', at: now, postingIds: [randomUUID(), randomUUID()], postings: promisedPayoutPostings({ token: 'USDC', amount: USDC('3') }) });
      });
      const check = custodyInvariant(await connectChainContext(chain.stack.settings));
      assert.deepEqual(await check(db), [], 'consistent before');
      const violations = await check(afterCustodyBookRead(db, confirm));
      assert.deepEqual(violations, []);
      assert.deepEqual(await check(db), [], 'consistent after');
    });
  });
}
