// `POST /exchange`: the request is parsed with the SDK's own schemas (which also put the action in
// the venue's canonical form), the signer recovered, then applied under the simulator's lock.
import { parse } from '@nktkas/hyperliquid';
import {
  ApproveAgentRequest,
  ApproveAgentTypes,
  ApproveBuilderFeeRequest,
  ApproveBuilderFeeTypes,
  CancelByCloidRequest,
  CancelRequest,
  OrderRequest,
  SpotSendRequest,
  SpotSendTypes,
  UsdSendRequest,
  UsdSendTypes,
} from '@nktkas/hyperliquid/api/exchange';
import { formatUnitsFixed, mulDivDown, parseUnits, UNIT } from './decimal.ts';
import { lower, orderError, type Engine, type OrderStatusReply, type OrderWire, VenueErrors } from './engine.ts';
import { nonceProblem, recordNonce } from './nonces.ts';
import { recoverL1Signer, recoverUserSigner, type WireSignature } from './signers.ts';
import type { Address } from './state.ts';

export const DESERIALIZE_ERROR = 'Failed to deserialize the JSON body into the target type';

export type Reply = { status: number; json?: unknown; text?: string };

export type PreparedAction = {
  actionType: string;
  signer: Address;
  /** The account the action acts for, when the signer is known (itself or an API wallet's master). */
  user: Address | null;
  cloids: string[];
  /** Applies the action to the engine (synchronously, under the lock) and returns the reply body. */
  apply(options: { fillFraction: bigint | null }): unknown;
};

const L1_TYPES = new Set(['order', 'cancel', 'cancelByCloid']);
const USER_SIGNED: Record<string, { schema: unknown; types: Record<string, readonly { name: string; type: string }[]> }> = {
  approveAgent: { schema: ApproveAgentRequest, types: ApproveAgentTypes },
  approveBuilderFee: { schema: ApproveBuilderFeeRequest, types: ApproveBuilderFeeTypes },
  spotSend: { schema: SpotSendRequest, types: SpotSendTypes },
  usdSend: { schema: UsdSendRequest, types: UsdSendTypes },
};

const err = (response: string) => ({ status: 'err', response });
const ok = { status: 'ok', response: { type: 'default' } };

function parseWith<T>(schema: unknown, body: unknown): T | null {
  try {
    return parse(schema as never, body) as T;
  } catch {
    return null;
  }
}

/** The account an L1 signer acts for: the master of an unexpired API wallet, or itself when it is a user. */
export function actingUser(engine: Engine, signer: Address): Address | null {
  const agent = engine.state.agents[signer];
  if (agent && agent.validUntil > engine.now()) return agent.master;
  return engine.isKnownUser(signer) ? signer : null;
}

export async function prepareExchange(engine: Engine, body: unknown): Promise<PreparedAction | Reply> {
  const type = (body as { action?: { type?: unknown } } | null)?.action?.type;
  if (typeof type !== 'string') return { status: 422, text: DESERIALIZE_ERROR };
  const isTestnet = engine.state.network === 'testnet';
  if (L1_TYPES.has(type)) {
    const schema = type === 'order' ? OrderRequest : type === 'cancel' ? CancelRequest : CancelByCloidRequest;
    type L1Request = {
      action: Record<string, unknown>;
      nonce: number;
      signature: WireSignature;
      vaultAddress?: `0x${string}`;
      expiresAfter?: number;
    };
    const req = parseWith<L1Request>(schema, body);
    if (!req) return { status: 422, text: DESERIALIZE_ERROR };
    const { signer, hash } = await recoverL1Signer({ ...req, isTestnet });
    const cloids =
      type === 'order'
        ? (req.action.orders as OrderWire[]).flatMap((o) => (o.c ? [o.c.toLowerCase()] : []))
        : type === 'cancelByCloid'
          ? (req.action.cancels as { cloid: string }[]).map((c) => c.cloid.toLowerCase())
          : [];
    return {
      actionType: type,
      signer,
      user: actingUser(engine, signer),
      cloids,
      apply: ({ fillFraction }) => applyL1(engine, type, req, signer, hash, fillFraction),
    };
  }
  const userSigned = USER_SIGNED[type];
  if (!userSigned) return { status: 422, text: `${DESERIALIZE_ERROR}: unknown action type ${type}` };
  type UserSignedRequest = { action: Record<string, unknown> & { signatureChainId: string }; nonce: number; signature: WireSignature };
  const req = parseWith<UserSignedRequest>(userSigned.schema, body);
  if (!req) return { status: 422, text: DESERIALIZE_ERROR };
  const { signer, hash } = await recoverUserSigner({ action: req.action, types: userSigned.types, signature: req.signature });
  return {
    actionType: type,
    signer,
    user: engine.isKnownUser(signer) ? signer : null,
    cloids: [],
    apply: () => applyUserSigned(engine, type, req, signer, hash),
  };
}

