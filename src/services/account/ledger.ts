/**
 * The caller's ledger entries, newest first, paged by an opaque (createdAt, id) cursor; an entry
 * of a trade carries its `rfqId` (additive).
 */
import { formatAmount } from '../../domain/money/index.ts';
import type { ServiceDeps } from '../deps.ts';
import type { Rail } from '../../store/ledger.ts';
import { decodeCursor, encodeCursor } from '../paging.ts';

export async function readLedger(deps: ServiceDeps, accountId: string, page: { limit?: number | undefined; cursor?: string | undefined }) {
  const limit = page.limit ?? 50;
  const after = page.cursor ? decodeCursor(page.cursor, 'cursor') : null;
  let query = deps.db
    .selectFrom('ledger_postings as p')
    .innerJoin('ledger_movements as m', 'm.movement_id', 'p.movement_id')
    .select(['p.posting_id', 'p.token', 'p.rail', 'p.delta', 'p.source', 'p.created_at', 'm.reference'])
    .where('p.account_id', '=', accountId)
    .orderBy('p.created_at', 'desc')
    .orderBy('p.posting_id', 'desc')
    .limit(limit + 1);
  if (after) {
    query = query.where((eb) =>
      eb.or([eb('p.created_at', '<', after.at), eb.and([eb('p.created_at', '=', after.at), eb('p.posting_id', '<', after.id)])]),
    );
  }
  const [rows, reference] = await Promise.all([query.execute(), deps.refdata.current()]);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const hasMore = rows.length > limit;
  return {
    entries: items.map((r) => ({
      ledgerId: r.posting_id,
      token: r.token,
      rail: r.rail as Rail,
      delta: formatAmount(r.delta, reference.tokens.get(r.token)?.decimals ?? 0),
      source: r.source,
      // Additive: the RFQ a trade's entries belong to (its movement's reference is the RFQ id).
      ...(r.reference?.startsWith('rfq_') ? { rfqId: r.reference } : {}),
      createdAt: r.created_at,
    })),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor({ at: last.created_at, id: last.posting_id }) : null,
  };
}
