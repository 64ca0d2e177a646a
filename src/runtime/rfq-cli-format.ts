/**
 * Human output of the taker CLI. Amounts are printed exactly as the server sent them (decimal
 * strings); nothing here does arithmetic on them.
 */
import { isPerpInstrument } from '../client/perp-order.ts';
import type { Balance, Instrument, LedgerView, Quote, Rfq } from '../client/types.ts';

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n');
}

export function balancesTable(balances: Balance[]): string {
  if (balances.length === 0) return 'no balances';
  return table([['TOKEN', 'RAIL', 'AVAILABLE', 'LOCKED', 'TOTAL'], ...balances.map((b) => [b.token, b.rail, b.available, b.locked, b.total])]);
}

export function instrumentsTable(instruments: Instrument[]): string {
  if (instruments.length === 0) return 'no instruments';
  return table([
    ['INSTRUMENT', 'TYPE', 'TAKER FEE (tenth bp)', 'MIN NOTIONAL'],
    ...instruments.map((i) => [i.instrumentId, i.type, String(i.takerFeeTenthBp), i.minQuoteNotional ?? '-']),
  ]);
}

export function ledgerTable(entries: LedgerView[]): string {
  if (entries.length === 0) return 'no ledger entries';
  return table([
    ['TIME', 'TOKEN', 'RAIL', 'DELTA', 'SOURCE'],
    ...entries.map((e) => [new Date(e.createdAt).toISOString(), e.token, e.rail, e.delta, e.source]),
  ]);
}

/** What the taker pays and gets with this quote: `takerTotal` (fee included) for `makerPays`. */
export function quoteLine(quote: Quote, best: boolean): string {
  const terms = `pay ${quote.takerTotal} ${quote.makerReceives.token} (fee incl.), get ${quote.makerPays.amount} ${quote.makerPays.token}`;
  const repriced = quote.version > 1 && quote.status === 'SUBMITTED' ? ' re-priced' : '';
  const state = quote.status === 'SUBMITTED' ? '' : ` ${quote.status}`;
  return `quote ${quote.quoteId} v${quote.version}${repriced}${state}: ${terms}${best ? '  <- best' : ''}`;
}

export function statusLine(rfq: Rfq): string {
  const failure = rfq.failureCode || rfq.failureReason ? ` (${[rfq.failureCode, rfq.failureReason].filter(Boolean).join(': ')})` : '';
  return `status ${rfq.id} ${rfq.status}${failure}${rfq.fills ? `; legs ${rfq.fills.map((f) => `${f.baseQty} ${f.status}`).join(', ')}` : ''}`;
}

/**
 * A SWEEP RFQ's legs, one line each: its quote, the base and quote it moves, its status and
 * transaction; on a perp, the leg's fill as its quote reports it.
 */
function legLines(rfq: Rfq, perpLegs: PerpFillView[] = []): string[] {
  const [base = '?', quote = '?'] = rfq.instrumentId.split('-');
  return (rfq.fills ?? []).map((f) => {
    const fill = perpLegs.find((l) => l.quoteId === f.quoteId);
    const filled = fill ? `, filled ${fill.perpFilledSize ?? '?'} @ ${fill.perpFillAvgPx ?? '?'}` : '';
    return `  leg       ${f.quoteId}: ${f.baseQty} ${base} for ${f.quoteQty} ${quote}, ${f.status}${filled}${f.txHash ? ` (tx ${f.txHash})` : ''}`;
  });
}

/** The pay and receive tokens of an RFQ, from its InstrumentId `<BASE>-<QUOTE>-<TYPE>`. */
function tokens(rfq: Rfq): { pay: string; receive: string } {
  const [base = '?', quote = '?'] = rfq.instrumentId.split('-');
  return rfq.side === 'BUY' ? { pay: quote, receive: base } : { pay: base, receive: quote };
}

/** A perp's fill: on the executed quote, never on the RFQ (spec, "Reading a perp result"). */
export interface PerpFillView {
  quoteId: string;
  perpFilledSize: string | null;
  perpFillAvgPx: string | null;
}

/** A perp SWEEP's fill: each settled leg's, and (when every leg's was read) their sum. */
export interface PerpSweepView {
  filledSize: string | null;
  legs: PerpFillView[];
}

