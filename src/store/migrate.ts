/**
 * Applies the schema migrations in order, the same on PGlite and PostgreSQL, then installs the SQL
 * function set (sql-functions.ts). Runs at start; concurrent starters on one PostgreSQL are
 * serialised by Kysely's migration lock and the installer's advisory lock.
 */
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { installSqlFunctions } from './sql-functions.ts';
import * as foundation from './migrations/0001-foundation.ts';
import * as outboxNotify from './migrations/0002-outbox-notify.ts';
import * as notifyOffCommitPath from './migrations/0003-outbox-notify-off-commit-path.ts';
import * as writeQuoteFunction from './migrations/0004-write-quote-function.ts';
import * as hotRequotes from './migrations/0005-hot-requotes.ts';
import * as quoteClaimsTimestamp from './migrations/0006-write-quote-claims-timestamp.ts';
import * as writeQuotesBatch from './migrations/0007-write-quotes-batch.ts';
import * as appendEventsFunction from './migrations/0008-append-events-function.ts';
import * as chainCursors from './migrations/0009-chain-cursors.ts';
import * as settlementObservation from './migrations/0010-settlement-observation.ts';
import * as settlementAnomalies from './migrations/0011-settlement-anomalies.ts';
import * as deposits from './migrations/0012-deposits.ts';
import * as withdrawals from './migrations/0013-withdrawals.ts';
import * as promisedDeliveries from './migrations/0014-promised-deliveries.ts';
import * as xchangeQuotes from './migrations/0015-xchange-quotes.ts';
import * as custodyCalls from './migrations/0016-custody-calls.ts';
import * as perpQuotes from './migrations/0020-perp-quotes.ts';
import * as perpExecutions from './migrations/0023-perp-executions.ts';
import * as v0Venue from './migrations/0026-v0-venue.ts';
import * as adminRfqListing from './migrations/0037-admin-rfq-listing.ts';
import * as custodyTxReplacements from './migrations/0030-custody-tx-replacements.ts';
import * as quarantinedChainLogs from './migrations/0031-quarantined-chain-logs.ts';
import * as openRfqsByAccount from './migrations/0034-open-rfqs-by-account.ts';
import * as challengeSources from './migrations/0035-challenge-sources.ts';
import * as adminV0Listing from './migrations/0043-admin-v0-listing.ts';
import * as perpExecutionListing from './migrations/0052-perp-execution-listing.ts';
import * as makerProtection from './migrations/0055-maker-protection.ts';
import * as custodyCallDeadline from './migrations/0046-custody-call-deadline.ts';
import * as payoutRetries from './migrations/0047-payout-retries.ts';
import * as writeQuotesOneDefinition from './migrations/0061-write-quotes-one-definition.ts';
import * as oneReplayClaim from './migrations/0085-one-replay-claim.ts';
import * as venueActionPerOwner from './migrations/0120-venue-action-per-owner.ts';
import * as acceptAndCloseCalls from './migrations/0150-accept-and-close-calls.ts';
import * as quoteClaimsInOneCall from './migrations/0151-quote-claims-in-one-call.ts';
import * as claimsPlanCached from './migrations/0152-claims-plan-cached.ts';
import * as outboxRowsToCommitter from './migrations/0160-outbox-rows-to-committer.ts';
import * as perpCommitCalls from './migrations/0170-perp-commit-calls.ts';
import * as quoteWriteChecksProtection from './migrations/0175-quote-write-checks-protection.ts';
import * as quotePathGenericPlans from './migrations/0176-quote-path-generic-plans.ts';
import * as perpPathFunctions from './migrations/0180-perp-path-functions.ts';
import * as balanceFramesInCommitOrder from './migrations/0181-balance-frames-in-commit-order.ts';
import * as acceptBatchCalls from './migrations/0182-accept-batch-calls.ts';
import * as relockByOwner from './migrations/0183-relock-by-owner.ts';
import * as closeLockCall from './migrations/0184-close-lock-call.ts';
import * as barredMakers from './migrations/0185-barred-makers.ts';
import * as serviceOutages from './migrations/0186-service-outages.ts';
import * as appendedIdsOnly from './migrations/0187-appended-ids-only.ts';
import * as venueCursors from './migrations/0188-venue-cursors.ts';
import * as v0SessionRevocations from './migrations/0195-v0-session-revocations.ts';
import * as makerKillSwitches from './migrations/0198-maker-kill-switches.ts';
import * as lateRelays from './migrations/0199-late-relays.ts';
import * as priceMarks from './migrations/0201-price-marks.ts';
import * as makerFailuresByTime from './migrations/0202-maker-failures-by-time.ts';
import * as counterparties from './migrations/0203-counterparties.ts';
import * as sqlFunctionSets from './migrations/0204-sql-function-sets.ts';
import * as sweepFills from './migrations/0205-sweep-fills.ts';

