/**
 * One row of the venue's `userNonFundingLedgerUpdates` read as the omnibus's worker needs it: a
 * spot transfer into the omnibus (a `/v0` deposit) or out of it (a withdrawal it sent). Every
 * other row (perp deposits, class transfers, rows missing a field) is null. The real venue
 * writes `token` as a bare name (`"USDC"`) or as `name:tokenId`, and adds `usdcValue`,
 * `nativeTokenFee`, `nonce` and `feeToken`, which nothing here needs.
 */
export interface LedgerUpdate {
  time: number;
  hash: string;
  delta: { type: string; token?: string; amount?: string; user?: string; destination?: string; fee?: string };
}

export type OmnibusTransfer =
  | { kind: 'deposit'; hash: string; from: string; token: string; amount: string }
  | { kind: 'withdrawal'; hash: string; destination: string; token: string; amount: string; fee: string | null };

export function omnibusTransferOf(update: LedgerUpdate, omnibus: string): OmnibusTransfer | null {
  const delta = update.delta;
  if (delta.type !== 'spotTransfer' || !delta.token || !delta.amount || !delta.user || !delta.destination) return null;
  const token = delta.token.split(':')[0]!;
  const self = omnibus.toLowerCase();
  if (delta.destination.toLowerCase() === self && delta.user.toLowerCase() !== self) {
    return { kind: 'deposit', hash: update.hash, from: delta.user, token, amount: delta.amount };
  }
  if (delta.user.toLowerCase() === self) {
    return { kind: 'withdrawal', hash: update.hash, destination: delta.destination, token, amount: delta.amount, fee: delta.fee ? delta.fee : null };
  }
  return null;
}
