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
  invariants() { return this.call<{ ok: boolean; violations: Array<Record<string, unknown>> }>('GET', '/invariants'); }
  /** Promised payouts still owed (custody transfer views). */
  unpaidPayouts() { return this.call<{ items: Array<Record<string, unknown>> }>('GET', '/payouts/unpaid'); }
  retryPayout(quoteId: string) { return this.call<Record<string, unknown>>('POST', `/payouts/${quoteId}/retry`); }
  settings() { return this.call<Record<string, number>>('GET', '/settings'); }
  putSettings(body: Record<string, number>) { return this.call<Record<string, number>>('PUT', '/settings', body); }
}
