/**
 * The perp venue under simulation: the venue simulator (sim/venue) in process, the nodes executing
 * perp RFQs on it, every participant holding a funded perp account there under its own key. The
 * driver's venue faults are the simulator's own fault rules and nonce burning (its control API).
 */
import { InfoClient, HttpTransport } from '@nktkas/hyperliquid';
import type { Address } from 'viem';
import { startVenueSim, type VenueSim } from '../venue/index.ts';
import { VenueSimControl } from '../venue/control.ts';
import type { VenueSettings } from '../../src/runtime/node.ts';

/** The service's builder address in simulated runs (perp quotes carry a 2 bp builder fee). */
export const SIM_BUILDER: Address = '0x00000000000000000000000000000000000000b1';
/** Short look-up bounds: an unclear outcome ends within seconds, inside the run. */
export const SIM_PERP_EXECUTION = { resolveWindowMs: 1500, resolvePollMs: 100, makerLookupMs: 500 };
export const PERP_INSTRUMENT = 'ETH-USDC-PERP';
/** The simulator's ETH (default universe BTC, ETH, SOL). */
export const PERP_COIN = 'ETH';

export class SimVenue {
  readonly sim: VenueSim;
  readonly control: VenueSimControl;
  readonly #info: InfoClient;

  private constructor(sim: VenueSim) {
    this.sim = sim;
    this.control = new VenueSimControl(sim.url);
    this.#info = new InfoClient({ transport: new HttpTransport({ apiUrl: sim.url, timeout: 10_000 }) });
  }

  static async start(seed: number): Promise<SimVenue> {
    return new SimVenue(await startVenueSim({ port: 0, seed }));
  }

  get nodeSettings(): VenueSettings {
    return { url: this.sim.url, network: 'mainnet', builderAddress: SIM_BUILDER };
  }

  /** Perp margin for a participant (its venue account is its own address). */
  async fund(address: string, usdc: string): Promise<void> {
    await this.control.fund({ user: address, account: 'perp', token: 'USDC', amount: usdc });
  }

  /** The account's ETH position size as the venue reports it (signed decimal, '0' when none). */
  async position(address: string): Promise<string> {
    const state = await this.#info.clearinghouseState({ user: address as Address });
    return state.assetPositions.find((p) => p.position.coin === PERP_COIN)?.position.szi ?? '0';
  }

  /** The venue's ETH mid; `fallback` when a venue fault drops the read (a maker quotes from its last level). */
  async mid(fallback: number): Promise<string> {
    try {
      const mids = await this.#info.allMids();
      return mids[PERP_COIN]!;
    } catch {
      return String(fallback);
    }
  }

  async close(): Promise<void> {
    await this.sim.stop();
  }
}
