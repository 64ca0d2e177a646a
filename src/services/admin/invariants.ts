/**
 * The ledger's invariants (src/store/ledger-invariants.ts holds their queries) and the checks other
 * modules contribute, run together: `ok` when none finds a violation.
 */
import { ledgerInvariantViolations, type Violation } from '../../store/ledger-invariants.ts';
import type { Reader } from '../../store/transaction.ts';

export type { Violation } from '../../store/ledger-invariants.ts';

/** Extra checks contributed by other modules (withdrawals, chain custody). */
export type ExtraInvariant = (db: Reader) => Promise<Violation[]>;

export async function checkInvariants(db: Reader, extra: ExtraInvariant[] = []): Promise<{ ok: boolean; violations: Violation[] }> {
  const violations: Violation[] = await ledgerInvariantViolations(db);
  for (const more of extra) violations.push(...(await more(db)));
  return { ok: violations.length === 0, violations };
}
