/**
 * What an account-topic subscription starts with: the replay of every frame after the client's
 * `fromSeq` while the outbox still holds them all, otherwise the topic's baseline (spec "Topics")
 * marked `resync` when a replay was asked for and could not be served.
 *
 * Everything is read in one repeatable-read snapshot together with the topic's current `seq`, so
 * the session can drop pushed frames the start already covers (a change committed just before the
 * read is dispatched just after it) and no frame falls between the start and the pushes.
 */
import type { ServiceDeps } from '../services/deps.ts';
import { readBalanceRows } from '../store/ledger.ts';
import type { Reader } from '../store/transaction.ts';
import { balanceSnapshotFrame } from '../services/account/balances.ts';
import { makerQuoteView, quoteView, rfqView } from '../services/rfq/views.ts';
import type { AccountTopic } from './frames.ts';
import type { RfqStatus } from '../domain/rfq/types.ts';

export interface TopicStart {
  /** Last seq of (account, topic) at the snapshot; 0 when the account has no events yet. */
  seq: number;
  /** Replayed frames carry their own seq; baseline frames carry `seq`. */
  frames: Record<string, unknown>[];
  /** A replay was asked for but the outbox no longer holds every frame after it. */
  resync: boolean;
}

/** Spec "Limits": quotes replayed on `quotes` subscribe. */
export const QUOTES_BASELINE_LIMIT = 100;
/** Bounds of the other baselines (the spec gives none): open RFQs, and a maker's recent quotes. */
export const RFQ_BASELINE_LIMIT = 1000;
export const QUOTE_STATUS_BASELINE_LIMIT = 100;
/** A replay longer than this is served as a baseline (resync) instead: one frame burst stays bounded. */
export const MAX_REPLAY_FRAMES = 2000;

const OPEN_RFQ: RfqStatus[] = ['PENDING', 'QUOTED'];

export async function startAccountTopic(deps: ServiceDeps, accountId: string, topic: AccountTopic, fromSeq: number | undefined): Promise<TopicStart> {
  // Repeatable read: rows, baseline and seq come from one snapshot even on a pooled server.
  return deps.db.transaction().setIsolationLevel('repeatable read').execute(async (tx) => {
    const row = await tx.selectFrom('event_seqs').select('last_seq').where('account_id', '=', accountId).where('topic', '=', topic).executeTakeFirst();
    const seq = Number(row?.last_seq ?? 0);
    if (fromSeq !== undefined) {
      const replay = await replayAfter(tx, accountId, topic, fromSeq, seq);
      if (replay) return { seq, frames: replay, resync: false };
    }
    const frames = await baseline(tx, deps, accountId, topic);
    return { seq, frames: frames.map((frame) => ({ ...frame, seq })), resync: fromSeq !== undefined };
  });
}

/** Every frame after `fromSeq`, or null when the outbox no longer holds them all. */
async function replayAfter(tx: Reader, accountId: string, topic: AccountTopic, fromSeq: number, lastSeq: number): Promise<Record<string, unknown>[] | null> {
  if (fromSeq > lastSeq || lastSeq - fromSeq > MAX_REPLAY_FRAMES) return null; // from the future, or too long
  if (fromSeq === lastSeq) return [];
  const rows = await tx
    .selectFrom('outbox')
    .select(['seq', 'frame'])
    .where('account_id', '=', accountId)
    .where('topic', '=', topic)
    .where('seq', '>', fromSeq)
    .where('seq', '<=', lastSeq)
    .orderBy('seq')
    .execute();
  // Pruning goes by age, so a full range is the only proof that nothing in between was dropped.
  if (rows.length !== lastSeq - fromSeq) return null;
  return rows.map((r) => ({ ...(r.frame as Record<string, unknown>), seq: Number(r.seq) }));
}

async function baseline(tx: Reader, deps: ServiceDeps, accountId: string, topic: AccountTopic): Promise<Record<string, unknown>[]> {
  switch (topic) {
    case 'balances':
      return [await balanceSnapshotFrame(deps, await readBalanceRows(tx, accountId))];
    case 'rfqStatus':
      return rfqStatusBaseline(tx, deps, accountId);
    case 'quotes':
      return quotesBaseline(tx, deps, accountId);
    case 'quoteStatus':
      return quoteStatusBaseline(tx, deps, accountId);
  }
}

/** One `rfqStatus` per open (PENDING or QUOTED) RFQ, oldest first; settled ones are not replayed. */
async function rfqStatusBaseline(tx: Reader, deps: ServiceDeps, accountId: string): Promise<Record<string, unknown>[]> {
  const [rows, reference] = await Promise.all([
    tx.selectFrom('rfqs').selectAll().where('account_id', '=', accountId).where('status', 'in', OPEN_RFQ).orderBy('created_at').orderBy('id').limit(RFQ_BASELINE_LIMIT).execute(),
    deps.refdata.current(),
  ]);
  return rows.map((row) => ({ kind: 'rfqStatus', ...rfqView(row, reference.instruments.get(row.instrument_id)!) }));
}

/** Up to 100 most recent quotes on the account's open RFQs, in their reached status, oldest first. */
async function quotesBaseline(tx: Reader, deps: ServiceDeps, accountId: string): Promise<Record<string, unknown>[]> {
  const [rows, reference] = await Promise.all([
    tx
      .selectFrom('quotes')
      .innerJoin('rfqs', 'rfqs.id', 'quotes.rfq_id')
      .selectAll('quotes')
      .select(['rfqs.instrument_id', 'rfqs.side', 'rfqs.taker_fee_tenth_bp', 'rfqs.fill'])
      .where('rfqs.account_id', '=', accountId)
      .where('rfqs.status', 'in', OPEN_RFQ)
      .orderBy('quotes.received_at', 'desc')
      .orderBy('quotes.id', 'desc')
      .limit(QUOTES_BASELINE_LIMIT)
      .execute(),
    deps.refdata.current(),
  ]);
  return rows.reverse().map((row) => ({ kind: 'quoteUpdate', ...quoteView(row, row, reference.instruments.get(row.instrument_id)!) }));
}

/** The maker's 100 most recent quotes in their current state (Permit2 fields included), oldest first. */
async function quoteStatusBaseline(tx: Reader, deps: ServiceDeps, accountId: string): Promise<Record<string, unknown>[]> {
  const [rows, reference] = await Promise.all([
    tx
      .selectFrom('quotes')
      .innerJoin('rfqs', 'rfqs.id', 'quotes.rfq_id')
      .selectAll('quotes')
      .select(['rfqs.instrument_id', 'rfqs.side', 'rfqs.fill'])
      // By maker_id: the (maker_id, created_at desc) index serves the newest-first read.
      .where('quotes.maker_id', '=', (eb) => eb.selectFrom('makers').select('maker_id').where('account_id', '=', accountId))
      .orderBy('quotes.created_at', 'desc')
      .orderBy('quotes.id', 'desc')
      .limit(QUOTE_STATUS_BASELINE_LIMIT)
      .execute(),
    deps.refdata.current(),
  ]);
  return rows.reverse().map((row) => ({ kind: 'quoteStatus', ...makerQuoteView(row, row, reference.instruments.get(row.instrument_id)!) }));
}
