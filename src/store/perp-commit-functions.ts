/**
 * A perp execution's transition in two database calls instead of ten (with PGlite every
 * statement runs on the node's event loop, and the checks' commit alone was ten of them). The
 * executor (src/services/perp/execute-perp.ts) keeps every decision; each call does one side.
 *
 * `rfq_perp_lock` takes what the decisions read, in the order every selection takes: the RFQ and
 * its quotes through `rfq_accept_lock` (no replay claim: the accept took it); while the RFQ is
 * PENDING, the accepted quote's maker's protection row FOR UPDATE with its selections in the
 * window (`rfq_locked_protections`, the definition the spot accept uses); then the taker order's
 * (signer, nonce) claim, once across quotes and accepts (`venue_nonce_claims`), when asked.
 *
 * `rfq_perp_write` writes the transition: first the execution's new columns and its call records,
 * only if it is still held by the caller in the phase it read (else nothing at all is written and
 * `lost` comes back); then the RFQ's and the quotes' compare-and-set (a row that moved under its
 * lock raises, so the transaction rolls back); last, the transition's events (`rfq_append_events`,
 * the frames built from the rows as they are written). It answers the rows as written and the
 * outbox rows. Per row, `fields` is a JSON object of the columns to set beside the
 * status: `?` tells "set to null" from "leave".
 */
import { sql, type Selectable } from 'kysely';
import { decodeRow, parseExactJson, type NumericColumns } from './json-rows.ts';
import { QUOTE_COLUMNS, RFQ_COLUMNS } from './row-columns.ts';
import { PROTECTION_COLUMNS, type LockedProtection } from './accept-functions.ts';
import type { PerpExecutionsTable, QuotesTable, RfqsTable } from './schema.ts';
import type { Db, Tx } from './transaction.ts';
import type { AppendedRow } from './outbox.ts';

type RfqRow = Selectable<RfqsTable>;
type QuoteRow = Selectable<QuotesTable>;

export type ExecutionRow = Selectable<PerpExecutionsTable>;

export const EXECUTION_COLUMNS: NumericColumns<ExecutionRow> = {
  bigints: {},
  numbers: { quote_version: true, nonce: true, taker_sent_at: true, taker_reply_at: true, lease_until: true, next_at: true, created_at: true, updated_at: true },
  json: { state: true },
};

type Json = Record<string, unknown>;

export interface PerpLocked {
  /** The RFQ of the execution, locked; null when there is none. */
  rfq: RfqRow | null;
  quotes: QuoteRow[];
  /** The accepted quote's maker's protection on the instrument (while PENDING), locked and counted. */
  protections: LockedProtection[];
  /** False when the (signer, nonce) asked for was claimed before (by anyone, for anything). */
  claimed: boolean;
}

export async function lockForPerpCommit(
  tx: Tx,
  request: { rfqId: string; accountId: string; quoteId: string; now: number; nonce: { signer: string; nonce: number } | null },
): Promise<PerpLocked> {
  const { rows } = await sql<{ locked: string }>`
    select rfq_perp_lock(${request.rfqId}::text, ${request.accountId}::uuid, ${request.quoteId}::text, ${request.now}::int8,
      ${request.nonce?.signer ?? null}::text, ${request.nonce?.nonce ?? null}::int8, 'takerOrder')::text as locked
  `.execute(tx);
  const locked = parseExactJson<{ rfq?: Json; quotes?: Json[]; protections?: Json[]; claimed?: boolean }>(rows[0]!.locked);
  return {
    rfq: locked.rfq ? decodeRow(locked.rfq, RFQ_COLUMNS) : null,
    quotes: (locked.quotes ?? []).map((q) => decodeRow(q, QUOTE_COLUMNS)),
    protections: (locked.protections ?? []).map((p) => decodeRow(p, PROTECTION_COLUMNS)),
    claimed: locked.claimed ?? true,
  };
}

/** One row's compare-and-set: from `from` to `to`, with the columns in `fields` (a null sets null). */
export interface RowStatusWrite {
  id: string;
  from: string;
  to: string;
  fields: Record<string, unknown>;
}

export interface PerpWrite {
  now: number;
  /** The execution's transition, guarded by its lease and phase; null: only the RFQ and quotes. */
  execution: { id: string; leaseOwner: string; phase: string; columns: Record<string, unknown>; calls: readonly object[] } | null;
  rfqs: RowStatusWrite[];
  quotes: RowStatusWrite[];
  /** `rfq_append_events`'s argument (outbox.ts `takeAppendedEvents`). */
  events: string;
}

/** The rows as written (null execution: not written, the caller lost it), or `lost`. */
export type PerpWritten = { lost: true } | { lost: false; execution: ExecutionRow | null; rfqs: RfqRow[]; quotes: QuoteRow[]; events: AppendedRow[] };

const statusRows = (writes: RowStatusWrite[]) => JSON.stringify(writes.map((w) => ({ id: w.id, prior: w.from, status: w.to, f: w.fields })));

/** Inside a transaction (`commit`), or alone when it writes only the execution (`commitOwn`). */
export async function writePerpTransition(tx: Tx | Db, write: PerpWrite): Promise<PerpWritten> {
  const e = write.execution;
  const { rows } = await sql<{ written: string }>`
    select rfq_perp_write(${write.now}::int8, ${e?.id ?? null}::text, ${e?.leaseOwner ?? null}::text, ${e?.phase ?? null}::text,
      ${e ? JSON.stringify(e.columns) : null}::jsonb, ${e ? JSON.stringify(e.calls) : '[]'}::jsonb,
      ${statusRows(write.rfqs)}::jsonb, ${statusRows(write.quotes)}::jsonb, ${write.events}::jsonb)::text as written
  `.execute(tx);
  const written = parseExactJson<{ lost: boolean; execution?: Json | null; rfqs?: Json[]; quotes?: Json[]; events?: string }>(rows[0]!.written);
  if (written.lost) return { lost: true };
  return {
    lost: false,
    execution: written.execution ? decodeRow(written.execution, EXECUTION_COLUMNS) : null,
    rfqs: (written.rfqs ?? []).map((r) => decodeRow(r, RFQ_COLUMNS)),
    quotes: (written.quotes ?? []).map((q) => decodeRow(q, QUOTE_COLUMNS)),
    events: JSON.parse(written.events ?? '[]') as AppendedRow[],
  };
}