export function outcome(rfq: Rfq, perpFill?: PerpFillView, perpSweep?: PerpSweepView): string {
  const { pay, receive } = tokens(rfq);
  const [base = '?', quote = '?'] = rfq.instrumentId.split('-');
  switch (rfq.status) {
    case 'SETTLED':
      if (perpSweep) {
        return [
          `SETTLED ${rfq.id}`,
          `  ${rfq.side === 'BUY' ? 'bought' : 'sold'}    ${perpSweep.filledSize ?? '?'} ${base} (perp) of ${rfq.baseQty} in ${rfq.fills?.length ?? 0} legs`,
          ...legLines(rfq, perpSweep.legs),
          '  venue fees and builder fee charged on your venue account',
        ].join('\n');
      }
      if (perpFill) {
        return [
          `SETTLED ${rfq.id}`,
          `  ${rfq.side === 'BUY' ? 'bought' : 'sold'}    ${perpFill.perpFilledSize ?? '?'} ${base} (perp) of ${rfq.baseQty}`,
          `  avg price ${perpFill.perpFillAvgPx ?? '?'} ${quote} (venue fees and builder fee charged on your venue account)`,
          `  quote     ${perpFill.quoteId}`,
        ].join('\n');
      }
      return [
        `SETTLED ${rfq.id}`,
        `  paid      ${rfq.executedPayAmount ?? '?'} ${pay} (fee included)`,
        `  fee       ${rfq.takerFee ?? '?'} ${pay}`,
        `  received  ${rfq.executedRecvAmount ?? '?'} ${receive}`,
        // A sweep's transactions are its legs' own.
        ...(rfq.fills ? legLines(rfq) : [`  tx        ${rfq.txHash ?? '-'}`]),
      ].join('\n');
    case 'FAILED':
      return [`FAILED ${rfq.id}: ${rfq.failureCode ?? 'no code'}${rfq.failureReason ? `: ${rfq.failureReason}` : ''}`, ...legLines(rfq)].join('\n');
    case 'CANCELLED':
      return `CANCELLED ${rfq.id}${rfq.failureReason ? `: ${rfq.failureReason}` : ': the auction ended with no quote accepted'}`;
    default:
      return `${rfq.status} ${rfq.id}`;
  }
}

const fillView = (q: Quote): PerpFillView => ({ quoteId: q.quoteId, perpFilledSize: q.perpFilledSize ?? null, perpFillAvgPx: q.perpFillAvgPx ?? null });

/** A perp RFQ's fill, read from its selected quote among `quotes` (the RFQ holds no amounts). */
function perpFillOf(rfq: Rfq, quotes: Quote[]): PerpFillView | undefined {
  if (!isPerpInstrument(rfq.instrumentId) || rfq.fills) return undefined;
  const selected = quotes.find((q) => q.quoteId === rfq.selectedQuoteId);
  return selected ? fillView(selected) : undefined;
}

/** A perp SWEEP's legs' fills, from their quotes among `quotes`; no sum (nothing here does arithmetic). */
function perpSweepOf(rfq: Rfq, quotes: Quote[]): PerpSweepView | undefined {
  if (!isPerpInstrument(rfq.instrumentId) || !rfq.fills) return undefined;
  const legs = rfq.fills.map((f) => quotes.find((q) => q.quoteId === f.quoteId)).filter((q): q is Quote => q !== undefined && q.status === 'SETTLED');
  return { filledSize: null, legs: legs.map(fillView) };
}

export function rfqSummary(rfq: Rfq, quotes: Quote[]): string {
  const lines = [
    `${rfq.id}  ${rfq.side} ${rfq.baseQty} ${rfq.instrumentId}  ${rfq.status}${rfq.autoAccept ? '  autoAccept' : ''}${rfq.quoteLimit ? `  limit ${rfq.quoteLimit}` : ''}`,
    `  auction ends ${new Date(rfq.auctionEndsAt).toISOString()}, settlement deadline ${new Date(rfq.settlementDeadline * 1000).toISOString()}`,
  ];
  if (rfq.status === 'SETTLED' || rfq.status === 'FAILED' || rfq.status === 'CANCELLED') lines.push(outcome(rfq, perpFillOf(rfq, quotes), perpSweepOf(rfq, quotes)).split('\n').map((line) => `  ${line}`).join('\n'));
  for (const quote of quotes) lines.push(`  ${quoteLine(quote, false)}`);
  return lines.join('\n');
}

/** One line of an RFQ's result for the `trades` list: what changed hands, or why nothing did. */
function tradeResult(rfq: Rfq): string {
  const { pay, receive } = tokens(rfq);
  switch (rfq.status) {
    case 'SETTLED':
      // A perp's fill is on its quote (`status <rfqId>` shows it); the RFQ holds no amounts.
      return rfq.executedPayAmount ? `paid ${rfq.executedPayAmount} ${pay}, received ${rfq.executedRecvAmount ?? '?'} ${receive}` : `filled at the venue (quote ${rfq.selectedQuoteId ?? '?'})`;
    case 'FAILED':
      return `${rfq.failureCode ?? 'no code'}${rfq.failureReason ? `: ${rfq.failureReason}` : ''}`;
    case 'CANCELLED':
      return rfq.failureReason ?? 'no quote accepted';
    default:
      return 'open';
  }
}

/** The account's RFQs, newest first as the server lists them, each with its outcome. */
export function tradesTable(rfqs: Rfq[]): string {
  if (rfqs.length === 0) return 'no RFQs yet';
  return table([
    ['TIME', 'RFQ', 'SIDE', 'SIZE', 'INSTRUMENT', 'STATUS', 'OUTCOME'],
    ...rfqs.map((r) => [new Date(r.createdAt).toISOString(), r.id, r.side, r.baseQty, r.instrumentId, r.status, tradeResult(r)]),
  ]);
}
