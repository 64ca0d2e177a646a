/**
 * POST /v1/rfq/quotes. A maker's quote or re-quote: the quote keeps its id, its version advances
 * and `receivedAt` is restamped. The RFQ row is read FOR SHARE so quotes on one RFQ proceed in
 * parallel while an accept or auction close (FOR UPDATE) waits for them and sees their result.
 */
import { inTransaction } from '../../store/outbox.ts';
import { sql } from 'kysely';
import { ServiceError } from '../../domain/errors.ts';
import { parseAmount } from '../../domain/money/index.ts';
import {
  assertAuctionOpen,
  checkQuoteLegs,
  checkQuoteTarget,
  quoteAcceptableForMs,
  takerFee,
  takerTotal,
  type Instrument,
  type QuoteLegs,
  type Side,
} from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { emitQuoteStatus, emitQuoteUpdate } from './events.ts';
import { activeMakerFrom, assertApprovedFor, inventoryMode, type MakerRow } from './maker-access.ts';
import { resolveInstrument } from './create-rfq.ts';
import { rfqStatus, rfqTerms, type QuoteRow } from './rows.ts';

export interface SubmitQuoteInput {
  rfqId: string;
  instrumentId: string;
  side: Side;
  makerPays: { token: string; amount: string };
  makerReceives: { token: string; amount: string };
  acceptableForMs?: number | null;
  expiryMs?: number | null;
  xchange?: unknown;
}

function parseLegs(instrument: Instrument, input: SubmitQuoteInput): QuoteLegs {
  const decimals = (token: string) => (token === instrument.base ? instrument.baseDecimals : token === instrument.quote ? instrument.quoteDecimals : null);
  const leg = (name: 'makerPays' | 'makerReceives') => {
    const { token, amount } = input[name];
    const places = decimals(token);
    if (places === null) throw new ServiceError('LEGS_MISMATCH', `${name}.token must be ${instrument.base} or ${instrument.quote}`, { reason: 'token', field: `${name}.token` });
    return { token, amount: parseAmount(amount, places, { field: `${name}.amount`, positive: true }) };
  };
  return { makerPays: leg('makerPays'), makerReceives: leg('makerReceives') };
}

export async function submitQuote(deps: ServiceDeps, accountId: string, input: SubmitQuoteInput): Promise<{ status: 'SUBMITTED'; quoteId: string; version: number }> {
  const now = deps.clock.now();
  const instrument = await resolveInstrument(deps, input.instrumentId);
  const legs = parseLegs(instrument, input);
  const acceptableForMs = quoteAcceptableForMs({ acceptableForMs: input.acceptableForMs ?? null, expiryMs: input.expiryMs ?? null }, now);
  if (input.xchange !== undefined && input.xchange !== null) {
    throw new ServiceError('NOT_AVAILABLE', 'xchange settlement is not available in this deployment yet');
  }
  return inTransaction(deps.db, async (tx) => {
    // One round trip: the RFQ (locked FOR SHARE) and the caller's maker record beside it.
    const found = await tx
      .selectFrom('rfqs')
      .selectAll('rfqs')
      .select(sql<MakerRow | null>`(select to_jsonb(m) from makers m where m.account_id = ${accountId})`.as('maker'))
      .where('rfqs.id', '=', input.rfqId)
      .forShare()
      .executeTakeFirst();
    if (!found) throw new ServiceError('NOT_FOUND', 'no such RFQ');
    const { maker: makerRow, ...rfq } = found;
    const maker = activeMakerFrom(makerRow, now);
    assertApprovedFor(maker, instrument);
    const mode = inventoryMode(maker);
    if (rfq.account_id === accountId) throw new ServiceError('SELF_QUOTE', 'a maker cannot quote on its own RFQ');
    checkQuoteTarget({ instrumentId: rfq.instrument_id, side: rfq.side }, input);
    if (rfqStatus(rfq) !== 'PENDING') throw new ServiceError('RFQ_NOT_PENDING', 'the RFQ is no longer taking quotes', { status: rfq.status });
    assertAuctionOpen(rfq.auction_ends_at, now);
    const terms = rfqTerms(rfq, instrument);
    checkQuoteLegs(terms, legs);
    const fee = takerFee(terms, legs.makerReceives.amount);
    const total = takerTotal(terms, legs);
    const values = {
      maker_pays_token: legs.makerPays.token,
      maker_pays_amount: legs.makerPays.amount,
      maker_receives_token: legs.makerReceives.token,
      maker_receives_amount: legs.makerReceives.amount,
      taker_fee: fee,
      taker_total: total,
      received_at: now,
      acceptable_for_ms: acceptableForMs,
      settlement_mode: mode,
      updated_at: now,
    };
    const quote: QuoteRow | undefined = await tx
      .insertInto('quotes')
      .values({
        id: deps.ids.quoteId(),
        rfq_id: rfq.id,
        maker_id: maker.makerId,
        maker_account_id: accountId,
        version: 1,
        status: 'SUBMITTED',
        ...values,
        settlement_deadline_secs: null,
        permit_signature: null,
        spender: null,
        delivery_deadline_secs: null,
        window_starts_at: null,
        window_ends_at: null,
        xchange: null,
        settled_at: null,
        tx_hash: null,
        created_at: now,
      })
      .onConflict((oc) =>
        oc
          .columns(['rfq_id', 'maker_id'])
          .doUpdateSet((eb) => ({ ...values, version: eb('quotes.version', '+', 1) }))
          .where('quotes.status', '=', 'SUBMITTED'),
      )
      .returningAll()
      .executeTakeFirst();
    if (!quote) throw new ServiceError('QUOTE_NOT_OPEN', 'your quote on this RFQ is no longer open and cannot be re-priced');
    await emitQuoteUpdate(tx, quote, rfq, instrument, now);
    await emitQuoteStatus(tx, quote, rfq, instrument, now);
    return { status: 'SUBMITTED' as const, quoteId: quote.id, version: quote.version };
  });
}
