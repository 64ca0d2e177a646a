/**
 * The venue calls perp execution makes (DESIGN.md 9.3). The runtime passes the venue adapter
 * (`src/venue/venue-client.ts`, which has all of them, each bounded by a timeout); services never
 * import it. Replies stay raw and are classified by `domain/perp/order-outcome.ts`. Refusals come
 * back as replies; only a transport failure or a timeout throws, and then the outcome is unclear.
 */
import type { SignedVenueAction, VenueNetwork } from '../../domain/perp/types.ts';
import type { SignerRole, VenueAgent } from '../../domain/perp/authorised-signer.ts';

type Address = `0x${string}`;

export interface ExecutionVenue {
  /** `meta` read now, never cached (rule 4: `a` is re-read on each accept). */
  freshMeta(): Promise<{ universe: readonly { name: string; szDecimals: number }[] }>;
  extraAgents(user: Address): Promise<readonly VenueAgent[]>;
  /** What the venue says `user` is: an unnamed API wallet names its account here. */
  userRole(user: Address): Promise<SignerRole>;
  /** Never cached: the approval must be the one in force at the accept. */
  maxBuilderFee(user: Address, builder: Address): Promise<number>;
  orderStatusByCloid(user: Address, cloid: Address): Promise<unknown>;
  userFillsByTime(user: Address, startMs: number): Promise<unknown>;
  sendExchange(signed: SignedVenueAction): Promise<unknown>;
}

export interface PerpExecutionSettings {
  venue: ExecutionVenue;
  network: VenueNetwork;
  /** Lower-case; null when the environment has none (then no quote carries a builder fee). */
  builderAddress: Address | null;
  /** RFQ_PERP_RESOLVE_WINDOW_MS: how long an unclear taker outcome is looked up by cloid. */
  resolveWindowMs: number;
  /** This node's name in leases (unique per process). */
  nodeId: string;
  /** How long a node owns an execution between commits; longer than any venue call's timeout. */
  leaseMs: number;
  /** Between look-ups while resolving. */
  resolvePollMs: number;
  /** How long an unclear maker order, or a taker order refused for a duplicate nonce, is looked up by cloid before it counts as not placed. */
  makerLookupMs: number;
}
