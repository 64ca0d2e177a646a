/**
 * The typed v1 client used by tests, demo makers, the CLI and integrators: SIWE login, then
 * every call signed with the issued credential.
 */
import type { LocalAccount } from 'viem';
import { HttpTransport, type Credentials, type RequestOptions } from './http.ts';
import { signSiwe } from './siwe.ts';
import { RfqWsSession } from './ws-session.ts';
import type { SocketOptions } from './reconnecting-socket.ts';
import type * as T from './types.ts';

export interface LoginOptions {
  domain?: string;
  chainId?: number;
  expiresInSecs?: number;
}

export class RfqClient {
  readonly http: HttpTransport;
  credentials: Credentials | undefined;
  login: T.LoginResponse | undefined;

  constructor(baseUrl: string, credentials?: Credentials) {
    this.http = new HttpTransport(baseUrl);
    this.credentials = credentials;
  }

  /** Challenge, SIWE-sign with `account`, exchange for an API key; the client keeps it. */
  async signIn(account: LocalAccount, options: LoginOptions = {}): Promise<T.LoginResponse> {
    const { nonce } = await this.challenge();
    const signed = await signSiwe(account, { domain: options.domain ?? 'localhost', chainId: options.chainId ?? 31337, nonce });
    const login = await this.createApiKey({ ...signed, ...(options.expiresInSecs ? { expiresInSecs: options.expiresInSecs } : {}) });
    this.credentials = { accessKey: login.accessKey, secret: login.secret };
    this.login = login;
    return login;
  }

  challenge(): Promise<{ nonce: string; expiresAt: number }> {
    return this.http.send('POST', '/v1/auth/challenge', { body: {} });
  }

  createApiKey(body: { message: string; signature: string; expiresInSecs?: number | null }): Promise<T.LoginResponse> {
    return this.http.send('POST', '/v1/auth/api-keys', { body });
  }

  /**
   * A WebSocket session on this client's server and credential, sharing its timestamp source
   * (a (key, timestamp) pair is single use across REST and WebSocket). Call `connect()` on it.
   */
  wsSession(options: Omit<SocketOptions, 'baseUrl' | 'credentials' | 'timestamps'> = {}): RfqWsSession {
    if (!this.credentials) throw new Error('wsSession: sign in first (no credentials)');
    return new RfqWsSession({ ...options, baseUrl: this.http.baseUrl, credentials: this.credentials, timestamps: this.http.timestamps });
  }

  /** A signed call to any path (used for paths without a typed method and by tests). */
  signed<R>(method: string, path: string, options: RequestOptions = {}): Promise<R> {
    return this.http.send<R>(method, path, { ...options, credentials: this.credentials });
  }

  listApiKeys(): Promise<{ keys: T.ApiKeyView[] }> { return this.signed('GET', '/v1/auth/api-keys'); }
  revokeApiKey(accessKey: string): Promise<{ accessKey: string; revoked: boolean }> {
    return this.signed('DELETE', `/v1/auth/api-keys/${encodeURIComponent(accessKey)}`);
  }
  time(): Promise<{ serverTime: number }> { return this.http.send('GET', '/v1/time'); }

  instruments(): Promise<{ instruments: T.Instrument[] }> { return this.signed('GET', '/v1/rfq/instruments'); }
  balances(): Promise<{ balances: T.Balance[] }> { return this.signed('GET', '/v1/rfq/balances'); }
  ledger(query: { limit?: number; cursor?: string } = {}): Promise<{ entries: T.LedgerView[]; hasMore: boolean; nextCursor?: string | null }> {
    return this.signed('GET', '/v1/rfq/ledger', { query });
  }

  createRfq(body: T.CreateRfqInput): Promise<T.CreateRfqResponse> { return this.signed('POST', '/v1/rfq/requests', { body }); }
  getRfq(id: string): Promise<T.Rfq> { return this.signed('GET', `/v1/rfq/requests/${encodeURIComponent(id)}`); }
  listRfqs(query: { status?: T.RfqStatus; limit?: number; cursor?: string } = {}): Promise<T.Page<T.Rfq>> {
    return this.signed('GET', '/v1/rfq/requests', { query });
  }
  cancelRfq(id: string): Promise<T.Rfq> { return this.signed('POST', `/v1/rfq/requests/${encodeURIComponent(id)}/cancel`); }
  rfqQuotes(id: string, query: { status?: T.QuoteStatus; limit?: number; cursor?: string } = {}): Promise<T.Page<T.Quote>> {
    return this.signed('GET', `/v1/rfq/requests/${encodeURIComponent(id)}/quotes`, { query });
  }
  getQuote(quoteId: string): Promise<T.Quote> { return this.signed('GET', `/v1/rfq/quotes/${encodeURIComponent(quoteId)}`); }
  accept(rfqId: string, body: { quoteId: string; expectedVersion?: number; perpTakerOrder?: { action: unknown; nonce: number; signature: unknown } }): Promise<{ rfqId: string; quoteId: string; status: T.RfqStatus }> {
    return this.signed('POST', `/v1/rfq/requests/${encodeURIComponent(rfqId)}/accept`, { body });
  }
  /**
   * A SWEEP RFQ: the sweep as the service ranks it (`{ sweep: true }`), or only the quotes named.
   * A perp sweep adds the taker's one IOC over the selection (`PerpTaker.acceptSweep` builds it).
   */
  acceptSweep(
    rfqId: string,
    body: ({ sweep: true } | { quotes: Array<{ quoteId: string; expectedVersion?: number }> }) & { perpTakerOrder?: { action: unknown; nonce: number; signature: unknown } },
  ): Promise<{ rfqId: string; quoteId: string; status: T.RfqStatus; quoteIds: string[] }> {
    return this.signed('POST', `/v1/rfq/requests/${encodeURIComponent(rfqId)}/accept`, { body });
  }

