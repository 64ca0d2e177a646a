// `POST /info`: read-only views in the venue's reply shapes.
import { absBig, formatUnitsFixed, mulDivDown, UNIT } from './decimal.ts';
import { lower, type Engine } from './engine.ts';
import { DESERIALIZE_ERROR, type Reply } from './exchange.ts';
import type { Address } from './state.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const CLOID = /^0x[0-9a-fA-F]{32}$/;

export type InfoContext = { unknownOid: boolean };

/** The user the request names (for fault matching), lower case, if any. */
export function infoUser(body: unknown): Address | null {
  const u = (body as { user?: unknown } | null)?.user;
  return typeof u === 'string' && ADDRESS.test(u) ? lower(u) : null;
}

export function infoCloid(body: unknown): string | null {
  const oid = (body as { oid?: unknown } | null)?.oid;
  return typeof oid === 'string' && CLOID.test(oid) ? oid.toLowerCase() : null;
}

/** The first `cap` rows of a history reply (the venue's page size); all when no cap. */
function capped<T>(rows: T[], cap: number | undefined): T[] {
  return cap === undefined ? rows : rows.slice(0, cap);
}

/**
 * What a new `userFills` or `userNonFundingLedgerUpdates` subscription is first sent: the user's
 * kept fills newest first, as `userFills` answers, or its most recent ledger updates, within
 * the profile's page caps.
 */
export function snapshotOf(engine: Engine, user: Address, channel: 'userFills' | 'userNonFundingLedgerUpdates'): unknown[] {
  const u = engine.state.users[user];
  if (channel === 'userFills') return capped([...(u?.fills ?? [])].reverse(), engine.profile.pageCaps?.fills);
  const ledger = u?.ledger ?? [];
  const cap = engine.profile.pageCaps?.ledgerUpdates;
  return cap === undefined ? [...ledger] : ledger.slice(-cap);
}

export function handleInfo(engine: Engine, body: unknown, ctx: InfoContext): Reply {
  const b = (body ?? {}) as Record<string, unknown>;
  const bad: Reply = { status: 422, text: DESERIALIZE_ERROR };
  const needsUser = (): Address | null => infoUser(b);
  const s = engine.state;
  switch (b.type) {
    case 'meta':
      return {
        status: 200,
        json: {
          universe: s.perps.map((p) => ({ szDecimals: p.szDecimals, name: p.name, maxLeverage: p.maxLeverage, marginTableId: p.maxLeverage })),
          marginTables: [...new Set(s.perps.map((p) => p.maxLeverage))].map((lev) => [
            lev,
            { description: '', marginTiers: [{ lowerBound: '0.0', maxLeverage: lev }] },
          ]),
          collateralToken: 0,
        },
      };
    case 'spotMeta':
      return {
        status: 200,
        json: {
          universe: s.spotPairs.map((p, index) => ({ tokens: [p.base, p.quote], name: p.name, index, isCanonical: p.name.includes('/') })),
          tokens: s.spotTokens.map((t, index) => ({
            name: t.name, szDecimals: t.szDecimals, weiDecimals: t.weiDecimals, index, tokenId: t.tokenId,
            isCanonical: true, evmContract: null, fullName: null, deployerTradingFeeShare: '0.0',
          })),
        },
      };
    case 'allMids': {
      const mids: Record<string, string> = {};
      for (const m of Object.values(s.markets)) {
        const mid = engine.midPx(m);
        if (mid > 0n) mids[m.coin] = formatUnitsFixed(mid);
      }
      return { status: 200, json: mids };
    }
    case 'l2Book': {
      const m = typeof b.coin === 'string' ? engine.marketByCoin(b.coin) : undefined;
      return { status: 200, json: m ? engine.l2Book(m) : null };
    }
    case 'maxBuilderFee': {
      const user = needsUser();
      if (!user || typeof b.builder !== 'string' || !ADDRESS.test(b.builder)) return bad;
      const approvals = s.users[user]?.builderApprovals ?? {};
      return { status: 200, json: approvals[lower(b.builder)] ?? 0 };
    }
    case 'extraAgents': {
      const user = needsUser();
      if (!user) return bad;
      // Named API wallets only, as the venue lists them in every profile; an unnamed one shows in `userRole`.
      const agents = Object.values(s.agents).filter((a) => a.master === user && a.name !== '');
      return { status: 200, json: agents.map((a) => ({ address: a.address, name: a.name, validUntil: a.validUntil })) };
    }
    case 'userRole': {
      const user = needsUser();
      if (!user) return bad;
      const agent = s.agents[user];
      if (agent) return { status: 200, json: { role: 'agent', data: { user: agent.master } } };
      return { status: 200, json: { role: engine.isKnownUser(user) ? 'user' : 'missing' } };
    }
    case 'orderStatus': {
      const user = needsUser();
      const ref = typeof b.oid === 'number' && Number.isSafeInteger(b.oid) ? b.oid : infoCloid(b);
      if (!user || ref === null) return bad;
      const o = engine.orderByOidOrCloid(user, ref);
      // Read lag: the API server answering may not have seen an order placed a moment ago.
      const lagging = o !== undefined && engine.now() - o.timestamp < engine.profile.readLagMs;
      if (!o || ctx.unknownOid || lagging) return { status: 200, json: { status: 'unknownOid' } };
      return { status: 200, json: { status: 'order', order: { order: engine.frontendOrder(o), status: o.status, statusTimestamp: o.statusTimestamp } } };
    }
    case 'openOrders': {
      const user = needsUser();
      if (!user) return bad;
      const orders = engine.restingOrdersOf(user).sort((x, y) => y.timestamp - x.timestamp || y.oid - x.oid);
      return {
        status: 200,
        json: orders.map((o) => ({ ...engine.basicOrder(o), ...(o.reduceOnly ? { reduceOnly: true } : {}) })),
      };
    }
    case 'userFills': {
      const user = needsUser();
      if (!user) return bad;
      return { status: 200, json: capped([...(s.users[user]?.fills ?? [])].reverse(), engine.profile.pageCaps?.fills) };
    }
    case 'userFillsByTime': {
      const user = needsUser();
      if (!user || typeof b.startTime !== 'number') return bad;
      const end = typeof b.endTime === 'number' ? b.endTime : Number.MAX_SAFE_INTEGER;
      const fills = (s.users[user]?.fills ?? []).filter((f) => f.time >= (b.startTime as number) && f.time <= end);
      return { status: 200, json: capped(b.reversed === true ? fills.reverse() : fills, engine.profile.pageCaps?.fills) };
    }
    case 'userNonFundingLedgerUpdates': {
      const user = needsUser();
      if (!user || typeof b.startTime !== 'number') return bad;
      const end = typeof b.endTime === 'number' ? b.endTime : Number.MAX_SAFE_INTEGER;
      return { status: 200, json: capped((s.users[user]?.ledger ?? []).filter((l) => l.time >= (b.startTime as number) && l.time <= end), engine.profile.pageCaps?.ledgerUpdates) };
    }
    case 'clearinghouseState': {
      const user = needsUser();
      if (!user) return bad;
      return { status: 200, json: clearinghouseState(engine, user) };
    }
    case 'spotClearinghouseState': {
      const user = needsUser();
      if (!user) return bad;
      const u = s.users[user];
      const balances = Object.entries(u?.spot ?? {})
        .filter(([, bal]) => bal.total !== 0n || bal.hold !== 0n)
        .map(([token, bal]) => ({
          coin: s.spotTokens[Number(token)]!.name, token: Number(token), total: formatUnitsFixed(bal.total), hold: formatUnitsFixed(bal.hold), entryNtl: '0.0',
        }))
        .sort((x, y) => x.token - y.token);
      return { status: 200, json: { balances } };
    }
    default:
      return bad;
  }
}

