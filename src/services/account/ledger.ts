/**
 * The caller's ledger entries, newest first, paged by an opaque (createdAt, id) cursor; an entry
 * of a trade carries its `rfqId` (additive).
 */
import { formatAmount } from '../../domain/money/index.ts';
import type { ServiceDeps } from '../deps.ts';
import type { Rail } from '../../store/ledger.ts';
import { accountPostings } from '../../store/ledger-page.ts';
import { decodeCursor, encodeCursor } from '../paging.ts';

export async function readLedger(deps: ServiceDeps, accountId: string, page: { limit?: number | undefined; cursor?: string | undefined }) {
  const limit = page.limit ?? 50;
  const after = page.cursor ? decodeCursor(page.cursor, 'cursor') : null;
  const [rows, reference] = await Promise.all([accountPostings(deps.db, accountId, limit + 1, after), deps.refdata.current()]);
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
