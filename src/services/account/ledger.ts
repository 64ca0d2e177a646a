/** The caller's ledger entries, newest first, paged by an opaque (createdAt, id) cursor. */
import { formatAmount } from '../../domain/money/index.ts';
import type { ServiceDeps } from '../deps.ts';
import type { Rail } from '../../store/ledger.ts';
import { decodeCursor, encodeCursor } from '../paging.ts';

export async function readLedger(deps: ServiceDeps, accountId: string, page: { limit?: number | undefined; cursor?: string | undefined }) {
  const limit = page.limit ?? 50;
  const after = page.cursor ? decodeCursor(page.cursor, 'cursor') : null;
  let query = deps.db
    .selectFrom('ledger_postings')
    .select(['posting_id', 'token', 'rail', 'delta', 'source', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('posting_id', 'desc')
    .limit(limit + 1);
  if (after) {
    query = query.where((eb) =>
      eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('posting_id', '<', after.id)])]),
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
      createdAt: r.created_at,
    })),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor({ at: last.created_at, id: last.posting_id }) : null,
  };
}
