/**
 * POST /v1/rfq/quotes. A maker's quote or re-quote: the quote keeps its id, its version advances
 * and `receivedAt` is restamped.
 *
 * The hot path is one round trip: the RFQ's immutable terms and the maker record come from
 * per-node caches (quote-caches.ts), the domain checks run here, and one statement
 * (write-quote.ts, group-committed with concurrent quotes) re-checks what can change and writes
 * the quote and its two frames. Only a refusal
 * reads the store again, to say precisely why.
 */
import { ServiceError, invalidField } from '../../domain/errors.ts';
import { parseAmount } from '../../domain/money/index.ts';
import {
  assertAuctionOpen,
  checkQuoteLegs,
  checkSweepQuoteLegs,
  sweepLegFee,
  sweepQuoteTakerTotal,
  quoteQuoteAmount,
  admitQuote,
  checkQuoteTarget,
  transitionQuote,
  quoteAcceptableForMs,
  reaches,
  takerFee,
  takerTotal,
  type Instrument,
  type QuoteKind,
  type QuoteLegs,
  type QuoteSettlementMode,
  type Side,
} from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { assertTimestampClaimed, type DeferredClaim } from '../auth/timestamp-claims.ts';
import { activeMakerFrom, pairOf, type MakerRecord } from './maker-access.ts';
import { resolveInstrument } from './create-rfq.ts';
import { rfqTerms, type QuoteRow, type RfqRow } from './rows.ts';
import { makerQuoteView, openRfqRoute, quoteView } from './views.ts';
import { checkXchangeBundle, type XchangeBundleInput } from './xchange-bundle.ts';
import { assertMayQuote, protectionRefusal } from '../protection/protection-settings.ts';
import { markQuoteDivisible } from '../../store/sweep-quotes.ts';
import { makerQuoteStatus, rfqPhase } from '../../store/rfq-rows.ts';
import { assertNoPerpFields, checkPerpQuote, nonceClaimedError, writePerpQuote, type PerpQuoteWrite } from '../perp/perp-quote.ts';

