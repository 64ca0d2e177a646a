/**
 * The audience rule of src/domain/rfq/counterparties.ts (`reaches`) as a condition on `rfqs`, for
 * the reads that must filter in the database to page correctly (the maker's open RFQs, the
 * scorecard's RFQs seen). test/store/rfq-audience.test.ts holds it to the domain's verdict.
 */
import { sql, type Expression, type SqlBool } from 'kysely';

/** True for RFQs (the table unaliased, as `rfqs`) whose audience reaches the maker with this account id. */
export function reachesMaker(makerAccountId: string): Expression<SqlBool> {
  return sql<SqlBool>`((rfqs.audience_only is null or ${makerAccountId}::text = any(rfqs.audience_only)) and not (${makerAccountId}::text = any(rfqs.audience_except)))`;
}

/** True for RFQs whose taker is not in `deniedTakers` (the maker's denylist as it is now). */
export function notDeniedBy(deniedTakers: readonly string[]): Expression<SqlBool> {
  return sql<SqlBool>`not (rfqs.account_id::text = any(${[...deniedTakers]}::text[]))`;
}
