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
    // One statement, so one snapshot: the cursor, the custody book and the transfers are read
    // together. Read one by one, a transfer confirmed in between (its row CONFIRMED and its
    // posting in one transaction) was seen by the transfers but not the book: a false shortfall.
    const rows = await sql<{ kind: 'cursor' | 'book' | 'transfers'; token: string | null; block: number; a: string; b: string }>`
      with cursor as (select block_number from chain_cursors where name = 'main')
      select 'cursor' as kind, null as token, c.block_number as block, '0' as a, '0' as b from cursor c
      union all
      select 'book', p.token, c.block_number, coalesce(sum(p.delta), 0)::text, '0'
        from ledger_postings p cross join cursor c
        where p.book = 'custody' and p.rail = 'EVM' group by p.token, c.block_number
      union all
      select 'transfers', t.token, c.block_number,
        coalesce(sum(t.amount) filter (where t.status in ('SIGNED', 'SENT')), 0)::text,
        coalesce(sum(t.amount) filter (where t.status = 'CONFIRMED' and t.confirmed_block > c.block_number), 0)::text
        from custody_transfers t cross join cursor c
        where t.purpose in ('withdrawal', 'payout') group by t.token, c.block_number`.execute(db);
    const cursorRow = rows.rows.find((r) => r.kind === 'cursor');
    if (!cursorRow) return [];
    const cursor = { block_number: Number(cursorRow.block) };
    const reference = await loadReferenceData(db, 0);
    const bookOf = new Map(rows.rows.filter((r) => r.kind === 'book').map((r) => [r.token!, -BigInt(r.a)]));
    const transfersOf = new Map(rows.rows.filter((r) => r.kind === 'transfers').map((r) => [r.token!, { inFlight: BigInt(r.a), afterCursor: BigInt(r.b) }]));
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
