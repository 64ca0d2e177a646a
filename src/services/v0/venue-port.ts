/**
 * What the `/v0` use cases need from the venue, implemented by the omnibus adapter
 * (`src/venue/omnibus/`). Shapes are the venue's own (`spotMeta`), translated nowhere else.
 */
import type { Selectable } from 'kysely';
import type { V0OrdersTable } from '../../store/schema.ts';

export interface VenueSpotToken {
  name: string;
  fullName: string | null;
  index: number;
  tokenId: string;
  szDecimals: number;
  weiDecimals: number;
  isCanonical: boolean;
  evmContract: { address: string; evm_extra_wei_decimals: number } | null;
}

export interface VenueSpotPair {
  name: string;
  /** [base token index, quote token index]. */
  tokens: [number, number];
  index: number;
}

export interface VenueSpotMeta {
  tokens: VenueSpotToken[];
  universe: VenueSpotPair[];
}

/** The venue could not be reached (timeout, connection refused, 5xx). */
export class VenueUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VenueUnavailableError';
  }
}

export interface V0Venue {
  /** The omnibus venue account holding every `/v0` user's funds. */
  readonly omnibusAddress: string;
  /** The venue's spot tokens and pairs (cached briefly). @throws VenueUnavailableError */
  spotMeta(): Promise<VenueSpotMeta>;
  /** Whether `agent` is an unexpired API wallet of `primary` at the venue. @throws VenueUnavailableError */
  isApiWalletOf(agent: string, primary: string): Promise<boolean>;
  /** Best opposite price x 10^8 on a spot pair's book (asks for a buy), or null when that side is empty. */
  bestOppositePrice(coin: string, side: 'buy' | 'sell'): Promise<bigint | null>;
  /** Answers within a short timeout whether the venue responds now. */
  reachable(): Promise<boolean>;
  /** Committed work is waiting (an order to send, a cancel, a withdrawal): run the worker now.
   * Resolves after its next complete pass. With an order just recorded (its row as committed),
   * that order is placed at once on its own (signed, sent, its fills booked) without reading it
   * back, and the promise resolves when done, so an order never waits behind the rest of a pass. */
  wake(order?: RecordedV0Order): Promise<void>;
}

/** A `/v0` order row as `createOrder` committed it. */
export type RecordedV0Order = Selectable<V0OrdersTable>;

export interface V0Settings {
  /** Default spot fee rates in parts per million, when the operator set none for the account. */
  defaultTakerPpm: number;
  defaultMakerPpm: number;
  /** A wrapped-layout market order's limit: best opposite price moved by this much (ppm). */
  marketSlippagePpm: number;
  /** How far a SIWE `issuedAt` may be from now, either way. */
  loginWindowMs: number;
  /** JWT lifetime (the spec's 24 hours). */
  tokenLifetimeSecs: number;
  siweStatement: string;
}

export const defaultV0Settings: Readonly<V0Settings> = Object.freeze({
  defaultTakerPpm: 700,
  defaultMakerPpm: 200,
  marketSlippagePpm: 50_000,
  loginWindowMs: 5 * 60_000,
  tokenLifetimeSecs: 24 * 3600,
  siweStatement: 'Sign in with Ethereum to the app.',
});

/** The port when no venue is configured: every venue call is unavailable. */
export const noVenue: V0Venue = {
  omnibusAddress: '0x0000000000000000000000000000000000000000',
  spotMeta: () => Promise.reject(new VenueUnavailableError('no venue is configured')),
  isApiWalletOf: () => Promise.reject(new VenueUnavailableError('no venue is configured')),
  bestOppositePrice: () => Promise.reject(new VenueUnavailableError('no venue is configured')),
  reachable: () => Promise.resolve(false),
  wake: () => Promise.resolve(),
};
