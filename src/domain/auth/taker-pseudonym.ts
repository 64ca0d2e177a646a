/**
 * Takers' pseudonyms (counterparty choice, DESIGN.md section 15): what each maker sees a taker
 * under and names it by in its denylist. Keyed (the key is the runtime's, derived from the server
 * key), hence beside the request-signing HMAC rather than in the pure RFQ domain.
 */
import { createHmac } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const PSEUDONYM = /^tkr_[a-z2-7]{16}$/;

/**
 * The pseudonym `maker` sees `taker` under: `tkr_` and 16 base32 characters (80 bits) of an
 * HMAC keyed by the service's pseudonym key over both account ids. Stable for the pair, so a
 * denial keeps meaning the same taker; keyed per maker, so two makers cannot match their views of
 * one taker; without the key nothing links a pseudonym to an account.
 */
export function takerPseudonym(key: Uint8Array, makerAccountId: string, takerAccountId: string): string {
  const digest = createHmac('sha256', key).update(`${makerAccountId}\n${takerAccountId}`).digest();
  let out = 'tkr_';
  // 10 bytes are 80 bits: exactly 16 groups of 5.
  let bits = 0;
  let value = 0;
  for (let i = 0; i < 10; i++) {
    value = (value << 8) | digest[i]!;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out;
}

export function isTakerPseudonym(text: string): boolean {
  return PSEUDONYM.test(text);
}
