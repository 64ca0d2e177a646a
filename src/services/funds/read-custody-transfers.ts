/** The operator's list of custody transfers (newest first), by status and purpose. */
import type { ServiceDeps } from '../deps.ts';
import type { CustodyTransferStatus } from '../../domain/funds/custody-transfer-state.ts';
import { attemptsOfTransfers, custodyTransfersPage } from '../../store/custody-transfer-reads.ts';
import { decodeCursor, pageOf } from '../paging.ts';
import { custodyTransferView } from './custody-transfer-views.ts';

interface PageInput { limit?: number | undefined; cursor?: string | undefined }

export async function listCustodyTransfers(deps: ServiceDeps, filter: { status?: CustodyTransferStatus | undefined; purpose?: string | undefined }, page: PageInput) {
  const limit = page.limit ?? 50;
  const after = page.cursor ? decodeCursor(page.cursor, 'cursor') : null;
  const [rows, reference] = await Promise.all([custodyTransfersPage(deps.db, filter, limit + 1, after), deps.refdata.current()]);
  const attempts = await attemptsOfTransfers(deps.db, rows.map((r) => r.id));
  return pageOf(rows, limit, (r) => ({ at: r.created_at, id: r.id }), (r) => custodyTransferView(r, attempts.filter((a) => a.transfer_id === r.id), reference));
}
