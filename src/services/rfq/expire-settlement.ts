/**
 * A QUOTED RFQ not settled by `settlementDeadline` (unix seconds) ends FAILED with
 * SETTLEMENT_FAILED; its winning quote FAILED; the taker's lock released. Settlement adapters
 * that must wait for chain finality past the deadline register a `settlementFinalityCheck`.
 * Where the promised gateway is wired, promised wins are failed by expire-delivery.ts on chain
 * time instead.
 */
import type { ExpressionBuilder } from 'kysely';
import { inTransaction } from '../../store/outbox.ts';
import type { DB } from '../../store/schema.ts';
import { transitionQuote, transitionRfq, type QuoteStatus, type RfqStatus } from '../../domain/rfq/index.ts';
import { endLock } from '../../store/ledger.ts';
import type { ServiceDeps } from '../deps.ts';
import { resolveInstrument } from './create-rfq.ts';
import { emitBalances, emitQuoteStatus, emitRfqStatus } from './events.ts';

const notPromised = ({ not, exists, selectFrom }: ExpressionBuilder<DB, 'rfqs'>) =>
  not(exists(selectFrom('quotes').select('quotes.id').whereRef('quotes.id', '=', 'rfqs.selected_quote_id').where('quotes.settlement_mode', '=', 'promised')));

export async function overdueSettlements(deps: ServiceDeps, limit: number): Promise<string[]> {
  const nowSecs = Math.floor(deps.clock.now() / 1000);
  const rows = await deps.db
    .selectFrom('rfqs')
    .select('id')
    .where('status', '=', 'QUOTED')
    .where('settlement_deadline_secs', '<', nowSecs)
    .$if(Boolean(deps.settlement.promised), (qb) => qb.where(notPromised))
    .orderBy('settlement_deadline_secs')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

export async function expireSettlement(deps: ServiceDeps, rfqId: string): Promise<boolean> {
  const now = deps.clock.now();
  const nowSecs = Math.floor(now / 1000);
  return inTransaction(deps.db, async (tx) => {
    const rfq = await tx
      .selectFrom('rfqs')
      .selectAll()
      .where('id', '=', rfqId)
      .where('status', '=', 'QUOTED')
      .where('settlement_deadline_secs', '<', nowSecs)
      .$if(Boolean(deps.settlement.promised), (qb) => qb.where(notPromised))
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!rfq) return false;
    const quote = rfq.selected_quote_id
      ? await tx.selectFrom('quotes').selectAll().where('id', '=', rfq.selected_quote_id).forUpdate().executeTakeFirst()
      : undefined;
    const instrument = await resolveInstrument(deps, rfq.instrument_id);
    const updated = await tx
      .updateTable('rfqs')
      .set({
        status: transitionRfq(rfq.status as RfqStatus, 'settlementFailed'),
        failure_code: 'SETTLEMENT_FAILED',
        failure_reason: 'the winning maker did not settle by the settlement deadline',
        updated_at: now,
      })
      .where('id', '=', rfq.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (quote) {
      const failed = await tx
        .updateTable('quotes')
        .set({ status: transitionQuote(quote.status as QuoteStatus, 'fail'), updated_at: now })
        .where('id', '=', quote.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await emitQuoteStatus(tx, failed, updated, instrument, now);
    }
    await endLock(tx, 'rfq', rfq.id, 'release', 'settlementFailed', now);
    await emitRfqStatus(tx, updated, instrument, now);
    await emitBalances(tx, deps, rfq.account_id, now);
    return true;
  });
}