function clearinghouseState(engine: Engine, address: Address) {
  const u = engine.state.users[address];
  const empty = { accountValue: '0.0', totalNtlPos: '0.0', totalRawUsd: '0.0', totalMarginUsed: '0.0' };
  if (!u) {
    return { marginSummary: empty, crossMarginSummary: empty, crossMaintenanceMarginUsed: '0.0', withdrawable: '0.0', assetPositions: [], time: engine.now() };
  }
  let totalNtl = 0n;
  let rawUsd = u.perpUsd;
  const assetPositions = Object.entries(u.positions).map(([coin, p]) => {
    const m = engine.marketByCoin(coin)!;
    const mark = engine.markPx(coin);
    const value = mulDivDown(absBig(p.szi), mark, UNIT);
    totalNtl += value;
    rawUsd += p.szi > 0n ? -value : value;
    const upnl = engine.unrealizedPnl(coin, p.szi, p.entryNtl);
    const marginUsed = value / BigInt(m.maxLeverage);
    return {
      type: 'oneWay',
      position: {
        coin,
        szi: formatUnitsFixed(p.szi),
        leverage: { type: 'cross', value: m.maxLeverage },
        entryPx: formatUnitsFixed(mulDivDown(p.entryNtl, UNIT, absBig(p.szi))),
        positionValue: formatUnitsFixed(value),
        unrealizedPnl: formatUnitsFixed(upnl),
        returnOnEquity: marginUsed > 0n ? formatUnitsFixed(mulDivDown(upnl < 0n ? -upnl : upnl, UNIT, marginUsed) * (upnl < 0n ? -1n : 1n)) : '0.0',
        liquidationPx: null,
        marginUsed: formatUnitsFixed(marginUsed),
        maxLeverage: m.maxLeverage,
        cumFunding: { allTime: '0.0', sinceOpen: '0.0', sinceChange: '0.0' },
      },
    };
  });
  const accountValue = engine.accountValue(u);
  const summary = {
    accountValue: formatUnitsFixed(accountValue),
    totalNtlPos: formatUnitsFixed(totalNtl),
    totalRawUsd: formatUnitsFixed(rawUsd),
    totalMarginUsed: formatUnitsFixed(engine.positionMargin(u)),
  };
  return {
    marginSummary: summary,
    crossMarginSummary: summary,
    crossMaintenanceMarginUsed: formatUnitsFixed(engine.positionMargin(u) / 2n),
    withdrawable: formatUnitsFixed(engine.withdrawable(address)),
    assetPositions,
    time: engine.now(),
  };
}
