/**
 * The `/v0` venue port over the omnibus account: spot metadata (cached briefly), API-wallet
 * checks, top of book, reachability, and the wake-up of the omnibus worker.
 */
import { getAddress } from 'viem';
import { PRICE_DECIMALS, venueUnitsDown } from '../../domain/v0/venue-grid.ts';
import type { RecordedV0Order, V0Venue, VenueSpotMeta } from '../../services/v0/venue-port.ts';
import type { VenueHttp } from './venue-http.ts';
import type { VenuePriority } from '../../domain/venue/request-weight.ts';

export interface OmnibusVenueOptions {
  http: VenueHttp;
  omnibusAddress: string;
  /** How long spot metadata is reused. */
  metaTtlMs: number;
  /** Timeout of each info request made on a user's behalf. */
  infoTimeoutMs: number;
  now: () => number;
}

export class OmnibusVenue implements V0Venue {
  readonly omnibusAddress: string;
  readonly #options: OmnibusVenueOptions;
  #meta: { value: VenueSpotMeta; at: number } | null = null;
  #wake: (order?: RecordedV0Order) => Promise<void> = () => Promise.resolve();

  constructor(options: OmnibusVenueOptions) {
    this.#options = options;
    this.omnibusAddress = getAddress(options.omnibusAddress);
  }

  /** The worker registers how to be woken. */
  onWake(wake: (order?: RecordedV0Order) => Promise<void>): void {
    this.#wake = wake;
  }

  wake(order?: RecordedV0Order): Promise<void> {
    return this.#wake(order);
  }

  /** `priority`: a user's request (the default) or the worker's background pass, which may take an older copy (`maxAgeMs`). */
  async spotMeta(priority: VenuePriority = 3, maxAgeMs = this.#options.metaTtlMs): Promise<VenueSpotMeta> {
    const now = this.#options.now();
    if (this.#meta && now - this.#meta.at < maxAgeMs) return this.#meta.value;
    const value = await this.#options.http.info<VenueSpotMeta>({ type: 'spotMeta' }, this.#options.infoTimeoutMs, priority);
    this.#meta = { value, at: now };
    return value;
  }

  async isApiWalletOf(agent: string, primary: string): Promise<boolean> {
    const agents = await this.#options.http.info<Array<{ address: string; name: string; validUntil: number }>>({ type: 'extraAgents', user: primary }, this.#options.infoTimeoutMs, 3);
    const now = this.#options.now();
    return agents.some((a) => a.address.toLowerCase() === agent.toLowerCase() && (!a.validUntil || a.validUntil > now));
  }

  async bestOppositePrice(coin: string, side: 'buy' | 'sell'): Promise<bigint | null> {
    const book = await this.#options.http.info<{ levels: [Array<{ px: string }>, Array<{ px: string }>] }>({ type: 'l2Book', coin }, this.#options.infoTimeoutMs, 3);
    const level = (side === 'buy' ? book.levels[1] : book.levels[0])?.[0];
    return level ? venueUnitsDown(level.px, PRICE_DECIMALS) : null;
  }

  async reachable(): Promise<boolean> {
    try {
      await this.#options.http.info({ type: 'spotMeta' }, Math.min(this.#options.infoTimeoutMs, 2000), 3);
      return true;
    } catch {
      return false;
    }
  }
}
