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
