/** The operator's list of custody transfers (newest first), by status and purpose. */
import type { ServiceDeps } from '../deps.ts';
import { decodeCursor, pageOf } from '../paging.ts';
import { custodyTransferView } from './custody-transfer-views.ts';

interface PageInput { limit?: number | undefined; cursor?: string | undefined }

export async function listCustodyTransfers(deps: ServiceDeps, filter: { status?: string | undefined; purpose?: string | undefined }, page: PageInput) {
  const limit = page.limit ?? 50;
  const after = page.cursor ? decodeCursor(page.cursor, 'cursor') : null;
  let query = deps.db.selectFrom('custody_transfers').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.purpose) query = query.where('purpose', '=', filter.purpose as never);
  if (after) query = query.where((eb) => eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '<', after.id)])]));
  const [rows, reference] = await Promise.all([query.execute(), deps.refdata.current()]);
  const ids = rows.map((r) => r.id);
  const attempts = ids.length === 0 ? [] : await deps.db.selectFrom('custody_tx_attempts').selectAll().where('transfer_id', 'in', ids).orderBy('attempt').execute();
  return pageOf(rows, limit, (r) => ({ at: r.created_at, id: r.id }), (r) => custodyTransferView(r, attempts.filter((a) => a.transfer_id === r.id), reference));
}
