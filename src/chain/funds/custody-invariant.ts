/**
 * On-chain custody against the ledger (TEAM ledger convention): for every listed token,
 * custody's on-chain balance equals -(sum of `custody` book postings).
 *
 * The balance is read at the chain follower's cursor block, so everything the follower books
 * (deposits, settlements, deliveries) is exactly aligned with it. Custody transfers out
 * (withdrawals, payouts) are booked by the broadcaster instead, at its own pace, so two explicit
 * allowances apply:
 * - `confirmedAfterCursor`: transfers already booked whose block is above the cursor still sit
 *   in custody at the cursor block, so they are added back to the expectation (exact);
 * - `inFlightTolerance`: transfers signed or sent but not yet booked may already have left; the
 *   on-chain balance may be lower than expected by at most their sum.
 * xchange executions and approvals in the same queue are not counted: an xchange swap is booked by
 * the follower (aligned with the cursor) and an approval moves no tokens.
 * A violation names all of them.
 */
import { getAddress } from 'viem';
import { sql } from 'kysely';
import { testTokenAbi } from '../artifacts/index.ts';
import type { ExtraInvariant, Violation } from '../../services/admin/invariants.ts';
import { loadReferenceData } from '../../store/reference-data.ts';
import type { ChainContext } from '../chain-context.ts';

export function custodyInvariant(chain: ChainContext): ExtraInvariant {
  return async (db) => {
    const cursor = await db.selectFrom('chain_cursors').selectAll().where('name', '=', 'main').executeTakeFirst();
    if (!cursor) return [];
    const reference = await loadReferenceData(db, 0);
    const book = await sql<{ token: string; total: string }>`
      select token, coalesce(sum(delta), 0)::text as total from ledger_postings where book = 'custody' and rail = 'EVM' group by token`.execute(db);
    const transfers = await sql<{ token: string; in_flight: string; after_cursor: string }>`
      select token,
        coalesce(sum(amount) filter (where status in ('SIGNED', 'SENT')), 0)::text as in_flight,
        coalesce(sum(amount) filter (where status = 'CONFIRMED' and confirmed_block > ${cursor.block_number}), 0)::text as after_cursor
      from custody_transfers where purpose in ('withdrawal', 'payout') group by token`.execute(db);
    const bookOf = new Map(book.rows.map((r) => [r.token, -BigInt(r.total)]));
    const transfersOf = new Map(transfers.rows.map((r) => [r.token, { inFlight: BigInt(r.in_flight), afterCursor: BigInt(r.after_cursor) }]));
    const violations: Violation[] = [];
    for (const token of reference.tokens.values()) {
      if (!token.address) continue;
      let onChain: bigint;
      try {
        onChain = await chain.custody.publicClient.readContract({
          address: getAddress(token.address),
          abi: testTokenAbi,
          functionName: 'balanceOf',
          args: [chain.custodyAddress],
          blockNumber: BigInt(cursor.block_number),
        });
      } catch (error) {
        // A listed address that is no ERC-20 (or an unreachable chain) is itself a finding, not a crash.
        violations.push({ check: 'custodyBalanceUnreadable', detail: { token: token.symbol, address: token.address, atBlock: cursor.block_number, error: error instanceof Error ? error.message.split('\n')[0] : String(error) } });
        continue;
      }
      const t = transfersOf.get(token.symbol) ?? { inFlight: 0n, afterCursor: 0n };
      const expected = (bookOf.get(token.symbol) ?? 0n) + t.afterCursor;
      if (onChain > expected || onChain < expected - t.inFlight) {
        violations.push({
          check: 'custodyMatchesChain',
          detail: {
            token: token.symbol,
            atBlock: cursor.block_number,
            onChain: onChain.toString(),
            custodyBook: (bookOf.get(token.symbol) ?? 0n).toString(),
            confirmedAfterCursor: t.afterCursor.toString(),
            expected: expected.toString(),
            inFlightTolerance: t.inFlight.toString(),
          },
        });
      }
    }
    return violations;
  };
}
