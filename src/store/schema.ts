/**
 * Row types of every table, as Kysely sees them. Column names are the SQL names (snake_case) so
 * raw SQL and typed queries read the same. NUMERIC -> bigint, INT8 -> number (see database.ts).
 */
import type { ColumnType, Generated } from 'kysely';
import type { QuoteStatus, RfqFill, RfqStatus } from '../domain/rfq/types.ts';
import type { DepositStatus } from '../domain/funds/deposit-state.ts';
import type { WithdrawalStatus } from '../domain/funds/withdrawal-state.ts';
import type { V0OrderStatus } from '../domain/v0/order-status.ts';
import type { CustodyTransferStatus } from '../domain/funds/custody-transfer-state.ts';
import type { VenueActionStatus } from '../domain/venue/venue-action-status.ts';
import type { V0WithdrawalState } from '../domain/v0/withdrawal-status.ts';

type Json<T> = ColumnType<T, string, string>;

export interface AccountsTable { id: string; address: string; created_at: number }
export interface AuthChallengesTable { nonce: string; created_at: number; expires_at: number; used_at: number | null; source: string | null }
export interface ApiKeysTable {
  access_key: string;
  account_id: string;
  secret_enc: string;
  maker_scoped: boolean;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}
export interface RequestTimestampsTable { access_key: string; signed_at: number }
export interface TokensTable { symbol: string; decimals: number; address: string | null; updated_at: number }
export interface InstrumentsTable {
  instrument_id: string;
  base: string;
  quote: string;
  type: 'SPOT' | 'PERP';
  taker_fee_tenth_bp: number;
  min_quote_notional: bigint | null;
  enabled: boolean;
  updated_at: number;
}
export interface MakersTable {
  maker_id: string;
  account_id: string;
  active: boolean;
  pairs: Json<string[]>;
  settlement_modes: Json<string[]>;
  spender: string | null;
  adapter_signer: string | null;
  suspended_until: number | null;
  created_at: number;
  updated_at: number;
  suspension_count: Generated<number>;
  last_suspended_at: number | null;
  /** The public alias of a disclosed maker (unique without regard to case); null: anonymous. */
  alias: Generated<string | null>;
  /** Account ids of the takers this maker denies. */
  denied_takers: Generated<string[]>;
}
export interface SettingsTable { key: string; value: Json<unknown> }
export interface BalancesTable { account_id: string; token: string; rail: string; available: bigint; locked: bigint }
export interface LedgerMovementsTable { movement_id: string; kind: string; reference: string | null; memo: string | null; created_at: number }
export interface LedgerPostingsTable {
  posting_id: string;
  movement_id: string;
  book: string;
  account_id: string | null;
  token: string;
  rail: string;
  delta: bigint;
  source: string;
  created_at: number;
}
export interface LocksTable {
  lock_id: string;
  account_id: string;
  token: string;
  rail: string;
  amount: bigint;
  owner_kind: string;
  owner_id: string;
  created_at: number;
  released_at: number | null;
  release_reason: string | null;
}
export interface RfqsTable {
  id: string;
  account_id: string;
  instrument_id: string;
  side: 'BUY' | 'SELL';
  base_qty: bigint;
  quote_limit: bigint | null;
  taker_fee_tenth_bp: number;
  auto_accept: boolean;
  status: RfqStatus;
  created_at: number;
  auction_ends_at: number;
  settlement_deadline_secs: number;
  quoted_at: number | null;
  settled_at: number | null;
  executed_pay_amount: bigint | null;
  executed_recv_amount: bigint | null;
  taker_fee: bigint | null;
  tx_hash: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  selected_quote_id: string | null;
  idempotency_key: string | null;
  request_fingerprint: string;
  updated_at: number;
  /** Maker account ids an RFQ naming makers reaches; null: every maker (the default broadcast). */
  audience_only: Generated<string[] | null>;
  /** Maker account ids it never reaches: excluded by the taker, or denying it at creation. */
  audience_except: Generated<string[]>;
  /** `ALL`: one maker fills the whole size; `SWEEP`: several makers may (src/domain/rfq/sweep-selection.ts). */
  fill: Generated<RfqFill>;
  /** SWEEP: the least the selection must fill, in base units; null on an ALL RFQ. */
  min_fill_qty: Generated<bigint | null>;
  /** SWEEP: its selected legs in rank order, each with its quote's status; null until selected. */
  sweep_fills: ColumnType<SweepFillRecord[], string | undefined, string> | null;
}
export interface QuotesTable {
  id: string;
  rfq_id: string;
  maker_id: string;
  maker_account_id: string;
  version: number;
  status: QuoteStatus;
  maker_pays_token: string;
  maker_pays_amount: bigint;
  maker_receives_token: string;
  maker_receives_amount: bigint;
  taker_fee: bigint;
  taker_total: bigint;
  received_at: number;
  acceptable_for_ms: number | null;
  settlement_mode: string;
  settlement_deadline_secs: number | null;
  permit_signature: string | null;
  spender: string | null;
  delivery_deadline_secs: number | null;
  window_starts_at: number | null;
  window_ends_at: number | null;
  xchange: Json<unknown> | null;
  settled_at: number | null;
  tx_hash: string | null;
  created_at: number;
  updated_at: number;
  quote_hash: string | null;
  /** Perp: 1-based place behind the winner while a cascade backup. */
  position: number | null;
  perp_filled_size: string | null;
  perp_fill_avg_px: string | null;
  perp_maker_filled_size: string | null;
  /** SWEEP: the version at which the maker let this quote be cut; at any other version it is all-or-none. */
  divisible_version: Generated<number | null>;
  /** SWEEP: the base a cut quote was selected for (its legs are then written as cut). */
  selected_qty: Generated<bigint | null>;
}
/**
 * One leg of a SWEEP RFQ as `rfqs.sweep_fills` keeps it: amounts in smallest units as integer
 * strings (exact through JSON); `status` and `txHash` are its quote's, written with them.
 */
