/**
 * The row writes of one execution transition, staged so that the transition is one write call
 * (`rfq_perp_write`, src/store/perp-commit-functions.ts) instead of a statement per row and one
 * for the events: each RFQ and quote change is decided as before (apply-effects.ts) and staged
 * here with its frames; `flush` builds the frames in the order the changes were made, each
 * selection's protection count in its place among them, and writes the changes, the frames and
 * the execution's own transition in one call. A row changed twice in one transition (the builder fee found short at
 * the checks: selected, then failed) has its first change written before the second is staged,
 * so every frame shows its own change.
 */
import type { Frame } from '../../domain/frames.ts';
import type { Instrument } from '../../domain/rfq/index.ts';
import { isDeepStrictEqual } from 'node:util';
import { eventsWritten, takeAppendedEvents } from '../../store/outbox.ts';
import { writePerpTransition, type PerpWrite, type PerpWritten, type RowStatusWrite } from '../../store/perp-commit-functions.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { pushFrames } from '../frames.ts';
import { countSelection, type SelectionGuard } from '../protection/selection-guard.ts';
import type { QuoteRow, RfqRow } from '../rfq/rows.ts';

/** The columns a perp transition sets beside a status (the write function sets exactly these). */
const RFQ_FIELDS = new Set(['quoted_at', 'settled_at', 'selected_quote_id', 'failure_code', 'failure_reason', 'sweep_fills']);
const QUOTE_FIELDS = new Set([
  'settlement_deadline_secs', 'position', 'settled_at', 'perp_filled_size', 'perp_fill_avg_px', 'perp_maker_filled_size',
  'maker_pays_amount', 'maker_receives_amount', 'taker_fee', 'taker_total', 'selected_qty',
]);

/** The fields as the write function takes them (JSON): an amount as its integer text. */
function jsonFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]));
}

type Staged =
  | { kind: 'rfq'; write: RowStatusWrite; frames: readonly Frame[] }
  | { kind: 'quote'; write: RowStatusWrite; frames: readonly Frame[] }
  | { kind: 'count'; quoteId: string };

function definedFields(entity: string, allowed: ReadonlySet<string>, fields: object): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    // A column the write function does not set would be silently dropped: refuse it loudly.
    if (!allowed.has(column)) throw new Error(`a perp transition cannot set ${entity}.${column}`);
    set[column] = value;
  }
  return set;
}

export class StagedWrites {
  readonly #tx: Tx;
  readonly #deps: ServiceDeps;
  readonly #instrument: Instrument;
  readonly #now: number;
  #guard: { guard: SelectionGuard; makerAccountId: string } | null;
  #staged: Staged[] = [];
  /** The RFQ and the quotes changed so far, as they are (or will be) written. */
  #rfq: RfqRow;
  readonly #quotes = new Map<string, QuoteRow>();

  /**
   * `guard`: the protection the lock call took for one maker (its selection is counted without a
   * statement to lock it again); another maker's selection locks its own (`countSelection`).
   */
  constructor(tx: Tx, deps: ServiceDeps, t: { rfq: RfqRow; instrument: Instrument; now: number; guard: { guard: SelectionGuard; makerAccountId: string } | null }) {
    this.#tx = tx;
    this.#deps = deps;
    this.#rfq = t.rfq;
    this.#instrument = t.instrument;
    this.#now = t.now;
    this.#guard = t.guard;
  }

  /** Stages the RFQ's change; answers the row as it will be written. */
  async rfq(rfq: RfqRow, to: RfqRow['status'], frames: readonly Frame[], fields: object): Promise<RfqRow> {
    if (this.#staged.some((s) => s.kind === 'rfq' && s.write.id === rfq.id)) await this.flush(null);
    const set = definedFields('rfqs', RFQ_FIELDS, fields);
    this.#staged.push({ kind: 'rfq', write: { id: rfq.id, from: rfq.status, to, fields: jsonFields(set) }, frames });
    this.#rfq = { ...rfq, ...set, status: to, updated_at: this.#now };
    return this.#rfq;
  }

  /** Stages a quote's change; answers the row as it will be written. */
  async quote(quote: QuoteRow, to: QuoteRow['status'], frames: readonly Frame[], fields: object): Promise<QuoteRow> {
    if (this.#staged.some((s) => s.kind === 'quote' && s.write.id === quote.id)) await this.flush(null);
    const set = definedFields('quotes', QUOTE_FIELDS, fields);
    this.#staged.push({ kind: 'quote', write: { id: quote.id, from: quote.status, to, fields: jsonFields(set) }, frames });
    const row = { ...quote, ...set, status: to, updated_at: this.#now };
    this.#quotes.set(row.id, row);
    return row;
  }

  /** Counts a selection toward its maker's protection, in its place among the frames. */
  countSelection(quoteId: string): void {
    this.#staged.push({ kind: 'count', quoteId });
  }

  /**
   * Writes what is staged in one call, with the execution's transition when given (first, and
   * nothing else unless it is still the caller's) and the frames. The frames are built before the
   * call, from the rows as the call writes them (it sets exactly the status, `updated_at` and the
   * staged columns), so they go in the same call; a written row that differs from the one its
   * frames were built from rolls the transaction back.
   */
  async flush(execution: PerpWrite['execution']): Promise<PerpWritten> {
    const staged = this.#staged;
    if (staged.length === 0 && execution === null) return { lost: false, execution: null, rfqs: [], quotes: [], events: [] };
    this.#staged = [];
    const rows = { rfqs: [this.#rfq], quotes: [...this.#quotes.values()], instrumentOf: () => this.#instrument };
    for (const s of staged) {
      if (s.kind === 'count') await this.#count(this.#quotes.get(s.quoteId)!);
      else await pushFrames(this.#tx, this.#deps, s.frames, rows, this.#now);
    }
    const writesOf = (kind: 'rfq' | 'quote') => staged.flatMap((s) => (s.kind === kind ? [s.write] : []));
    const taken = await takeAppendedEvents(this.#tx);
    const written = await writePerpTransition(this.#tx, { now: this.#now, execution, rfqs: writesOf('rfq'), quotes: writesOf('quote'), events: taken.payload });
    if (written.lost) return written;
    eventsWritten(this.#tx, taken, written.events);
    for (const row of [...written.rfqs, ...written.quotes]) {
      const framed = row.id === this.#rfq.id ? this.#rfq : this.#quotes.get(row.id);
      if (!isDeepStrictEqual(row, framed)) throw new Error(`${row.id} was written other than its frames show`);
    }
    return written;
  }

  async #count(quote: QuoteRow): Promise<void> {
    const locked = this.#guard;
    if (locked !== null && locked.makerAccountId === quote.maker_account_id) {
      // Used once: a second count would write the first's selections and trip frame again.
      this.#guard = null;
      locked.guard.count(quote, this.#instrument);
      await locked.guard.flush(this.#tx, this.#now);
    } else {
      await countSelection(this.#tx, quote, this.#instrument, this.#now);
    }
  }
}