  openRfqs(query: { limit?: number; cursor?: string } = {}): Promise<T.Page<T.OpenRfq>> { return this.signed('GET', '/v1/rfq/requests/open', { query }); }
  submitQuote(body: T.CreateQuoteInput): Promise<{ status: T.QuoteStatus; quoteId: string; version: number }> {
    return this.signed('POST', '/v1/rfq/quotes', { body });
  }
  makerQuotes(query: { status?: T.QuoteStatus[]; limit?: number; cursor?: string } = {}): Promise<T.Page<T.MakerQuote>> {
    return this.signed('GET', '/v1/rfq/quotes', { query });
  }
  cancelQuote(quoteId: string): Promise<T.MakerQuote> { return this.signed('POST', `/v1/rfq/quotes/${encodeURIComponent(quoteId)}/cancel`); }
  /** Market-maker protection: replaces the instrument's setting (at least one limit). */
  putProtection(body: T.ProtectionInput): Promise<T.Protection> { return this.signed('PUT', '/v1/rfq/maker/protection', { body }); }
  protection(): Promise<{ items: T.Protection[] }> { return this.signed('GET', '/v1/rfq/maker/protection'); }
  /** Re-arms a tripped protection: quotes on the instrument are accepted again. */
  resetProtection(instrumentId: string): Promise<T.Protection> { return this.signed('POST', '/v1/rfq/maker/protection/reset', { body: { instrumentId } }); }
  /** Cancels all this maker's open quotes (on one instrument when named). */
  cancelAllQuotes(instrumentId?: string): Promise<{ cancelled: number }> { return this.signed('POST', '/v1/rfq/quotes/cancel-all', { body: instrumentId === undefined ? {} : { instrumentId } }); }
  /** Arms or pushes back the dead man's switch (`timeoutMs` 1,000 to 600,000); 0 disarms it. */
  cancelAllAfter(timeoutMs: number): Promise<{ firesAt: number | null }> { return this.signed('POST', '/v1/rfq/maker/cancel-all-after', { body: { timeoutMs } }); }
  cancelAllAfterState(): Promise<{ firesAt: number | null }> { return this.signed('GET', '/v1/rfq/maker/cancel-all-after'); }
  /** Publishes this maker's alias, which takers may name or exclude; null withdraws it. */
  setProfile(alias: string | null): Promise<{ alias: string | null }> { return this.signed('PUT', '/v1/rfq/maker/profile', { body: { alias } }); }
  profile(): Promise<{ alias: string | null }> { return this.signed('GET', '/v1/rfq/maker/profile'); }
  /** The disclosed makers an RFQ may name (`makers`) or exclude (`excludeMakers`). */
  disclosedMakers(): Promise<{ makers: Array<{ alias: string }> }> { return this.signed('GET', '/v1/rfq/makers'); }
  /** Replaces the takers this maker denies, by its pseudonyms for them (OpenRfq.taker). */
  setDenylist(takers: string[]): Promise<{ takers: string[] }> { return this.signed('PUT', '/v1/rfq/maker/denylist', { body: { takers } }); }
  denylist(): Promise<{ takers: string[] }> { return this.signed('GET', '/v1/rfq/maker/denylist'); }
  /** The maker's own scorecard over the last `windowSecs` (default a day). */
  scorecard(windowSecs?: number): Promise<T.Scorecard> { return this.signed('GET', '/v1/rfq/maker/scorecard', { query: { windowSecs } }); }

  // Not served yet on this branch (on-chain settlement is in progress); typed from DESIGN.md
  // sections 4 and 5 so integrators and the demo stack can compile against them now.
  network(): Promise<T.Network> { return this.signed('GET', '/v1/rfq/network'); }
  deposits(query: { limit?: number; cursor?: string } = {}): Promise<T.Page<T.Deposit>> { return this.signed('GET', '/v1/rfq/deposits', { query }); }
  createWithdrawal(body: T.CreateWithdrawalInput): Promise<T.CreateWithdrawalResponse> { return this.signed('POST', '/v1/rfq/withdrawals', { body }); }
  withdrawals(query: { limit?: number; cursor?: string } = {}): Promise<T.Page<T.Withdrawal>> { return this.signed('GET', '/v1/rfq/withdrawals', { query }); }
  getWithdrawal(id: string): Promise<T.Withdrawal> { return this.signed('GET', `/v1/rfq/withdrawals/${encodeURIComponent(id)}`); }
}
