/**
 * The xchange executor's record of each selected xchange quote (migration 0015): its attempts,
 * the transaction that executed it or why the last attempt did not.
 */
import type { Updateable } from 'kysely';
import type { XchangeExecutionsTable } from './schema.ts';
import type { Reader } from './transaction.ts';

/** Notes the execution's tx hash and/or last error (the custody call's outcome). */
export async function noteXchangeExecution(db: Reader, quoteId: string, fields: Pick<Updateable<XchangeExecutionsTable>, 'tx_hash' | 'last_error'>): Promise<void> {
  await db.updateTable('xchange_executions').set(fields).where('quote_id', '=', quoteId).execute();
}
