/**
 * Perp fixtures for the black-box execution tests: venue accounts funded at the simulator, perp
 * makers and takers signed in at the service, maker ALOs and taker IOCs signed with the SDK (the
 * taker's can break one rule on purpose), and an RFQ of 0.1 ETH with one quote per maker price.
 */
import { TEST_VENUE_PROFILE } from './venue-profile.ts';
import { randomBytes } from 'node:crypto';
import { ExchangeClient, HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { signL1Action } from '@nktkas/hyperliquid/signing';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startVenueSim, type SimProfile, type SimProfileName, type VenueSim } from '../../sim/venue/index.ts';
import { VenueSimControl } from '../../sim/venue/control.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import type { Backend } from './backends.ts';
import { startHarness, type Harness, type HarnessOptions } from './harness.ts';

/** The executor's look-up bounds in these tests: short, so unclear outcomes end within seconds. */
export const TEST_PERP_EXECUTION = { resolveWindowMs: 1500, resolvePollMs: 100, makerLookupMs: 500 };

export const BUILDER = '0x00000000000000000000000000000000000000b1';
export const ETH = 1; // the simulator's default universe: BTC, ETH, SOL
/** The maker's order price for 0.1 ETH at each quote leg used here (p * 0.1 = leg exactly). */
export const PRICE_OF: Record<string, string> = { '350.01': '3500.1', '350.02': '3500.2', '349.99': '3499.9', '349.98': '3499.8', '349.96': '3499.6', '349.95': '3499.5' };

export type Signed = { action: Record<string, unknown>; nonce: number; signature: { r: string; s: string; v: number } };
export type VenueUser = { client: RfqClient; account: PrivateKeyAccount };

let lastNonce = 0;
export function freshNonce(): number {
  lastNonce = Math.max(Date.now(), lastNonce + 1);
  return lastNonce;
}

export async function sign(account: PrivateKeyAccount, action: Record<string, unknown>, nonce = freshNonce()): Promise<Signed> {
  const signature = await signL1Action({ wallet: account, action, nonce, isTestnet: false });
  return { action, nonce, signature };
}

export const cloid = (): string => `0x${randomBytes(16).toString('hex')}`;
export const cloidOfOrder = (signed: Signed): string => (signed.action['orders'] as { c: string }[])[0]!.c;

/** The maker's ALO (opposite side) and its cancel, signed by `signer` (the maker or its API wallet). */
export async function makerOrders(signer: PrivateKeyAccount, side: 'BUY' | 'SELL', s: string, p: string) {
  const c = cloid();
  const order = await sign(signer, { type: 'order', orders: [{ a: ETH, b: side === 'SELL', p, s, r: false, t: { limit: { tif: 'Alo' } }, c }], grouping: 'na' });
  const cancel = await sign(signer, { type: 'cancelByCloid', cancels: [{ asset: ETH, cloid: c }] }, Math.max(order.nonce + 1, freshNonce()));
  return { perpMakerOrder: order, perpMakerCancel: cancel };
}

export type TakerOverrides = { order?: Record<string, unknown>; action?: Record<string, unknown>; nonce?: number; builderFee?: number | null };

/** The taker's IOC for a quote (rules 1-14), with `overrides` to break one rule. */
export async function takerOrder(signer: PrivateKeyAccount, side: 'BUY' | 'SELL', s: string, p: string, o: TakerOverrides = {}): Promise<Signed> {
  const fee = o.builderFee === undefined ? 20 : o.builderFee;
  const action: Record<string, unknown> = {
    type: 'order',
    orders: [{ a: ETH, b: side === 'BUY', p, s, r: false, t: { limit: { tif: 'Ioc' } }, c: cloid(), ...o.order }],
    grouping: 'na',
    ...(fee === null ? {} : { builder: { b: BUILDER, f: fee } }),
    ...o.action,
  };
  return sign(signer, action, o.nonce);
}

export const ended = (r: { status: string }): boolean => r.status !== 'PENDING' && r.status !== 'QUOTED';

/** Venue accounts and RFQ participants for one harness and one simulator. */
export class PerpFixture {
  readonly h: Harness;
  readonly sim: VenueSim;
  readonly control: VenueSimControl;
  readonly info: InfoClient;

  constructor(h: Harness, sim: VenueSim) {
    this.h = h;
    this.sim = sim;
    this.control = new VenueSimControl(sim.url);
    this.info = new InfoClient({ transport: new HttpTransport({ apiUrl: sim.url, timeout: 5_000 }) });
  }

