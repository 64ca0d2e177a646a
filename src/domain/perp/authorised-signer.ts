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

/** `userRole` of a signer as the venue answers it (`{ role: "agent", data: { user } }` for an API wallet). */
export type SignerRole = { role: 'agent'; user: string } | { role: string };

/**
 * True when the venue says the signer is an API wallet of `account` (`userRole`): how an unnamed
 * API wallet, which `extraAgents` does not list, is recognised. The venue answers `agent` only
 * while the approval stands.
 */
export function isAgentOf(role: SignerRole, account: Address): boolean {
  return role.role === 'agent' && 'user' in role && role.user.toLowerCase() === account.toLowerCase();
}