export interface SweepFillRecord {
  quoteId: string;
  baseQty: string;
  /** Quote-token amount the leg moves between maker and taker, before the fee. */
  quoteQty: string;
  takerFee: string;
  /** BUY what the taker pays on the leg (fee included); SELL what it receives (fee taken). */
  takerQuoteAmount: string;
  cut: boolean;
  status: QuoteStatus;
  txHash: string | null;
}
/** One (signer, nonce) of a signed venue action, claimed once across quotes and accepts (migration 0020). */
export interface VenueNonceClaimsTable { signer: string; nonce: number; claimed_at: number; purpose: string; quote_id: string | null }
/** A perp quote's signed maker order and cancel, as received (TEXT: key order is signed). */
export interface PerpQuoteOrdersTable {
  quote_id: string;
  version: number;
  asset_index: number;
  cloid: string;
  maker_order: string;
  maker_order_signer: string;
  maker_cancel: string;
  maker_cancel_signer: string;
  updated_at: number;
}
export interface EventSeqsTable { account_id: string; topic: string; last_seq: number }
export interface OutboxTable {
  id: Generated<number>;
  account_id: string | null;
  topic: string;
  seq: number | null;
  frame: Json<Record<string, unknown>>;
  created_at: number;
}
export interface VenueCursorsTable { name: string; position_ms: number; updated_at: number }
export interface ChainCursorsTable { name: string; block_number: number; block_hash: string; block_timestamp: number; updated_at: number }
export interface XchangeExecutionsTable { quote_id: string; attempts: number; attempted_at: number; tx_hash: string | null; last_error: string | null }
export interface MakerFailuresTable { quote_id: string; maker_id: string; rfq_id: string; reason: string; created_at: number; delay_ms: Generated<number | null> }
export interface SettlementAnomaliesTable {
  tx_hash: string;
  log_index: number;
  kind: string;
  quote_id: string | null;
  rfq_id: string | null;
  detail: Json<Record<string, unknown>>;
  created_at: number;
  /** Migration 0031: set when the operator resolved it (`resolution`: HANDLED or REPLAYED). */
  resolved_at: number | null;
  resolution: string | null;
}
export interface DepositsTable {
  id: string;
  account_id: string | null;
  from_address: string;
  token: string;
  amount: bigint;
  status: DepositStatus;
  tx_hash: string;
  log_index: number;
  block_number: number;
  movement_id: string | null;
  created_at: number;
  updated_at: number;
}
export interface WithdrawalsTable {
  id: string;
  account_id: string;
  token: string;
  amount: bigint;
  to_address: string;
  status: WithdrawalStatus;
  tx_hash: string | null;
  failure_reason: string | null;
  idempotency_key: string | null;
  request_fingerprint: string;
  created_at: number;
  updated_at: number;
}
export interface CustodyTransfersTable {
  id: string;
  purpose: 'withdrawal' | 'payout' | 'xchange' | 'approval';
  owner_id: string;
  token: string;
  token_address: string;
  to_address: string;
  amount: bigint;
  status: CustodyTransferStatus;
  from_address: string | null;
  nonce: number | null;
  raw_tx: string | null;
  tx_hash: string | null;
  send_attempts: number;
  signed_at: number | null;
  last_sent_at: number | null;
  confirmed_block: number | null;
  last_error: string | null;
  /** Calls only (migration 0016): calldata sent to `to_address`, and the gas limit to sign with. */
  call_data: string | null;
  gas: number | null;
  created_at: number;
  updated_at: number;
  /** Migration 0030: the operator asked for a zero-value cancel at the transfer's nonce. */
  cancel_requested_at: number | null;
  /** Migration 0030: handed to the operator after the broadcaster's bounds (still watched). */
  escalated_at: number | null;
  /** Migration 0046: a call that must not be signed once the next block is past this unix second (xchange: the swap's expiration). */
  not_after_secs: number | null;
}
/** Every signed transaction of a custody transfer (migration 0030); attempt 0 is the original. */
export interface CustodyTxAttemptsTable {
  transfer_id: string;
  attempt: number;
  kind: 'original' | 'replacement' | 'cancel';
  nonce: number;
  raw_tx: string;
  tx_hash: string;
  signed_at: number;
}
export interface CustodyNoncesTable { address: string; next_nonce: number }
export interface PromisedDeliveriesTable {
  quote_id: string;
  rfq_id: string;
  tx_hash: string;
  log_index: number;
  block_number: number;
  block_timestamp_secs: number;
  created_at: number;
}
export interface RateLimitWindowsTable { bucket: string; window_start: number; hits: number }

