/**
 * The counterparties a new RFQ names (DESIGN.md section 15): `makers` (only they) or
 * `excludeMakers` (all but them), by alias, resolved before the transaction; and its audience,
 * fixed inside the creating transaction from those and the makers denying the taker then.
 */
import { invalidField } from '../../domain/errors.ts';
import { rfqAudience, type Audience } from '../../domain/rfq/index.ts';
import { makersDenying } from '../../store/maker-conduct.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { makersByAlias } from './maker-profile.ts';

export interface NamedCounterparties {
  /** Maker account ids named by `makers`; null when the RFQ names none (the default broadcast). */
  named: string[] | null;
  /** Maker account ids named by `excludeMakers`. */
  excluded: string[];
  /** The RFQ's audience, read in its creating transaction. */
  audience(tx: Tx, takerAccountId: string): Promise<Audience>;
}

export async function rfqCounterparties(deps: ServiceDeps, input: { makers?: string[] | null; excludeMakers?: string[] | null }): Promise<NamedCounterparties> {
  const makers = input.makers ?? null;
  const exclude = input.excludeMakers ?? null;
  if (makers !== null && exclude !== null) throw invalidField('excludeMakers', 'exclusive', 'name makers or exclude makers, not both');
  const named = makers === null ? null : await makersByAlias(deps, makers, 'makers');
  const excluded = exclude === null ? [] : await makersByAlias(deps, exclude, 'excludeMakers');
  return {
    named,
    excluded,
    async audience(tx, takerAccountId) {
      return rfqAudience({ named, excluded, deniers: await makersDenying(tx, takerAccountId) });
    },
  };
}
