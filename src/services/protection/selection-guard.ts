/**
 * Market-maker protection inside a selection transaction (accept or auction close). The guard
 * locks the protection rows of every (maker, instrument) the transaction may select, in key
 * order, after the RFQ and quote rows (the order every selection takes), and reads the
 * selections each counted within its window. So two selections at once on the last unit of
 * headroom serialise on the row: the first trips it, the second sees it tripped and may not
 * select that maker's quote (its open quotes are being cancelled, protection-sweep.ts).
 */
import { appendEvent } from '../../store/outbox.ts';
import { lockProtections, recordSelections, selectionsAfter, tripProtection, type GuardedProtection } from '../../store/protection-selections.ts';
import type { Tx } from '../../store/transaction.ts';
import type { LockedProtection } from '../../store/accept-functions.ts';
import { protectionTrip, quoteNotional, type ProtectionLimits, type ProtectionReason, type SelectedInWindow } from '../../domain/rfq/maker-protection.ts';
import type { Instrument } from '../../domain/rfq/index.ts';
import type { QuoteRow } from '../rfq/rows.ts';

interface GuardedState {
  makerAccountId: string;
  instrumentId: string;
  limits: ProtectionLimits;
  triggeredAt: number | null;
  selected: SelectedInWindow;
  counted: Array<{ quoteId: string; notional: bigint }>;
  /** Set when this transaction trips the setting. */
  tripped: ProtectionReason | null;
}

const keyOf = (makerAccountId: string, instrumentId: string) => `${makerAccountId}\u0000${instrumentId}`;

export class SelectionGuard {
  private readonly states: Map<string, GuardedState>;
  /** Makers that may not be selected at all: inactive or suspended (`rfq_barred_makers`). */
  private readonly barredMakers: ReadonlySet<string>;

  private constructor(states: Map<string, GuardedState>, barred: Iterable<string> = []) {
    this.states = states;
    this.barredMakers = new Set(barred);
  }

  /**
   * Locks and reads the settings of these (maker, instrument) pairs; pairs without one are free.
   * `barred` are the makers the caller found barred (`rfq_barred_makers`).
   */
  static async lock(tx: Tx, pairs: Array<{ makerAccountId: string; instrumentId: string }>, now: number, barred: readonly string[] = []): Promise<SelectionGuard> {
    const states = new Map<string, GuardedState>();
    const unique = [...new Map(pairs.map((p) => [keyOf(p.makerAccountId, p.instrumentId), p])).values()];
    if (unique.length === 0) return new SelectionGuard(states, barred);
    const rows = await lockProtections(tx, unique);
    for (const row of rows) {
      const selected = row.triggered_at !== null ? { count: 0, notional: 0n } : await selectionsAfter(tx, row.maker_account_id, row.instrument_id, now - row.window_ms);
      states.set(keyOf(row.maker_account_id, row.instrument_id), stateOf(row, selected));
    }
    return new SelectionGuard(states, barred);
  }

  /**
   * A guard over protection rows the caller's transaction already locked and counted, in the
   * same order and with the same reading as `lock` (the accepts' and the auction close's lock
   * calls: `rfq_accept_lock`, `rfq_accept_batch_lock`, `rfq_close_lock` in src/store), and the
   * makers those calls found barred.
   */
  static fromLocked(rows: LockedProtection[], barred: readonly string[] = []): SelectionGuard {
    const states = new Map<string, GuardedState>();
    for (const row of rows) {
      const selected = row.triggered_at !== null ? { count: 0, notional: 0n } : { count: row.selected_count, notional: row.selected_notional };
      states.set(keyOf(row.maker_account_id, row.instrument_id), stateOf(row, selected));
    }
    return new SelectionGuard(states, barred);
  }

  /** False for a barred maker, and once this maker's protection on the instrument has tripped (in this transaction or before). */
  maySelect(makerAccountId: string, instrumentId: string): boolean {
    if (this.barredMakers.has(makerAccountId)) return false;
    const state = this.states.get(keyOf(makerAccountId, instrumentId));
    return !state || (state.triggeredAt === null && state.tripped === null);
  }

  /** True when this maker is inactive or suspended: its quotes are refused whatever else happens. */
  barred(makerAccountId: string): boolean {
    return this.barredMakers.has(makerAccountId);
  }

  /**
   * True when this maker's protection on the instrument had tripped before this transaction (so a
   * refusal by `maySelect` stands whatever else the transaction decides).
   */
  trippedBefore(makerAccountId: string, instrumentId: string): boolean {
    const state = this.states.get(keyOf(makerAccountId, instrumentId));
    return state !== undefined && state.triggeredAt !== null;
  }

  /** Counts a selection decided in this transaction; it may trip the setting (written by `flush`). */
  count(quote: QuoteRow, instrument: Instrument): void {
    const state = this.states.get(keyOf(quote.maker_account_id, instrument.instrumentId));
    if (!state || state.triggeredAt !== null) return;
    const notional = quoteNotional(instrument, {
      makerPays: { token: quote.maker_pays_token, amount: quote.maker_pays_amount },
      makerReceives: { token: quote.maker_receives_token, amount: quote.maker_receives_amount },
    });
    state.counted.push({ quoteId: quote.id, notional });
    state.selected = { count: state.selected.count + 1, notional: state.selected.notional + notional };
    state.tripped ??= protectionTrip(state.limits, state.selected);
  }

  /** Writes the counted selections and any trip, with the maker's `protection` frame on `quoteStatus`. */
  async flush(tx: Tx, now: number): Promise<void> {
    for (const state of this.states.values()) {
      if (state.counted.length === 0) continue;
      await recordSelections(tx, { makerAccountId: state.makerAccountId, instrumentId: state.instrumentId, windowMs: state.limits.windowMs }, state.counted, now);
      if (state.tripped === null) continue;
      await tripProtection(tx, state.makerAccountId, state.instrumentId, state.tripped, now);
      await appendEvent(tx, { accountId: state.makerAccountId, topic: 'quoteStatus', frame: { kind: 'protection', instrumentId: state.instrumentId, triggeredAt: now, reason: state.tripped } }, now);
    }
  }
}

function stateOf(row: GuardedProtection, selected: SelectedInWindow): GuardedState {
  return {
    makerAccountId: row.maker_account_id,
    instrumentId: row.instrument_id,
    limits: { windowMs: row.window_ms, maxSelectedQuotes: row.max_selected_quotes, maxSelectedNotional: row.max_selected_notional },
    triggeredAt: row.triggered_at,
    selected,
    counted: [],
    tripped: null,
  };
}

/**
 * A selection that already happened elsewhere (a perp quote selected once its venue order filled):
 * it cannot be refused, only counted, and may trip the setting.
 */
export async function countSelection(tx: Tx, quote: QuoteRow, instrument: Instrument, now: number): Promise<void> {
  const guard = await SelectionGuard.lock(tx, [{ makerAccountId: quote.maker_account_id, instrumentId: instrument.instrumentId }], now);
  guard.count(quote, instrument);
  await guard.flush(tx, now);
}
