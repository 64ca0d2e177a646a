/**
 * PUT /admin/v1/settings: every operator setting within its floor and ceiling, and the settings
 * consistent with each other, checked on the merged result before anything is written. A value
 * the service cannot run with (a zero auction window made every RFQ creation fail) is refused
 * with 400 INVALID_REQUEST naming the field, and nothing changes.
 */
import { invalidRequest, type FieldError } from '../../domain/errors.ts';
import { MIN_WINDOW_MS } from '../../domain/rfq/window.ts';
import { readSettings, writeSettings, type OperatorSettings } from '../../store/settings.ts';

import type { ServiceDeps } from '../deps.ts';

/** Inclusive bounds per setting (units in the names). */
export const settingBounds: Readonly<Record<keyof OperatorSettings, { min: number; max: number }>> = Object.freeze({
  maxWindowMs: { min: MIN_WINDOW_MS, max: 600_000 },
  // 1 s: a devnet with 1 s blocks settles within it, and tests let a settlement lapse on purpose.
  settlementHeadroomSecs: { min: 1, max: 86_400 },
  makerFailureThreshold: { min: 1, max: 1000 },
  makerFailureWindowMs: { min: 1000, max: 30 * 86_400_000 },
  makerSuspensionBaseMs: { min: 1000, max: 7 * 86_400_000 },
  maxOpenRfqsPerAccount: { min: 1, max: 10_000 },
  relayGraceSecs: { min: 1, max: 86_400 },
  // 10,000 bp lets a price fall to nothing or double; 0 turns the band off.
  ladderBandBps: { min: 0, max: 10_000 },
});

/**
 * An RFQ must be settled or failed within a day of its creation: the longest auction plus the
 * settlement headroom may not pass this (it bounds every lock and Permit2 deadline).
 */
export const MAX_RFQ_LIFETIME_SECS = 86_400;

export function settingsProblems(settings: OperatorSettings): FieldError[] {
  const problems: FieldError[] = [];
  for (const [key, { min, max }] of Object.entries(settingBounds) as Array<[keyof OperatorSettings, { min: number; max: number }]>) {
    const value = settings[key];
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      problems.push({ field: key, reason: 'range', message: `${key} must be an integer from ${min} to ${max}` });
    }
  }
  if (Math.ceil(settings.maxWindowMs / 1000) + settings.settlementHeadroomSecs > MAX_RFQ_LIFETIME_SECS) {
    problems.push({
      field: 'settlementHeadroomSecs',
      reason: 'range',
      message: `maxWindowMs (in seconds) plus settlementHeadroomSecs must be at most ${MAX_RFQ_LIFETIME_SECS}`,
    });
  }
  return problems;
}

export async function changeSettings(deps: ServiceDeps, changes: Partial<OperatorSettings>): Promise<OperatorSettings> {
  const written = await deps.db.transaction().execute(async (tx) => {
    const merged = { ...(await readSettings(tx)), ...changes };
    const problems = settingsProblems(merged);
    if (problems.length > 0) throw invalidRequest(problems, problems.map((p) => p.message).join('; '));
    await writeSettings(tx, changes);
    return merged;
  });
  deps.settings.invalidate();
  return written;
}
