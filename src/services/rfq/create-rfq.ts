/**
 * POST /v1/rfq/requests. Validates against the instrument and the spec's rules, then in one
 * transaction: inserts the RFQ (the idempotency key is claimed by a unique index, so a concurrent
 * duplicate replays the winner), locks the taker's funds for an autoAccept spot RFQ, and writes
 * the taker's `rfqStatus` and the makers' `rfq` frames.
 */
import { inTransaction } from '../../store/outbox.ts';
import { ServiceError, invalidField } from '../../domain/errors.ts';
import { parseAmount } from '../../domain/money/index.ts';
import {
  auctionWindowMs,
  minNotionalCheck,
  settlementDeadlineSecs,
  submissionLockAmount,
  submitRfq,
  takerPayToken,
  type Instrument,
  type RfqFill,
  type RfqStatus,
  type Side,
} from '../../domain/rfq/index.ts';
import { lockFunds } from '../../store/ledger.ts';
import { insertIdempotent } from '../../store/idempotent-insert.ts';
import { lockAccountForRfqs, pendingRfqCount } from '../../store/open-rfq-cap.ts';
import type { ServiceDeps } from '../deps.ts';
import type { Tx } from '../../store/transaction.ts';
import { pushFrames } from '../frames.ts';
import { rfqState } from './persist-transition.ts';
import type { RfqRow } from './rows.ts';
import { parsePerpBaseQty } from '../perp/perp-rfq.ts';
import { instrumentNotFound } from '../../domain/rfq/instrument-not-found.ts';
import { rfqCounterparties } from '../conduct/rfq-counterparties.ts';

export interface CreateRfqInput {
  instrumentId: string;
  side: Side;
  baseQty: string;
  quoteLimit?: string | null;
  autoAccept?: boolean;
  windowMs?: number | null;
  windowSecs?: number | null;
  idempotencyKey?: string | null;
  /** Aliases of disclosed makers: only they see the RFQ and may quote. */
  makers?: string[] | null;
  /** Aliases of disclosed makers the RFQ must not reach. */
  excludeMakers?: string[] | null;
  /** `ALL` (default): one maker fills the whole size; `SWEEP`: several makers may. */
  fill?: RfqFill;
  /** SWEEP only: the least the selection must fill (default `baseQty`). */
  minFillQty?: string | null;
}

export interface CreateRfqResult {
  rfqId: string;
  status: RfqStatus;
  auctionEndsAt: number;
  expiresAt: number;
  replayed: boolean;
}

export async function resolveInstrument(deps: ServiceDeps, instrumentId: string): Promise<Instrument> {
  const { instruments } = await deps.refdata.current();
  const instrument = instruments.get(instrumentId);
  if (!instrument) throw instrumentNotFound(instrumentId, instruments.keys());
  return instrument;
}

function result(row: RfqRow, replayed: boolean): CreateRfqResult {
  return { rfqId: row.id, status: row.status, auctionEndsAt: row.auction_ends_at, expiresAt: row.auction_ends_at, replayed };
}

/**
 * Open (PENDING) RFQs per account are capped (DESIGN.md section 11): a taker-driven RFQ locks no
 * funds, so without a cap one account could broadcast any number to every maker. The account row
 * is locked at the start of the transaction so concurrent creations by one account count one
 * after another (exact cap); NO KEY UPDATE, so it does not wait on the rfqs foreign key's share lock.
 * Runs after the insert: an idempotent replay is never refused, and the new row is counted.
 */
async function refuseBeyondOpenCap(tx: Tx, accountId: string, maxOpen: number): Promise<void> {
  const open = await pendingRfqCount(tx, accountId);
  if (open > maxOpen) {
    throw new ServiceError('TOO_MANY_OPEN_RFQS', `at most ${maxOpen} open RFQs per account`, { maxOpenRfqsPerAccount: maxOpen });
  }
}

/**
 * A SWEEP RFQ's `minFillQty` in base units (default `baseQty`; positive, at most `baseQty`, on the
 * base token's grid, on a perp the venue coin's size grid), or null on an ALL RFQ, which takes none.
 */
async function sweepMinFill(deps: ServiceDeps, instrument: Instrument, fill: RfqFill, baseQty: bigint, minFillQty: string | null): Promise<bigint | null> {
  if (fill === 'ALL') {
    if (minFillQty !== null) throw invalidField('minFillQty', 'notAllowed', 'minFillQty is only for fill SWEEP');
    return null;
  }
  if (minFillQty === null) return baseQty;
  const min = instrument.type === 'PERP'
    ? await parsePerpBaseQty(deps, instrument, minFillQty, 'minFillQty')
    : parseAmount(minFillQty, instrument.baseDecimals, { field: 'minFillQty', positive: true });
  if (min > baseQty) throw invalidField('minFillQty', 'aboveBaseQty', 'minFillQty must be at most baseQty');
  return min;
}

