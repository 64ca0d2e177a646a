/**
 * What the status writers (rfq-status.ts, quote-status.ts) persist: one entity's transition as
 * decided by its state machine in src/domain, written as a compare-and-set on `from`.
 */
export interface StatusChange<Status extends string, Fields> {
  id: string;
  from: Status;
  to: Status;
  /** Columns the transition sets beside the status (its outcome); none by default. */
  fields?: Fields;
}

/**
 * The row a compare-and-set wrote. The caller holds the row lock, so a row that is no longer in
 * `from` is a bug or a race the lock should have prevented: the transaction is rolled back
 * rather than written over.
 */
export function writtenOrThrow<Row>(row: Row | undefined, entity: string, change: { id: string; from: string }): Row {
  if (!row) throw new Error(`${entity} ${change.id} is no longer ${change.from}: it changed under its lock`);
  return row;
}

/** A batch compare-and-set wrote every row it was meant to, or the transaction is rolled back. */
export function assertBatchWritten(entity: string, written: number, expected: number): void {
  if (written !== expected) throw new Error(`${entity} batch wrote ${written} of ${expected} rows: some changed under their locks`);
}
