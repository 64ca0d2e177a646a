/**
 * Identifier minting. RFQ, quote, deposit and withdrawal ids are a prefix plus a UUIDv7
 * (time-ordered, so ids sort by creation and index locality stays good).
 */
import { randomBytes, randomUUID } from 'node:crypto';

export function uuidv7(nowMs: number = Date.now()): string {
  const bytes = randomBytes(16);
  const ms = BigInt(nowMs);
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
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