function checkNonce(engine: Engine, signer: Address, nonce: number): string | null {
  const kept = (engine.state.nonces[signer] ??= []);
  return nonceProblem(kept, nonce, engine.now(), engine.state.nonceConfig);
}

function acceptNonce(engine: Engine, signer: Address, nonce: number): void {
  recordNonce((engine.state.nonces[signer] ??= []), nonce, engine.state.nonceConfig);
}

function applyL1(
  engine: Engine,
  type: string,
  req: { action: Record<string, unknown>; nonce: number; vaultAddress?: `0x${string}`; expiresAfter?: number },
  signer: Address,
  hash: `0x${string}`,
  fillFraction: bigint | null,
): unknown {
  const user = actingUser(engine, signer);
  if (!user) return err(VenueErrors.unknownUser(signer));
  if (req.vaultAddress) return err('Vault and sub-account actions are not supported by the simulator');
  if (req.expiresAfter !== undefined && req.expiresAfter < engine.now()) return err('Action expired');
  const nonceError = checkNonce(engine, signer, req.nonce);
  if (nonceError) return err(nonceError);

  if (type === 'order') {
    const orders = req.action.orders as OrderWire[];
    const builder = req.action.builder as { b: `0x${string}`; f: number } | undefined;
    if (builder) {
      const anyPerp = orders.some((o) => engine.market(o.a) && !engine.market(o.a)!.isSpot);
      const cap = anyPerp ? engine.state.maxPerpBuilderFeeTenthBp : engine.state.maxSpotBuilderFeeTenthBp;
      if (builder.f > cap) return err(VenueErrors.builderFeeTooHigh);
      const approved = engine.isKnownUser(user) ? (engine.user(user).builderApprovals[lower(builder.b)] ?? 0) : 0;
      if (builder.f > approved) return err(VenueErrors.builderNotApproved);
    }
    acceptNonce(engine, signer, req.nonce);
    const touched = new Set<number>();
    const statuses: OrderStatusReply[] = orders.map((o) =>
      engine.placeOrder(user, o, builder ? { b: lower(builder.b), f: builder.f } : null, hash, fillFraction, touched),
    );
    for (const asset of touched) engine.refreshLiquidity(engine.market(asset)!);
    return { status: 'ok', response: { type: 'order', data: { statuses } } };
  }
  acceptNonce(engine, signer, req.nonce);
  const statuses =
    type === 'cancel'
      ? (req.action.cancels as { a: number; o: number }[]).map((c) => [engine.cancel(user, c.a, c.o), c.a] as const)
      : (req.action.cancels as { asset: number; cloid: string }[]).map((c) => [engine.cancelByCloid(user, c.asset, c.cloid), c.asset] as const);
  return {
    status: 'ok',
    response: { type: 'cancel', data: { statuses: statuses.map(([done, asset]) => (done ? 'success' : { error: orderError(VenueErrors.cancelMissing, asset) })) } },
  };
}

const VALID_UNTIL = / valid_until (\d+)$/;

