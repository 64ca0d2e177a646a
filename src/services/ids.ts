/**
 * Identifier minting. RFQ, quote, deposit and withdrawal ids are a prefix plus a UUIDv7
 * (time-ordered, so ids sort by creation and index locality stays good).
 */
import { randomFillSync, randomUUID } from 'node:crypto';

/**
 * Random bytes drawn from the CSPRNG a few thousand at a time and handed out ten per id, as Node's
 * own `randomUUID` does: one `randomBytes(16)` per id cost a system call each, about 2% of a
 * re-quote's CPU in the service. The bytes are just as random; they are only drawn early.
 */
const POOL_BYTES = 4090;
let pool = Buffer.alloc(0);
let taken = 0;
/** The id's 16 bytes, rewritten by each call: read before the next. */
const scratch = Buffer.alloc(16);

export function uuidv7(nowMs: number = Date.now()): string {
  if (taken + 10 > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    taken = 0;
  }
  // 48-bit big-endian milliseconds (exact in a double up to 2^53), then 74 random bits around
  // the version (7) and variant (10) fields.
  let ms = nowMs;
  for (let i = 5; i >= 0; i--) {
    scratch[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  pool.copy(scratch, 6, taken, taken + 10);
  taken += 10;
  scratch[6] = (scratch[6]! & 0x0f) | 0x70;
  scratch[8] = (scratch[8]! & 0x3f) | 0x80;
  const hex = scratch.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface IdSource {
  uuid(): string;
  rfqId(): string;
  quoteId(): string;
  depositId(): string;
  withdrawalId(): string;
}

export const systemIds: IdSource = {
  uuid: () => uuidv7(),
  rfqId: () => `rfq_${uuidv7()}`,
  quoteId: () => `qt_${uuidv7()}`,
  depositId: () => `dep_${uuidv7()}`,
  withdrawalId: () => `wd_${uuidv7()}`,
};

export function randomUuidV4(): string {
  return randomUUID();
}