export async function createRfq(deps: ServiceDeps, accountId: string, input: CreateRfqInput): Promise<CreateRfqResult> {
  const instrument = await resolveInstrument(deps, input.instrumentId);
  if (!instrument.enabled) throw new ServiceError('INSTRUMENT_DISABLED', `instrument ${input.instrumentId} is disabled`, { instrumentId: input.instrumentId });
  const autoAccept = input.autoAccept ?? false;
  if (instrument.type === 'PERP') {
    if (autoAccept) throw new ServiceError('PERP_AUTO_ACCEPT_UNSUPPORTED', 'autoAccept is not supported on perp instruments');
    if (input.quoteLimit === undefined || input.quoteLimit === null) throw invalidField('quoteLimit', 'required', 'quoteLimit is required on a perp');
  }
  // A perp's size must lie on the venue coin's size grid (no lock, no balance check follow for a perp).
  const baseQty =
    instrument.type === 'PERP'
      ? await parsePerpBaseQty(deps, instrument, input.baseQty)
      : parseAmount(input.baseQty, instrument.baseDecimals, { field: 'baseQty', positive: true });
  const fill = input.fill ?? 'ALL';
  const minFillQty = await sweepMinFill(deps, instrument, fill, baseQty, input.minFillQty ?? null);
  const quoteLimit =
    input.quoteLimit === undefined || input.quoteLimit === null
      ? null
      : parseAmount(input.quoteLimit, instrument.quoteDecimals, { field: 'quoteLimit', positive: true });
  const now = deps.clock.now();
  const settings = await deps.settings.current(now);
  const windowMs = auctionWindowMs({ windowMs: input.windowMs ?? null, windowSecs: input.windowSecs ?? null }, settings.maxWindowMs);
  minNotionalCheck(instrument, input.side, quoteLimit);
  const terms = {
    side: input.side,
    baseQty,
    quoteLimit,
    takerFeeTenthBp: instrument.takerFeeTenthBp,
    autoAccept,
    auctionEndsAt: now + windowMs,
    base: instrument.base,
    quote: instrument.quote,
    instrumentType: instrument.type,
  };
  const lockAmount = autoAccept ? submissionLockAmount(terms) : null;
  const named = await rfqCounterparties(deps, input);
  const fingerprint = JSON.stringify([
    input.instrumentId,
    input.side,
    String(baseQty),
    String(quoteLimit),
    autoAccept,
    input.windowMs ?? null,
    input.windowSecs ?? null,
    // Only present when given, so the fingerprints of RFQs stored before counterparty choice still match their replays.
    ...(named.named !== null || named.excluded.length > 0 ? [named.named, named.excluded] : []),
    // Likewise only on a SWEEP RFQ, so an ALL RFQ's fingerprint is what it always was.
    ...(fill === 'SWEEP' ? [fill, String(minFillQty)] : []),
  ]);
  const idempotencyKey = input.idempotencyKey ?? null;

  const row: RfqRow = {
    id: deps.ids.rfqId(),
    account_id: accountId,
    instrument_id: instrument.instrumentId,
    side: input.side,
    base_qty: baseQty,
    quote_limit: quoteLimit,
    taker_fee_tenth_bp: instrument.takerFeeTenthBp,
    auto_accept: autoAccept,
    status: 'PENDING',
    created_at: now,
    auction_ends_at: terms.auctionEndsAt,
    settlement_deadline_secs: settlementDeadlineSecs(terms.auctionEndsAt, settings.settlementHeadroomSecs),
    quoted_at: null,
    settled_at: null,
    executed_pay_amount: null,
    executed_recv_amount: null,
    taker_fee: null,
    tx_hash: null,
    failure_code: null,
    failure_reason: null,
    selected_quote_id: null,
    idempotency_key: idempotencyKey,
    request_fingerprint: fingerprint,
    updated_at: now,
    // Fixed below, inside the transaction, with the denials then in force.
    audience_only: null,
    audience_except: [],
    fill,
    min_fill_qty: minFillQty,
    sweep_fills: null,
  };

  const created = await inTransaction(deps.db, async (tx) => {
    await lockAccountForRfqs(tx, accountId);
    const audience = await named.audience(tx, accountId);
    row.audience_only = audience.only === null ? null : [...audience.only];
    row.audience_except = [...audience.except];
    const original = await insertIdempotent(tx, 'rfqs', { ...row, sweep_fills: null }, 'rfqId');
    if (original) return { row: original, replayed: true };
    await refuseBeyondOpenCap(tx, accountId, settings.maxOpenRfqsPerAccount);
    if (lockAmount !== null) {
      await lockFunds(tx, {
        lockId: deps.ids.uuid(),
        accountId,
        token: takerPayToken(terms),
        rail: 'EVM',
        amount: lockAmount,
        ownerKind: 'rfq',
        ownerId: row.id,
        at: now,
      });
    }
    await pushFrames(tx, deps, submitRfq(rfqState(row, instrument)).frames, { rfqs: [row], instrumentOf: () => instrument }, now);
    return { row, replayed: false };
  });
  if (!created.replayed) deps.hooks.auctionScheduled(created.row.id, created.row.auction_ends_at);
  return result(created.row, created.replayed);
}
