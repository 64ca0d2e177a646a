/** Typed calls to the operator surface `/admin/v1`, used by the admin CLI and the tests. */
import { HttpTransport } from './http.ts';

export interface AdminInstrumentInput { base: string; quote: string; type: 'SPOT' | 'PERP'; takerFeeTenthBp: number; minQuoteNotional?: string; enabled?: boolean }
export interface AdminMakerInput { active: boolean; pairs: string[]; settlementModes: Array<'permit2' | 'promised' | 'xchange' | 'perp'>; spender?: string; adapterSigner?: string }

export class AdminClient {
  readonly http: HttpTransport;
  readonly #token: string;

  constructor(baseUrl: string, token: string) {
    this.http = new HttpTransport(baseUrl);
    this.#token = token;
  }

  call<R>(method: string, path: string, body?: unknown, query?: Record<string, string | undefined>): Promise<R> {
    return this.http.send<R>(method, `/admin/v1${path}`, { bearer: this.#token, ...(body === undefined ? {} : { body }), ...(query ? { query } : {}) });
  }

  putToken(symbol: string, body: { decimals: number; address?: string }) { return this.call<Record<string, unknown>>('PUT', `/tokens/${symbol}`, body); }
  putInstrument(instrumentId: string, body: AdminInstrumentInput) { return this.call<Record<string, unknown>>('PUT', `/instruments/${instrumentId}`, body); }
  putMaker(address: string, body: AdminMakerInput) { return this.call<{ makerId: string } & Record<string, unknown>>('PUT', `/makers/${address}`, body); }
  /** One maker with its market-maker protection and its live sessions on every node. */
  getMaker(address: string) { return this.call<{ makerId: string; protection: Array<Record<string, unknown>>; sessions: Array<{ sessionId: string; nodeId: string; cancelOnDisconnect: boolean; openedAt: number; nodeHeartbeatAt: number | null }> } & Record<string, unknown>>('GET', `/makers/${address}`); }
  listMakers() { return this.call<{ makers: Array<Record<string, unknown>> }>('GET', '/makers'); }
  adjustBalance(body: { address: string; token: string; amount: string; rail?: 'EVM' | 'VENUE'; memo: string }) {
    return this.call<{ movementId: string; balance: Record<string, string> }>('POST', '/balances/adjust', body);
  }
  /** Embedded devnet only: mints test tokens on-chain (amount in human units); resolves once mined. */
  faucet(body: { address: string; token: string; amount: string }) { return this.call<{ txHash: string }>('POST', '/devnet/faucet', body); }
  /** Embedded stack only: credits perp margin (USDC) or a spot token at the venue simulator; resolves once applied. */
  venueFaucet(body: { address: string; token: string; amount: string; account: 'perp' | 'spot' }) {
    return this.call<{ address: string; account: string; token: string; amount: string }>('POST', '/devnet/venue-faucet', body);
  }
  withdrawals(query: { status?: string | undefined; cursor?: string | undefined; limit?: string } = {}) {
    return this.call<{ items: Array<Record<string, unknown>>; hasMore: boolean; nextCursor?: string | null }>('GET', '/withdrawals', undefined, query);
  }
  approveWithdrawal(id: string) { return this.call<Record<string, unknown>>('POST', `/withdrawals/${id}/approve`, {}); }
  rejectWithdrawal(id: string, reason?: string) { return this.call<Record<string, unknown>>('POST', `/withdrawals/${id}/reject`, reason ? { reason } : {}); }
  resolveWithdrawal(id: string, body: { outcome: 'COMPLETED' | 'FAILED'; txHash?: string }) { return this.call<Record<string, unknown>>('POST', `/withdrawals/${id}/resolve`, body); }
  unattributedDeposits(query: { cursor?: string | undefined; limit?: string } = {}) {
    return this.call<{ items: Array<Record<string, unknown>>; hasMore: boolean; nextCursor?: string | null }>('GET', '/deposits/unattributed', undefined, query);
  }
  settlementAnomalies() { return this.call<{ anomalies: Array<Record<string, unknown>> }>('GET', '/settlement-anomalies'); }
  resolveAnomaly(body: { txHash: string; logIndex: number; note?: string }) { return this.call<Record<string, unknown>>('POST', '/settlement-anomalies/resolve', body); }
  /** Re-runs a quarantined chain log's handler once (then the anomaly is REPLAYED). */
  replayAnomaly(body: { txHash: string; logIndex: number }) { return this.call<Record<string, unknown>>('POST', '/settlement-anomalies/replay', body); }
  invariants() { return this.call<{ ok: boolean; violations: Array<Record<string, unknown>> }>('GET', '/invariants'); }
  /** Promised payouts still owed (custody transfer views). */
  unpaidPayouts() { return this.call<{ items: Array<Record<string, unknown>> }>('GET', '/payouts/unpaid'); }
  retryPayout(quoteId: string) { return this.call<Record<string, unknown>>('POST', `/payouts/${quoteId}/retry`); }
  settings() { return this.call<Record<string, number>>('GET', '/settings'); }
  putSettings(body: Record<string, number>) { return this.call<Record<string, number>>('PUT', '/settings', body); }
  /** `/v0` (DESIGN.md section 10): every account's orders and withdrawals, and per-account fee rates. */
  v0Orders(query: { status?: string; account?: string; limit?: string; cursor?: string } = {}) {
    return this.call<{ items: Array<Record<string, unknown>>; hasMore: boolean; nextCursor?: string | null }>('GET', '/v0/orders', undefined, query);
  }
  v0Withdrawals(query: { state?: string; account?: string; limit?: string; cursor?: string } = {}) {
    return this.call<{ items: Array<Record<string, unknown>>; hasMore: boolean; nextCursor?: string | null }>('GET', '/v0/withdrawals', undefined, query);
  }
  v0FeeRates(address: string) { return this.call<V0FeeRatesView>('GET', `/v0/fee-rates/${address}`); }
  putV0FeeRates(address: string, body: { takerPpm: number; makerPpm: number }) { return this.call<V0FeeRatesView>('PUT', `/v0/fee-rates/${address}`, body); }
  clearV0FeeRates(address: string) { return this.call<V0FeeRatesView>('DELETE', `/v0/fee-rates/${address}`); }
}

export interface V0FeeRatesView { address: string; takerPpm: number; makerPpm: number; source: 'account' | 'default' }