export interface PerpExecutionsTable {
  id: string;
  rfq_id: string;
  quote_id: string;
  account_id: string;
  quote_version: number;
  /** JSON text exactly as received: key order is part of what was signed. */
  taker_order: string;
  signer: string | null;
  nonce: number | null;
  cloid: string | null;
  phase: string;
  state: Json<unknown>;
  taker_sent_at: number | null;
  taker_reply_at: number | null;
  failure_code: string | null;
  lease_owner: string | null;
  lease_until: Generated<number>;
  next_at: number;
  created_at: number;
  updated_at: number;
}
export interface PerpExecutionCallsTable {
  id: Generated<number>;
  execution_id: string;
  kind: string;
  quote_id: string | null;
  request: Json<unknown> | null;
  reply: Json<unknown> | null;
  error: string | null;
  started_at: number;
  ended_at: number | null;
}
export interface V0LoginNoncesTable { address: string; nonce: string; used_at: number }
export interface V0SessionRevocationsTable { identity: string; revoked_at: number }
export interface VenueSignerNoncesTable { signer: string; last_nonce: number }
export interface VenueActionsTable {
  id: string;
  signer: string;
  nonce: number;
  kind: 'order' | 'cancel' | 'spotSend';
  owner_id: string;
  /** The exact body sent to `/exchange` ({ action, nonce, signature, ... }); a resend reuses it. */
  request: Json<Record<string, unknown>>;
  status: VenueActionStatus;
  response: Json<unknown> | null;
  send_attempts: Generated<number>;
  created_at: number;
  updated_at: number;
}
export interface V0OrdersTable {
  id: string;
  order_uuid: string;
  cloid: string;
  account_id: string;
  side: 'buy' | 'sell';
  order_type: 'limit' | 'market';
  tif: 'Ioc' | 'Gtc';
  base_token: string;
  quote_token: string;
  asset: number;
  /** Base amount x 10^weiDecimals(base). */
  amount: bigint;
  /** Limit price x 10^8. */
  price: bigint;
  status: V0OrderStatus;
  filled_amount: Generated<bigint>;
  /** Sum of fill amount x fill price (units: 10^-(weiDecimals(base) + 8) quote). */
  filled_notional: Generated<bigint>;
  /** The venue's total filled size when it reported the order terminal (null until then). */
  venue_filled_amount: bigint | null;
  /** Quote ledger units debited (buy) or credited before fee (sell) so far. */
  quote_settled: Generated<bigint>;
  oid: number | null;
  error_message: string | null;
  cancel_requested: Generated<boolean>;
  created_at: number;
  updated_at: number;
}
export interface V0FillsTable {
  tid: string;
  order_id: string;
  account_id: string;
  price: bigint;
  amount: bigint;
  /** The service fee in ledger units of `fee_token` (the token received). */
  fee: bigint;
  fee_token: string;
  fill_time: number;
  movement_id: string;
  created_at: number;
}
export interface V0WithdrawalsTable {
  id: string;
  account_id: string;
  token: string;
  amount: bigint;
  to_address: string;
  state: V0WithdrawalState;
  tx_hash: string | null;
  error_message: string | null;
  created_at: number;
  updated_at: number;
}
export interface VenueDepositsTable { hash: string; account_id: string; from_address: string; token: string; amount: bigint; movement_id: string; created_at: number }
export interface MakerProtectionsTable {
  maker_account_id: string;
  instrument_id: string;
  window_ms: number;
  max_selected_quotes: number | null;
  max_selected_notional: bigint | null;
  triggered_at: number | null;
  trigger_reason: string | null;
  updated_at: number;
  /** A trip re-arms itself this long after `triggered_at`; null keeps the manual reset. */
  frozen_ms: number | null;
}
/** A mark of the consolidated mid price (10^18 scale) per instrument and second. */
export interface PriceMarksTable { instrument_id: string; at: number; mid: bigint }
/** A maker's armed dead man's switch: all its open quotes are cancelled at `fires_at`. */
export interface MakerCancelAllAfterTable { maker_account_id: string; fires_at: number; armed_at: number }
export interface MakerProtectionSelectionsTable { quote_id: string; maker_account_id: string; instrument_id: string; notional: bigint; selected_at: number }
export interface WsNodesTable { node_id: string; heartbeat_at: number }
export interface ServiceLivenessTable { id: Generated<number>; alive_at: number }
/** One install of the SQL function set (sql-functions.ts); `functions` are its function names. */
export interface SqlFunctionSetsTable { id: Generated<number>; checksum: string; functions: string[]; installed_at: number }
export interface ServiceOutagesTable { started_at: number; ended_at: number }
export interface MakerSessionsTable { session_id: string; node_id: string; maker_account_id: string; cancel_on_disconnect: boolean; opened_at: number; ended_at: number | null }
export interface V0FeeRatesTable { account_id: string; taker_ppm: number; maker_ppm: number; updated_at: number }

