/**
 * The keyset page every "newest first" listing reads: ordered by (created at, id) descending,
 * strictly before the cursor's (at, id) when there is one, at most `limit` rows.
 */
import { sql, type SelectQueryBuilder, type SqlBool } from 'kysely';

export interface PageCursor {
  at: number;
  id: string;
}

/** `query` as one newest-first page; `at` and `id` name its time and id columns (`table.column`). */
export function newestFirst<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, columns: { at: string; id: string }, before: PageCursor | undefined, limit: number): SelectQueryBuilder<DB, TB, O> {
  const at = sql.ref(columns.at);
  const id = sql.ref(columns.id);
  const page = before ? query.where(sql<SqlBool>`(${at} < ${before.at} or (${at} = ${before.at} and ${id} < ${before.id}))`) : query;
  return page.orderBy(at, 'desc').orderBy(id, 'desc').limit(limit);
}