  /**
   * A simulator and a node executing on it, with ETH-USDC-PERP listed at a 2 bp builder fee. On a
   * profile with a moving book ETH is pinned (`moving: false`) unless `venue.movingBook`: these
   * tests price their quotes inside a 1 bp spread around a fixed 3500 (`PRICE_OF`).
   */
  static async start(
    backend: Backend,
    options: Omit<HarnessOptions, 'venue' | 'perpExecution'> = {},
    venue: { profile?: SimProfileName | SimProfile; movingBook?: boolean } = {},
  ): Promise<PerpFixture> {
    const sim = await startVenueSim({ port: 0, profile: venue.profile ?? TEST_VENUE_PROFILE });
    const control = new VenueSimControl(sim.url);
    // The venue approves a builder holding 100 USDC of perps account value (realistic profile).
    await control.fund({ user: BUILDER, account: 'perp', token: 'USDC', amount: '100' });
    // Pinned at 3500 itself: the walk may have moved the mid before the pin (a slow start).
    if (sim.profile.movingBook && venue.movingBook !== true) await control.book({ coin: 'ETH', moving: false, mid: '3500' });
    const h = await startHarness(backend, { ...options, venue: { url: sim.url, network: 'mainnet', builderAddress: BUILDER }, perpExecution: TEST_PERP_EXECUTION });
    await h.admin.putInstrument('ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 20, minQuoteNotional: '10' });
    return new PerpFixture(h, sim);
  }

  async close(): Promise<void> {
    await this.h.close();
    await this.sim.stop();
  }

  exchange(account: PrivateKeyAccount): ExchangeClient {
    return new ExchangeClient({ transport: new HttpTransport({ apiUrl: this.sim.url, timeout: 5_000 }), wallet: account });
  }

  /** A fresh venue account with perp USDC, its builder fee approved at `approveFee` (null: none). */
  async venueUser(usdc = '100000', approveFee: string | null = '0.02%'): Promise<PrivateKeyAccount> {
    const account = privateKeyToAccount(generatePrivateKey());
    await this.control.fund({ user: account.address, account: 'perp', token: 'USDC', amount: usdc });
    if (approveFee !== null) await this.exchange(account).approveBuilderFee({ maxFeeRate: approveFee, builder: BUILDER });
    return account;
  }

  async perpMaker(usdc = '100000'): Promise<VenueUser> {
    const account = await this.venueUser(usdc, null);
    await this.h.admin.putMaker(account.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['perp'] });
    const client = new RfqClient(this.h.url);
    await client.signIn(account);
    return { client, account };
  }

  async perpTaker(approveFee: string | null = '0.02%'): Promise<VenueUser> {
    const account = await this.venueUser('100000', approveFee);
    const client = new RfqClient(this.h.url);
    await client.signIn(account);
    return { client, account };
  }

  /** An RFQ of 0.1 ETH with one quote per maker price (USDC for 0.1), each order signed by `signer` or the maker. */
  async auction(
    taker: { client: RfqClient },
    side: 'BUY' | 'SELL',
    quotes: { maker: VenueUser; usdc: string; signer?: PrivateKeyAccount }[],
    windowMs = 60_000,
  ): Promise<{ rfqId: string; quoteIds: string[] }> {
    const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-PERP', side, baseQty: '0.1', quoteLimit: side === 'BUY' ? '400' : '300', windowMs });
    const ids: string[] = [];
    for (const q of quotes) {
      const p = PRICE_OF[q.usdc]!;
      const legs = side === 'BUY' ? { makerPays: { token: 'ETH', amount: '0.1' }, makerReceives: { token: 'USDC', amount: q.usdc } } : { makerPays: { token: 'USDC', amount: q.usdc }, makerReceives: { token: 'ETH', amount: '0.1' } };
      const quote = await q.maker.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-PERP', side, ...legs, ...(await makerOrders(q.signer ?? q.maker.account, side, '0.1', p)) });
      ids.push(quote.quoteId);
    }
    return { rfqId, quoteIds: ids };
  }

  /** The kinds of venue calls and decisions stored with the RFQ's executions, in order. */
  async callKinds(rfqId: string): Promise<{ kind: string; quoteId: string | null }[]> {
    return this.h.node.store.db
      .selectFrom('perp_execution_calls')
      .innerJoin('perp_executions', 'perp_executions.id', 'perp_execution_calls.execution_id')
      .select(['perp_execution_calls.kind as kind', 'perp_execution_calls.quote_id as quoteId'])
      .where('perp_executions.rfq_id', '=', rfqId)
      .orderBy('perp_execution_calls.id')
      .execute();
  }

  /** The account's ETH perp position at the venue, as the venue reports it ('0' when none). */
  async ethPosition(address: string): Promise<string> {
    const state = await this.info.clearinghouseState({ user: address as `0x${string}` });
    return state.assetPositions.find((p) => p.position.coin === 'ETH')?.position.szi ?? '0';
  }
}