const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-outbox-notify': outboxNotify,
  '0003-outbox-notify-off-commit-path': notifyOffCommitPath,
  '0004-write-quote-function': writeQuoteFunction,
  '0005-hot-requotes': hotRequotes,
  '0006-write-quote-claims-timestamp': quoteClaimsTimestamp,
  '0007-write-quotes-batch': writeQuotesBatch,
  '0008-append-events-function': appendEventsFunction,
  '0009-chain-cursors': chainCursors,
  '0010-settlement-observation': settlementObservation,
  '0011-settlement-anomalies': settlementAnomalies,
  '0012-deposits': deposits,
  '0013-withdrawals': withdrawals,
  '0014-promised-deliveries': promisedDeliveries,
  '0015-xchange-quotes': xchangeQuotes,
  '0016-custody-calls': custodyCalls,
  '0020-perp-quotes': perpQuotes,
  '0023-perp-executions': perpExecutions,
  '0026-v0-venue': v0Venue,
  '0030-custody-tx-replacements': custodyTxReplacements,
  '0031-quarantined-chain-logs': quarantinedChainLogs,
  '0034-open-rfqs-by-account': openRfqsByAccount,
  '0035-challenge-sources': challengeSources,
  '0037-admin-rfq-listing': adminRfqListing,
  '0043-admin-v0-listing': adminV0Listing,
  '0046-custody-call-deadline': custodyCallDeadline,
  '0047-payout-retries': payoutRetries,
  '0052-perp-execution-listing': perpExecutionListing,
  '0055-maker-protection': makerProtection,
  '0061-write-quotes-one-definition': writeQuotesOneDefinition,
  '0085-one-replay-claim': oneReplayClaim,
  '0120-venue-action-per-owner': venueActionPerOwner,
  '0150-accept-and-close-calls': acceptAndCloseCalls,
  '0151-quote-claims-in-one-call': quoteClaimsInOneCall,
  '0152-claims-plan-cached': claimsPlanCached,
  '0160-outbox-rows-to-committer': outboxRowsToCommitter,
  '0170-perp-commit-calls': perpCommitCalls,
  '0175-quote-write-checks-protection': quoteWriteChecksProtection,
  '0176-quote-path-generic-plans': quotePathGenericPlans,
  '0180-perp-path-functions': perpPathFunctions,
  '0181-balance-frames-in-commit-order': balanceFramesInCommitOrder,
  '0182-accept-batch-calls': acceptBatchCalls,
  '0183-relock-by-owner': relockByOwner,
  '0184-close-lock-call': closeLockCall,
  '0185-barred-makers': barredMakers,
  '0186-service-outages': serviceOutages,
  '0187-appended-ids-only': appendedIdsOnly,
  '0188-venue-cursors': venueCursors,
  '0195-v0-session-revocations': v0SessionRevocations,
  '0198-maker-kill-switches': makerKillSwitches,
  '0199-late-relays': lateRelays,
  '0201-price-marks': priceMarks,
  '0202-maker-failures-by-time': makerFailuresByTime,
  '0203-counterparties': counterparties,
  '0204-sql-function-sets': sqlFunctionSets,
  '0205-sweep-fills': sweepFills,
};

class InCodeMigrations implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

/** Migrates, then installs the function set; answers the names of the migrations applied now. */
export async function migrateToLatest<T>(db: Kysely<T>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new InCodeMigrations() });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  await installSqlFunctions(db);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

export const migrationNames = Object.keys(migrations);
