/**
 * The omnibus invariant: for every token on the `VENUE` rail, the omnibus's venue balance covers
 * what the custody book says it holds for users (deposits, withdrawals, fills and the venue's fees
 * move the book). Venue precision beyond the ledger's and the dust of rounding against users stay
 * at the venue, so the venue may hold more, never less. An unreachable venue is reported, not
 * thrown.
 */
import { sql } from 'kysely';
import { venueUnitsDown } from '../../domain/v0/venue-grid.ts';
import type { ExtraInvariant, Violation } from '../../services/admin/invariants.ts';
import type { VenueHttp } from './venue-http.ts';

export function omnibusInvariant(http: VenueHttp, omnibusAddress: string): ExtraInvariant {
  return async (db) => {
    const book = await sql<{ token: string; held: string; decimals: number }>`
      select p.token, (-sum(p.delta))::text as held, t.decimals
      from ledger_postings p join tokens t on t.symbol = p.token
      where p.book = 'custody' and p.rail = 'VENUE'
      group by p.token, t.decimals
    `.execute(db);
    if (book.rows.length === 0) return [];
    let state: { balances: Array<{ coin: string; total: string }> };
    try {
      state = await http.info({ type: 'spotClearinghouseState', user: omnibusAddress }, 3000, 3);
    } catch (error) {
      return [{ check: 'omnibusVenueBalance', detail: { reason: 'venueUnreachable', message: (error as Error).message } }];
    }
    const violations: Violation[] = [];
    for (const row of book.rows) {
      const total = state.balances.find((b) => b.coin === row.token)?.total ?? '0';
      const atVenue = venueUnitsDown(total, row.decimals);
      if (atVenue < BigInt(row.held)) violations.push({ check: 'omnibusVenueBalance', detail: { token: row.token, book: row.held, venue: atVenue.toString() } });
    }
    return violations;
  };
}
