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

/** An `HttpTransport` that keeps the last payload it sent, so a test can replay the exact signed bytes. */
export class RecordingTransport extends HttpTransport {
  last: unknown = null;
  override request<T>(endpoint: 'info' | 'exchange' | 'explorer', payload: unknown, signal?: AbortSignal): Promise<T> {
    this.last = payload;
    return super.request<T>(endpoint, payload, signal);
  }
}

/** POSTs a raw body to the simulator and returns the parsed JSON reply. */
export async function postRaw(url: string, endpoint: 'info' | 'exchange', body: unknown): Promise<unknown> {
  const res = await fetch(`${url}/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5_000),
  });
  return res.json();
}

type Tif = 'Gtc' | 'Ioc' | 'Alo';
/** One limit order in the SDK's parameter shape. */
export function limit(a: number, isBuy: boolean, p: string, s: string, tif: Tif, c?: `0x${string}`) {
  return { a, b: isBuy, p, s, r: false, t: { limit: { tif } }, ...(c ? { c } : {}) };
}

type OrderReply = { response: { data: { statuses: unknown[] } } };
/** The first status of an order reply, which must be `resting`. */
export function restingOf(reply: OrderReply): { oid: number; cloid?: `0x${string}` } {
  const st = reply.response.data.statuses[0] as { resting?: { oid: number; cloid?: `0x${string}` } };
  if (!st?.resting) throw new Error(`expected resting, got ${JSON.stringify(st)}`);
  return st.resting;
}
/** The first status of an order reply, which must be `filled`. */
export function filledOf(reply: OrderReply): { totalSz: string; avgPx: string; oid: number; cloid?: `0x${string}` } {
  const st = reply.response.data.statuses[0] as { filled?: { totalSz: string; avgPx: string; oid: number; cloid?: `0x${string}` } };
  if (!st?.filled) throw new Error(`expected filled, got ${JSON.stringify(st)}`);
  return st.filled;
}
