// Starts an in-process venue simulator and SDK clients pointed at it.
import { ExchangeClient, HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startVenueSim, type VenueSim, type VenueSimOptions } from '../../../sim/venue/index.ts';
import { VenueSimControl } from '../../../sim/venue/control.ts';

export type SimFixture = {
  sim: VenueSim;
  control: VenueSimControl;
  transport: HttpTransport;
  info: InfoClient;
  exchange(wallet: PrivateKeyAccount, options?: { timeoutMs?: number }): ExchangeClient;
};

export async function startSim(options: VenueSimOptions = {}): Promise<SimFixture> {
  const sim = await startVenueSim({ dataDir: null, port: 0, ...options });
  const transport = new HttpTransport({ apiUrl: sim.url, timeout: 5_000 });
  return {
    sim,
    control: new VenueSimControl(sim.url),
    transport,
    info: new InfoClient({ transport }),
    exchange: (wallet, opts = {}) =>
      new ExchangeClient({ transport: new HttpTransport({ apiUrl: sim.url, timeout: opts.timeoutMs ?? 5_000 }), wallet }),
  };
}

export function newWallet(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

// The top nibble is set: the SDK's `orderStatus` schema would read a small hex cloid as a number oid.
export const cloidOf = (n: number): `0x${string}` => `0xc${n.toString(16).padStart(31, '0')}`;
