/**
 * Who may sign an account's venue orders (spec rule 14; DESIGN.md 9.2): the account's own
 * address, or an API wallet it approved at the venue that has not expired.
 */
import type { Address } from 'viem';

/** An API wallet as the venue's `extraAgents` reports it. */
export interface VenueAgent {
  address: Address;
  /** Unix milliseconds; null when the venue reports no expiry. */
  validUntil: number | null;
}

export function isAuthorisedSigner(signer: Address, account: Address, agents: readonly VenueAgent[], now: number): boolean {
  const lower = signer.toLowerCase();
  if (lower === account.toLowerCase()) return true;
  return agents.some((agent) => agent.address.toLowerCase() === lower && (agent.validUntil === null || agent.validUntil > now));
}
