/** Deposit listings: the account's own (GET /v1/rfq/deposits) and the operator's unattributed ones. */
import { depositsPage } from '../../store/deposit-records.ts';
import type { ServiceDeps } from '../deps.ts';
import { decodeCursor, pageOf } from '../paging.ts';
import { depositView } from './deposits.ts';

interface PageInput { limit?: number | undefined; cursor?: string | undefined }

async function page(deps: ServiceDeps, accountId: string | null, input: PageInput) {
  const limit = input.limit ?? 50;
  const after = input.cursor ? decodeCursor(input.cursor, 'cursor') : null;
  const rows = await depositsPage(deps.db, accountId, limit + 1, after);
  // A token listed on another node moments ago may be missing from this node's cached reference
  // data: reload rather than print raw units (found by the simulation, seeds 2015 and 2018 on
  // PostgreSQL; the same as balances, services/account/balances.ts).
  let reference = await deps.refdata.current();
  if (rows.some((r) => !reference.tokens.has(r.token))) reference = await deps.refdata.reload();
  return { rows, limit, reference };
}

export async function listDeposits(deps: ServiceDeps, accountId: string, input: PageInput) {
  const { rows, limit, reference } = await page(deps, accountId, input);
  return pageOf(rows, limit, (r) => ({ at: r.created_at, id: r.id }), (r) => depositView(r, reference));
}

export async function listUnattributedDeposits(deps: ServiceDeps, input: PageInput) {
  const { rows, limit, reference } = await page(deps, null, input);
  return pageOf(rows, limit, (r) => ({ at: r.created_at, id: r.id }), (r) => ({ ...depositView(r, reference), fromAddress: r.from_address, blockNumber: r.block_number, logIndex: r.log_index }));
}