export interface DB {
  accounts: AccountsTable;
  auth_challenges: AuthChallengesTable;
  api_keys: ApiKeysTable;
  request_timestamps: RequestTimestampsTable;
  tokens: TokensTable;
  instruments: InstrumentsTable;
  makers: MakersTable;
  settings: SettingsTable;
  balances: BalancesTable;
  ledger_movements: LedgerMovementsTable;
  ledger_postings: LedgerPostingsTable;
  locks: LocksTable;
  rfqs: RfqsTable;
  quotes: QuotesTable;
  event_seqs: EventSeqsTable;
  outbox: OutboxTable;
  rate_limit_windows: RateLimitWindowsTable;
  chain_cursors: ChainCursorsTable;
  venue_cursors: VenueCursorsTable;
  xchange_executions: XchangeExecutionsTable;
  maker_failures: MakerFailuresTable;
  settlement_anomalies: SettlementAnomaliesTable;
  deposits: DepositsTable;
  withdrawals: WithdrawalsTable;
  custody_transfers: CustodyTransfersTable;
  custody_nonces: CustodyNoncesTable;
  custody_tx_attempts: CustodyTxAttemptsTable;
  promised_deliveries: PromisedDeliveriesTable;
  perp_executions: PerpExecutionsTable;
  perp_execution_calls: PerpExecutionCallsTable;
  v0_login_nonces: V0LoginNoncesTable;
  v0_session_revocations: V0SessionRevocationsTable;
  venue_signer_nonces: VenueSignerNoncesTable;
  venue_actions: VenueActionsTable;
  v0_orders: V0OrdersTable;
  v0_fills: V0FillsTable;
  v0_withdrawals: V0WithdrawalsTable;
  venue_deposits: VenueDepositsTable;
  v0_fee_rates: V0FeeRatesTable;
  venue_nonce_claims: VenueNonceClaimsTable;
  perp_quote_orders: PerpQuoteOrdersTable;
  maker_protections: MakerProtectionsTable;
  maker_protection_selections: MakerProtectionSelectionsTable;
  maker_cancel_all_after: MakerCancelAllAfterTable;
  price_marks: PriceMarksTable;
  ws_nodes: WsNodesTable;
  maker_sessions: MakerSessionsTable;
  service_liveness: ServiceLivenessTable;
  sql_function_sets: SqlFunctionSetsTable;
  service_outages: ServiceOutagesTable;
}
