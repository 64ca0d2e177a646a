/**
 * The maker's market-maker protection settings (DESIGN.md section 11):
 * `PUT /v1/rfq/maker/protection` replaces one instrument's setting (at least one limit; a tripped
 * setting stays tripped), `GET` lists them, `POST .../reset` clears a trip and the selections it
 * counted, so the window starts afresh. A tripped setting refuses new quotes on its instrument
 * (409 MAKER_PROTECTION_TRIGGERED, `assertMayQuote`). A setting with `frozenMs` re-arms itself
 * that long after its trip (DESIGN.md section 15), by every node's protection sweep
 * (`rearmFrozenProtections`), as the reset would.
 */
import { ServiceError, invalidField } from '../../domain/errors.ts';
import { formatAmount, parseAmount } from '../../domain/money/index.ts';
import type { Reader } from '../../store/transaction.ts';
import { frozenProtectionsDue, protectionsOf, rearmProtection, trippedProtection, upsertProtection, type ProtectionRow } from '../../store/maker-protections.ts';
import type { ServiceDeps } from '../deps.ts';
import { resolveInstrument } from '../rfq/create-rfq.ts';

export interface ProtectionInput {
  instrumentId: string;
  windowMs: number;
  maxSelectedQuotes?: number | null;
  maxSelectedNotional?: string | null;
  /** Re-arm this long after a trip; absent, null or 0 keeps the manual reset. */
  frozenMs?: number | null;
}

export interface ProtectionView {
  instrumentId: string;
  windowMs: number;
  maxSelectedQuotes: number | null;
  /** Decimal string in the instrument's quote token. */
  maxSelectedNotional: string | null;
  /** When a limit was reached; null while armed. */
  triggeredAt: number | null;
  /** Which limit tripped it (`maxSelectedQuotes` or `maxSelectedNotional`); null while armed. */
  reason: string | null;
  /** A trip re-arms itself this long after `triggeredAt`; null: only the reset lifts it. */
  frozenMs: number | null;
}

async function toView(deps: ServiceDeps, row: ProtectionRow): Promise<ProtectionView> {
  const instrument = (await deps.refdata.current()).instruments.get(row.instrument_id);
  return {
    instrumentId: row.instrument_id,
    windowMs: row.window_ms,
    maxSelectedQuotes: row.max_selected_quotes,
    // An instrument removed since keeps its setting readable in smallest units.
    maxSelectedNotional: row.max_selected_notional === null ? null : formatAmount(row.max_selected_notional, instrument?.quoteDecimals ?? 0),
    triggeredAt: row.triggered_at,
    reason: row.trigger_reason,
    frozenMs: row.frozen_ms,
  };
}

export async function putProtection(deps: ServiceDeps, accountId: string, input: ProtectionInput): Promise<ProtectionView> {
  const instrument = await resolveInstrument(deps, input.instrumentId);
  const maxSelectedQuotes = input.maxSelectedQuotes ?? null;
  const maxSelectedNotional =
    input.maxSelectedNotional === undefined || input.maxSelectedNotional === null
      ? null
      : parseAmount(input.maxSelectedNotional, instrument.quoteDecimals, { field: 'maxSelectedNotional', positive: true });
  if (maxSelectedQuotes === null && maxSelectedNotional === null) {
    throw invalidField('maxSelectedQuotes', 'required', 'at least one of maxSelectedQuotes and maxSelectedNotional is required');
  }
  const frozenMs = input.frozenMs ? input.frozenMs : null;
  const now = deps.clock.now();
  // A replacement keeps a trip: only the reset lifts it.
  const row = await upsertProtection(deps.db, { makerAccountId: accountId, instrumentId: instrument.instrumentId, windowMs: input.windowMs, maxSelectedQuotes, maxSelectedNotional, frozenMs, now });
  return toView(deps, row);
}

export async function listProtections(deps: ServiceDeps, accountId: string, db: Reader = deps.db): Promise<ProtectionView[]> {
  const rows = await protectionsOf(db, accountId);
  return Promise.all(rows.map((row) => toView(deps, row)));
}

export async function resetProtection(deps: ServiceDeps, accountId: string, instrumentId: string): Promise<ProtectionView> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (tx) => {
    const row = await rearmProtection(tx, { makerAccountId: accountId, instrumentId, now, frozenUntil: null });
    if (!row) throw new ServiceError('NOT_FOUND', `no protection setting for ${instrumentId}`, { instrumentId });
    return toView(deps, row);
  });
}

/**
 * Re-arms the tripped settings whose `frozenMs` has passed, as the maker's reset does; answers
 * how many. Runs on every node's protection sweep, so a trip stays at most a sweep past its
 * `frozenMs`; two nodes re-arming one setting at once leave it re-armed once.
 */
export async function rearmFrozenProtections(deps: ServiceDeps): Promise<number> {
  const now = deps.clock.now();
  const due = await frozenProtectionsDue(deps.db, now);
  let rearmed = 0;
  for (const setting of due) {
    const row = await deps.db.transaction().execute((tx) => rearmProtection(tx, { makerAccountId: setting.maker_account_id, instrumentId: setting.instrument_id, now, frozenUntil: now }));
    if (row) rearmed++;
  }
  return rearmed;
}

/** 409 MAKER_PROTECTION_TRIGGERED while this maker's protection on the instrument is tripped. */
export async function assertMayQuote(deps: ServiceDeps, accountId: string, instrumentId: string): Promise<void> {
  const row = await trippedProtection(deps.db, accountId, instrumentId);
  if (row) throw protectionTriggered(instrumentId, row);
}

/**
 * The refusal of a quote the write found tripped (the quote write checks it: src/store/
 * sql/rfq_write_quotes.sql), with when and why read now; a reset in between leaves them null.
 */
export async function protectionRefusal(deps: ServiceDeps, accountId: string, instrumentId: string): Promise<ServiceError> {
  return protectionTriggered(instrumentId, (await trippedProtection(deps.db, accountId, instrumentId)) ?? { triggered_at: null, trigger_reason: null });
}

function protectionTriggered(instrumentId: string, row: { triggered_at: number | null; trigger_reason: string | null }): ServiceError {
  return new ServiceError('MAKER_PROTECTION_TRIGGERED', `your protection on ${instrumentId} tripped; POST /v1/rfq/maker/protection/reset to quote again`, {
    instrumentId,
    triggeredAt: row.triggered_at,
    reason: row.trigger_reason,
  });
}
