/** The persisted position of a chain follower (migration 0009). */
import type { Reader, Tx } from './transaction.ts';

/** The node's chain follower; its cursor time is the final chain time deadlines are judged on. */
export const MAIN_CHAIN_CURSOR = 'main';

export interface ChainCursor {
  name: string;
  blockNumber: number;
  /** Empty when the follower started before this block and never saw it (no reorg check possible). */
  blockHash: string;
  /** Unix seconds of that block: the latest final chain time the service knows. */
  blockTimestampSecs: number;
}

export async function readCursor(db: Reader, name: string): Promise<ChainCursor | null> {
  const row = await db.selectFrom('chain_cursors').selectAll().where('name', '=', name).executeTakeFirst();
  return row ? { name, blockNumber: row.block_number, blockHash: row.block_hash, blockTimestampSecs: row.block_timestamp } : null;
}

/** Locks the cursor row for one step; null if absent. Two nodes following one chain take turns here. */
export async function lockCursor(tx: Tx, name: string): Promise<ChainCursor | null> {
  const row = await tx.selectFrom('chain_cursors').selectAll().where('name', '=', name).forUpdate().executeTakeFirst();
  return row ? { name, blockNumber: row.block_number, blockHash: row.block_hash, blockTimestampSecs: row.block_timestamp } : null;
}

/** The cursor's block, its row read FOR SHARE so the follower cannot pass it before the transaction ends; null if absent. */
export async function sharedCursorBlock(tx: Tx, name: string): Promise<number | null> {
  const row = await tx.selectFrom('chain_cursors').select('block_number').where('name', '=', name).forShare().executeTakeFirst();
  return row ? row.block_number : null;
}

export async function initCursor(db: Reader, cursor: ChainCursor, at: number): Promise<void> {
  await db
    .insertInto('chain_cursors')
    .values({ name: cursor.name, block_number: cursor.blockNumber, block_hash: cursor.blockHash, block_timestamp: cursor.blockTimestampSecs, updated_at: at })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

export async function advanceCursor(tx: Tx, cursor: ChainCursor, at: number): Promise<void> {
  await tx
    .updateTable('chain_cursors')
    .set({ block_number: cursor.blockNumber, block_hash: cursor.blockHash, block_timestamp: cursor.blockTimestampSecs, updated_at: at })
    .where('name', '=', cursor.name)
    .execute();
}