export interface SubmitQuoteInput {
  rfqId: string;
  instrumentId: string;
  side: Side;
  makerPays: { token: string; amount: string };
  makerReceives: { token: string; amount: string };
  acceptableForMs?: number | null;
  expiryMs?: number | null;
  xchange?: XchangeBundleInput | null;
  /** Perp only, both required there (DESIGN.md 9.2): the maker's signed venue order and its cancel. */
  perpMakerOrder?: unknown;
  perpMakerCancel?: unknown;
  /** SWEEP RFQ only: false lets the quote be cut to what the sweep has left (default true). */
  allOrNone?: boolean | null;
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

/** The maker and its quote's mode by the admission rule, on cached data; a refusal is confirmed against a fresh read first. */
async function quotingMaker(deps: ServiceDeps, accountId: string, instrument: Instrument, now: number, kind: QuoteKind): Promise<{ maker: MakerRecord; mode: QuoteSettlementMode }> {
  const check = (row: Parameters<typeof activeMakerFrom>[0]) => {
    const maker = activeMakerFrom(row, now);
    return { maker, mode: admitQuote(maker, instrument, kind, now) };
  };
  try {
    return check(await deps.quoteCaches.maker(deps.db, accountId, now));
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return check(await deps.quoteCaches.maker(deps.db, accountId, now, true));
  }
}

/** Why the statement wrote nothing, read fresh (refusals only). */
async function explainRefusal(deps: ServiceDeps, rfqId: string, accountId: string, instrument: Instrument, now: number, rfqOpen: boolean, kind: QuoteKind): Promise<ServiceError> {
  if (!rfqOpen) {
    const current = await rfqPhase(deps.db, rfqId);
    if (current.status !== 'PENDING') return new ServiceError('RFQ_NOT_PENDING', 'the RFQ is no longer taking quotes', { status: current.status });
    return new ServiceError('AUCTION_CLOSED', 'the auction has closed', { auctionEndsAt: current.auction_ends_at });
  }
  try {
    await quotingMaker(deps, accountId, instrument, now, kind);
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  // The statement also requires the bundle's signer to still be the registered one.
  if (kind === 'xchange') return new ServiceError('XCHANGE_BUNDLE_INVALID', "adapterSignature does not recover the maker's registered adapterSigner", {
    errors: [{ field: 'xchange.settlement.adapterSignature', reason: 'signer', message: 'the adapterSigner changed' }],
  });
  return new ServiceError('MAKER_NOT_APPROVED', 'this maker may not quote on this RFQ now');
}

/**
 * The statement re-prices only a SUBMITTED quote (the `requote` rule); when it found the maker's
 * quote in another status, the quote machine names the refusal (QUOTE_NOT_OPEN, with the status).
 */
async function refusedRequote(deps: ServiceDeps, rfqId: string, accountId: string): Promise<ServiceError> {
  const status = await makerQuoteStatus(deps.db, rfqId, accountId);
  try {
    transitionQuote(status, 'requote');
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error(`quote of ${accountId} on ${rfqId} is SUBMITTED, yet the statement did not re-price it`);
}

export async function submitQuote(
  deps: ServiceDeps,
  quoter: { accountId: string; address: string },
  input: SubmitQuoteInput,
  claim?: DeferredClaim,
): Promise<{ status: 'SUBMITTED'; quoteId: string; version: number }> {
  const accountId = quoter.accountId;
  const now = deps.clock.now();
  const instrument = await resolveInstrument(deps, input.instrumentId);
  const legs = parseLegs(instrument, input);
  const acceptableForMs = quoteAcceptableForMs({ acceptableForMs: input.acceptableForMs ?? null, expiryMs: input.expiryMs ?? null }, now);
  const bundle = input.xchange ?? null;
  const perpQuote = instrument.type === 'PERP';
  if (perpQuote && bundle !== null) throw invalidField('xchange', 'notAllowed', 'a perp quote carries no xchange bundle');
  if (!perpQuote) assertNoPerpFields(input);
  const kind: QuoteKind = perpQuote ? 'perp' : bundle !== null ? 'xchange' : 'inventory';
  if (bundle !== null && !deps.xchange) {
    throw new ServiceError('NOT_AVAILABLE', 'this deployment operates no xchange settlement adapter');
  }
  const rfq: RfqRow | undefined = await deps.quoteCaches.rfq(deps.db, input.rfqId);
  if (!rfq) throw new ServiceError('NOT_FOUND', 'no such RFQ');
  const { maker, mode } = await quotingMaker(deps, accountId, instrument, now, kind);
  // Counterparty choice: the maker's own denial first (it tells the maker nothing new), then an
  // audience that leaves it out (named makers, excluded, denied at creation): an RFQ it never
  // saw, answered as unknown so that a quote cannot probe whom an RFQ names.
  if (maker.deniedTakers.includes(rfq.account_id)) {
    throw new ServiceError('COUNTERPARTY_DENIED', 'this maker denies the taker of this RFQ', { taker: deps.pseudonyms.of(accountId, rfq.account_id) });
  }
  if (!reaches(openRfqRoute(rfq), accountId)) throw new ServiceError('NOT_FOUND', 'no such RFQ');
  // A quote its settlement mode could never settle (say, a token with no chain address) is refused now rather than failing after it wins.
  await deps.settlement[mode]?.assertQuotable?.(instrument);
  if (rfq.account_id === accountId) throw new ServiceError('SELF_QUOTE', 'a maker cannot quote on its own RFQ');
  checkQuoteTarget({ instrumentId: rfq.instrument_id, side: rfq.side }, input);
  assertAuctionOpen(rfq.auction_ends_at, now);
  const terms = rfqTerms(rfq, instrument);
  const sweep = rfq.fill === 'SWEEP';
  // An xchange bundle fixes the swap's amounts: such a quote cannot be cut.
  if (sweep && bundle !== null && input.allOrNone === false) throw invalidField('allOrNone', 'notAllowed', "an xchange quote's bundle fixes its amounts: it cannot be cut");
  if (!sweep && input.allOrNone !== undefined && input.allOrNone !== null) throw invalidField('allOrNone', 'notAllowed', 'allOrNone is only for an RFQ with fill SWEEP');
  if (sweep) checkSweepQuoteLegs(terms, legs);
  else checkQuoteLegs(terms, legs);
  // A tripped market-maker protection refuses new quotes on its instrument until reset; a quote
  // that races the trip is cancelled by the sweep. The write checks it (refusal
  // `protectionTriggered`); it is read here first only where a check below could refuse the
  // quote for another reason, so that this refusal keeps coming first (an inventory quote has none).
  if (kind !== 'inventory') await assertMayQuote(deps, accountId, instrument.instrumentId);
  const perp: PerpQuoteWrite | null = perpQuote ? await checkPerpQuote(deps, { side: rfq.side, instrument, legs, makerAddress: quoter.address, now, input }) : null;
  if (bundle !== null) {
    const tokens = (await deps.refdata.current()).tokens;
    const leg = (l: { token: string; amount: bigint }) => ({ symbol: l.token, address: tokens.get(l.token)?.address ?? null, amount: l.amount });
    await checkXchangeBundle(deps.xchange!, bundle, {
      makerAddress: quoter.address,
      adapterSigner: maker.adapterSigner,
      makerPays: leg(legs.makerPays),
      makerReceives: leg(legs.makerReceives),
      expirationSecs: rfq.settlement_deadline_secs,
    });
  }

  // The frames are rendered from the row the statement will hold; id and version are filled in by SQL.
  const row: QuoteRow = {
    // xchange: the maker chose the id and signed it into the bundle.
    id: bundle !== null ? bundle.settlement.swapMessage.quoteId : deps.ids.quoteId(),
    rfq_id: rfq.id,
    maker_id: '',
    maker_account_id: accountId,
    version: 0,
    status: 'SUBMITTED',
    maker_pays_token: legs.makerPays.token,
    maker_pays_amount: legs.makerPays.amount,
    maker_receives_token: legs.makerReceives.token,
    maker_receives_amount: legs.makerReceives.amount,
    // A SWEEP quote's fee is in the quote token on both sides (sweep-selection.ts).
    taker_fee: sweep ? sweepLegFee(terms, quoteQuoteAmount(terms.side, legs)) : takerFee(terms, legs.makerReceives.amount),
    taker_total: sweep ? sweepQuoteTakerTotal(terms, legs) : takerTotal(terms, legs),
    received_at: now,
    acceptable_for_ms: acceptableForMs,
    settlement_mode: mode,
    settlement_deadline_secs: null,
    permit_signature: null,
    spender: null,
    delivery_deadline_secs: null,
    window_starts_at: null,
    window_ends_at: null,
    xchange: bundle,
    settled_at: null,
    tx_hash: null,
    created_at: now,
    updated_at: now,
    quote_hash: null,
    position: null,
    perp_filled_size: null,
    perp_fill_avg_px: null,
    perp_maker_filled_size: null,
    divisible_version: null,
    selected_qty: null,
  };
  const allOrNoneField = sweep ? { allOrNone: input.allOrNone ?? true } : {};
  const pendingClaim = claim && !claim.timestampClaimed ? { accessKey: claim.accessKey, signedAt: claim.signedAt } : null;
  const write = {
    claim: pendingClaim,
    quoteId: row.id,
    rfqId: rfq.id,
    takerAccountId: rfq.account_id,
    makerAccountId: accountId,
    instrumentId: instrument.instrumentId,
    pair: pairOf(instrument),
    mode,
    makerPaysToken: row.maker_pays_token,
    makerPaysAmount: row.maker_pays_amount,
    makerReceivesToken: row.maker_receives_token,
    makerReceivesAmount: row.maker_receives_amount,
    takerFee: row.taker_fee,
    takerTotal: row.taker_total,
    acceptableForMs,
    now,
    // On a SWEEP RFQ the frames say what the maker asked; the row lets the quote be cut once
    // markQuoteDivisible has written the version (below).
    takerFrame: { kind: 'quoteUpdate', ...quoteView(row, rfq, instrument), ...allOrNoneField },
    makerFrame: { kind: 'quoteStatus', ...makerQuoteView(row, rfq, instrument), ...allOrNoneField },
    ...(bundle !== null ? { xchange: bundle, adapterSigner: maker.adapterSigner } : {}),
  };
  const outcome = perp !== null ? await writePerpQuote(deps.db, write, perp) : await deps.quoteWriter.write(write);
  // A claimed venue nonce rolled the whole write back, the request's timestamp claim included.
  if (outcome.refusal === 'venueNonceClaimed') throw nonceClaimedError(perp!, 'conflict' in outcome ? outcome.conflict : null);
  if (outcome.refusal === 'keyRevoked') throw new ServiceError('UNAUTHENTICATED', 'access key revoked');
  if (claim) claim.timestampClaimed = true;
  assertTimestampClaimed(!outcome.reused, deps.clock.now());
  if (outcome.refusal === 'protectionTriggered') throw await protectionRefusal(deps, accountId, instrument.instrumentId);
  if (outcome.refusal === 'quoteIdMismatch') {
    throw new ServiceError('XCHANGE_BUNDLE_INVALID', `your quote on this RFQ is ${outcome.quoteId}; the bundle must name it`, {
      errors: [{ field: 'xchange.settlement.swapMessage.quoteId', reason: 'quoteId', message: `quoteId must be ${outcome.quoteId}, the id of your quote on this RFQ` }],
    });
  }
  if (outcome.refusal === 'quoteIdTaken') {
    throw new ServiceError('XCHANGE_BUNDLE_INVALID', 'quoteId is already in use; choose a fresh one', {
      errors: [{ field: 'xchange.settlement.swapMessage.quoteId', reason: 'quoteIdTaken', message: 'quoteId is already in use; choose a fresh one' }],
    });
  }
  if (outcome.quoteId !== null && outcome.version !== null) {
    if (sweep && input.allOrNone === false) await markQuoteDivisible(deps.db, outcome.quoteId, outcome.version);
    return { status: 'SUBMITTED', quoteId: outcome.quoteId, version: outcome.version };
  }
  if (outcome.rfqOpen && outcome.makerAllowed) throw await refusedRequote(deps, rfq.id, accountId);
  throw await explainRefusal(deps, rfq.id, accountId, instrument, now, outcome.rfqOpen, kind);
}
