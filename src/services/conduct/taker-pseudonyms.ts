/**
 * The key takers' pseudonyms are made with (src/domain/rfq/counterparties.ts), derived from the
 * server key by HKDF under a label of its own: the same on every node and thread that shares the
 * key, unrelated to the key that seals API secrets, and gone with the server key (a database dump
 * alone links no pseudonym to an account).
 */
import { hkdfSync } from 'node:crypto';
import { takerPseudonym } from '../../domain/auth/taker-pseudonym.ts';

export interface TakerPseudonyms {
  /** The pseudonym the maker with `makerAccountId` sees the taker with `takerAccountId` under. */
  of(makerAccountId: string, takerAccountId: string): string;
}

export function takerPseudonyms(secretKeyBase64: string): TakerPseudonyms {
  const key = new Uint8Array(hkdfSync('sha256', Buffer.from(secretKeyBase64, 'base64'), Buffer.alloc(0), 'rfq-service taker pseudonyms v1', 32));
  return { of: (makerAccountId, takerAccountId) => takerPseudonym(key, makerAccountId, takerAccountId) };
}