function applyUserSigned(
  engine: Engine,
  type: string,
  req: { action: Record<string, unknown>; nonce: number },
  signer: Address,
  hash: `0x${string}`,
): unknown {
  const a = req.action;
  const expectedChain = engine.state.network === 'testnet' ? 'Testnet' : 'Mainnet';
  if (a.hyperliquidChain !== expectedChain) return err(`Invalid hyperliquidChain: expected ${expectedChain}`);
  const innerNonce = type === 'spotSend' || type === 'usdSend' ? a.time : a.nonce;
  if (innerNonce !== req.nonce) return err('Invalid nonce: action nonce does not match the request nonce');
  if (engine.state.agents[signer]) return err('Must be signed by the main wallet, not an API wallet');
  if (!engine.isKnownUser(signer)) return err(VenueErrors.unknownUser(signer));
  const nonceError = checkNonce(engine, signer, req.nonce);
  if (nonceError) return err(nonceError);
  const now = engine.now();

  switch (type) {
    case 'approveAgent': {
      const agentAddress = lower(a.agentAddress as string);
      if (agentAddress === signer || engine.isKnownUser(agentAddress)) return err('Agent address is already a user');
      const rawName = (a.agentName as string | null) ?? '';
      const m = VALID_UNTIL.exec(rawName);
      const name = m ? rawName.slice(0, m.index) : rawName;
      const validUntil = m ? Number(m[1]) : now + engine.state.agentDefaultValidityMs;
      acceptNonce(engine, signer, req.nonce);
      // One API wallet per name (the unnamed one included): approving again replaces it.
      for (const [addr, ag] of Object.entries(engine.state.agents)) {
        if (ag.master === signer && ag.name === name) delete engine.state.agents[addr];
      }
      engine.state.agents[agentAddress] = { address: agentAddress, master: signer, name, validUntil };
      return ok;
    }
    case 'approveBuilderFee': {
      const rate = /^(\d+(?:\.\d+)?)%$/.exec(a.maxFeeRate as string);
      const pct = rate ? parseUnits(rate[1]!, { decimals: 3 }) : null;
      // percent * 1000 = tenths of a basis point (0.001 % = 0.1 bp).
      const tenthBp = pct === null ? null : mulDivDown(pct, 1000n, UNIT);
      if (tenthBp === null || tenthBp > BigInt(engine.state.maxSpotBuilderFeeTenthBp)) return err('Invalid max fee rate');
      // The venue approves only a builder holding enough perps account value.
      const minimum = engine.profile.builderMinAccountValueUsd;
      if (minimum !== null) {
        const builder = engine.state.users[lower(a.builder as string)];
        if (!builder || engine.accountValue(builder) < parseUnits(minimum)!) return err('Builder has insufficient balance to be approved.');
      }
      acceptNonce(engine, signer, req.nonce);
      engine.user(signer).builderApprovals[lower(a.builder as string)] = Number(tenthBp);
      return ok;
    }
    case 'spotSend': {
      const token = engine.tokenBySpec(a.token as string);
      if (token < 0) return err(`Unknown token ${String(a.token)}`);
      const spec = engine.state.spotTokens[token]!;
      const amount = parseUnits(a.amount as string, { decimals: spec.weiDecimals });
      if (amount === null || amount <= 0n) return err('Invalid amount');
      const from = engine.spotBalance(engine.user(signer), token);
      if (from.total - from.hold < amount) return err('Insufficient balance for token transfer');
      acceptNonce(engine, signer, req.nonce);
      const destination = lower(a.destination as string);
      from.total -= amount;
      engine.spotBalance(engine.user(destination), token).total += amount;
      const delta = {
        type: 'spotTransfer', token: spec.name, amount: formatUnitsFixed(amount), usdcValue: formatUnitsFixed(usdcValue(engine, token, amount)),
        user: signer, destination, fee: '0.0', nativeTokenFee: '0.0', nonce: req.nonce, feeToken: '',
      };
      engine.pushLedger(signer, { time: now, hash, delta });
      if (destination !== signer) engine.pushLedger(destination, { time: now, hash, delta });
      return ok;
    }
    case 'usdSend': {
      const amount = parseUnits(a.amount as string, { decimals: 6 });
      if (amount === null || amount <= 0n) return err('Invalid amount');
      if (engine.withdrawable(signer) < amount) return err('Insufficient balance for withdrawal');
      acceptNonce(engine, signer, req.nonce);
      const destination = lower(a.destination as string);
      engine.user(signer).perpUsd -= amount;
      engine.user(destination).perpUsd += amount;
      const delta = { type: 'internalTransfer', usdc: formatUnitsFixed(amount), user: signer, destination, fee: '0.0' };
      engine.pushLedger(signer, { time: now, hash, delta });
      if (destination !== signer) engine.pushLedger(destination, { time: now, hash, delta });
      return ok;
    }
  }
  return err(`Unsupported action ${type}`);
}

function usdcValue(engine: Engine, token: number, amount: bigint): bigint {
  const usdc = engine.tokenByName('USDC');
  if (token === usdc) return amount;
  const m = Object.values(engine.state.markets).find((x) => x.isSpot && x.baseToken === token && x.quoteToken === usdc);
  return m ? mulDivDown(engine.midPx(m), amount, UNIT) : 0n;
}
