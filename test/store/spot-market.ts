/**
 * The rows the store-function tests start from: a taker and a maker account, the maker approved
 * for ETH-USDC, and the ETH-USDC-SPOT instrument with its tokens. Written straight into the
 * store (these tests exercise SQL functions, not the API).
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../../src/store/database.ts';
import { openMigratedStore, type Backend } from '../helpers/backends.ts';

export interface SpotMarket {
  taker: string;
  makerId: string;
  makerAccount: string;
}

export async function seedSpotMarket(store: Store): Promise<SpotMarket> {
  const market = { taker: randomUUID(), makerId: randomUUID(), makerAccount: randomUUID() };
  await store.db.insertInto('accounts').values([
    { id: market.taker, address: '0x0000000000000000000000000000000000000001', created_at: 1 },
    { id: market.makerAccount, address: '0x0000000000000000000000000000000000000002', created_at: 1 },
  ]).execute();
  await store.db.insertInto('makers').values({ maker_id: market.makerId, account_id: market.makerAccount, active: true, pairs: JSON.stringify(['ETH-USDC']), settlement_modes: JSON.stringify(['promised']), spender: null, adapter_signer: null, suspended_until: null, created_at: 1, updated_at: 1 }).execute();
  await store.db.insertInto('tokens').values([{ symbol: 'ETH', decimals: 18, address: null, updated_at: 1 }, { symbol: 'USDC', decimals: 6, address: null, updated_at: 1 }]).onConflict((oc) => oc.doNothing()).execute();
  await store.db
    .insertInto('instruments')
    .values({ instrument_id: 'ETH-USDC-SPOT', base: 'ETH', quote: 'USDC', type: 'SPOT', taker_fee_tenth_bp: 25, min_quote_notional: null, enabled: true, updated_at: 1 })
    .onConflict((oc) => oc.doNothing())
    .execute();
  return market;
}

/** A fresh database of `backend`, migrated, with the spot market seeded; `close` drops it. */
export async function openSpotMarket(backend: Backend): Promise<{ store: Store; market: SpotMarket; close(): Promise<void> }> {
  const { store, close } = await openMigratedStore(backend);
  return { store, market: await seedSpotMarket(store), close };
}

/** 10^24 + 7: a NUMERIC a JSON number would round (2^53 is about 9 x 10^15). */
export const HUGE = 10n ** 24n + 7n;

/**
 * A PENDING 1 ETH-sized BUY RFQ of `taker` (amounts beyond 2^53) with one SUBMITTED promised
 * quote per maker in `makers`, the i-th received i ms after the first.
 */
export async function insertQuotedRfq(store: Store, taker: string, makers: ReadonlyArray<{ makerId: string; makerAccount: string }>): Promise<{ rfqId: string; quoteIds: string[] }> {
  const rfqId = `rfq_${randomUUID()}`;
  await store.db.insertInto('rfqs').values({
    id: rfqId, account_id: taker, instrument_id: 'ETH-USDC-SPOT', side: 'BUY', base_qty: HUGE, quote_limit: HUGE + 1n, taker_fee_tenth_bp: 25, auto_accept: false,
    status: 'PENDING', created_at: 1_700_000_000_001, auction_ends_at: 1_700_000_600_000, settlement_deadline_secs: 1_700_003_600, quoted_at: null, settled_at: null,
    executed_pay_amount: null, executed_recv_amount: null, taker_fee: null, tx_hash: null, failure_code: null, failure_reason: null, selected_quote_id: null,
    idempotency_key: null, request_fingerprint: 'f', updated_at: 1_700_000_000_001,
  }).execute();
  const quoteIds: string[] = [];
  for (const [i, maker] of makers.entries()) {
    const quoteId = `q_${randomUUID()}`;
    quoteIds.push(quoteId);
    await store.db.insertInto('quotes').values({
      id: quoteId, rfq_id: rfqId, maker_id: maker.makerId, maker_account_id: maker.makerAccount, version: 3, status: 'SUBMITTED', maker_pays_token: 'ETH',
      maker_pays_amount: HUGE, maker_receives_token: 'USDC', maker_receives_amount: 3_000_000_000n + BigInt(i), taker_fee: 7_500_000n, taker_total: 3_007_500_000n,
      received_at: 1_700_000_000_002 + i, acceptable_for_ms: 5000, settlement_mode: 'promised', settlement_deadline_secs: null, permit_signature: null, spender: null,
      delivery_deadline_secs: null, window_starts_at: null, window_ends_at: null, xchange: JSON.stringify({ nested: 12345678901234567890 }), settled_at: null,
      tx_hash: null, created_at: 1_700_000_000_002, updated_at: 1_700_000_000_002, quote_hash: null,
    }).execute();
  }
  return { rfqId, quoteIds };
}

/** The taker's API key `accessKey` (for replay claims) and a USDC balance of HUGE available, 5 locked. */
export async function seedTakerKeyAndFunds(store: Store, taker: string, accessKey: string): Promise<void> {
  await store.db.insertInto('api_keys').values({ access_key: accessKey, account_id: taker, secret_enc: 'x', maker_scoped: false, created_at: 1, expires_at: 10 ** 15, revoked_at: null }).execute();
  await store.db.insertInto('balances').values({ account_id: taker, token: 'USDC', rail: 'EVM', available: HUGE, locked: 5n }).execute();
}
