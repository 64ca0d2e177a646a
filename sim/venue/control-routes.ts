// `/_sim/*`: the test and demo control surface. Never part of a production venue.
import { serializeState, type Market, type SimState } from './state.ts';
import { formatUnitsFixed, parseUnits } from './decimal.ts';
import { lower, type Engine } from './engine.ts';
import type { Reply } from './exchange.ts';
import { validateFault } from './faults.ts';
import { burnNonces } from './nonces.ts';
import type { LiquidityConfig } from './config.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export type ControlResult = Reply & { mutated: boolean; reset?: boolean };

const bad = (message: string): ControlResult => ({ status: 400, json: { error: message }, mutated: false });
const done = (json: unknown): ControlResult => ({ status: 200, json, mutated: true });

/** Dumps the state with bigints as decimal strings of units (10^-8). */
export function stateDump(state: SimState): unknown {
  return JSON.parse(serializeState(state), (_k, v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v.$big === 'string' ? v.$big : v,
  );
}

export function handleControl(
  engine: Engine,
  method: string,
  path: string,
  body: Record<string, unknown>,
  resetState: () => void,
  /** Lays a book afresh after its set-up changed (with a moving book, the other makers too). */
  relayBook: (m: Market) => void = (m) => engine.refreshLiquidity(m),
): ControlResult {
  const s = engine.state;
  const route = `${method} ${path}`;
  switch (route) {
    case 'POST /_sim/fund': {
      const { user, account, token, amount } = body;
      if (typeof user !== 'string' || !ADDRESS.test(user)) return bad('user must be an address');
      const units = parseUnits(amount, { decimals: 8 });
      if (units === null || units <= 0n) return bad('amount must be a positive decimal string');
      const u = engine.user(user);
      if (account === 'perp') {
        if (token !== undefined && token !== 'USDC') return bad('perp accounts hold USDC only');
        if (parseUnits(amount, { decimals: 6 }) === null) return bad('USDC amounts have at most 6 decimals');
        u.perpUsd += units;
        engine.pushLedger(user, { time: engine.now(), hash: `0x${'0'.repeat(64)}`, delta: { type: 'deposit', usdc: formatUnitsFixed(units) } });
        return done({ user: lower(user), account, token: 'USDC', perpUsd: formatUnitsFixed(u.perpUsd) });
      }
      if (account === 'spot') {
        const t = typeof token === 'string' ? engine.tokenBySpec(token) : -1;
        if (t < 0) return bad('unknown spot token');
        if (parseUnits(amount, { decimals: s.spotTokens[t]!.weiDecimals }) === null) return bad('amount is finer than the token weiDecimals');
        const bal = engine.spotBalance(u, t);
        bal.total += units;
        return done({ user: lower(user), account, token: s.spotTokens[t]!.name, total: formatUnitsFixed(bal.total) });
      }
      return bad('account must be "perp" or "spot"');
    }
    case 'POST /_sim/book': {
      const m = typeof body.coin === 'string' ? engine.marketByCoin(body.coin) : undefined;
      if (!m) return bad('unknown coin');
      const base: LiquidityConfig = m.liquidity ?? { mid: '0', levels: 10, halfSpreadBps: 1, stepBps: 2, levelNotionalUsd: '10000', walk: null };
      const next: LiquidityConfig = { ...base };
      for (const k of ['levels', 'halfSpreadBps', 'stepBps'] as const) {
        if (body[k] !== undefined) {
          const v = body[k];
          if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 1000) return bad(`${k} must be an integer 0..1000`);
          next[k] = v;
        }
      }
      if (body.levelNotionalUsd !== undefined) {
        if (parseUnits(body.levelNotionalUsd) === null) return bad('levelNotionalUsd must be a decimal string');
        next.levelNotionalUsd = body.levelNotionalUsd as string;
      }
      if (body.walk !== undefined) {
        const w = body.walk as { stepBps?: unknown; intervalMs?: unknown } | null;
        if (w !== null && (typeof w?.stepBps !== 'number' || typeof w.intervalMs !== 'number' || w.intervalMs <= 0)) {
          return bad('walk must be null or { stepBps, intervalMs }');
        }
        next.walk = w as LiquidityConfig['walk'];
        m.walkStep = 0;
      }
      if (body.mid !== undefined) {
        const mid = parseUnits(body.mid);
        if (mid === null || mid <= 0n) return bad('mid must be a positive decimal string');
        next.mid = body.mid as string;
        m.mid = mid;
      }
      if (body.moving !== undefined) {
        if (typeof body.moving !== 'boolean') return bad('moving must be a boolean');
        m.moving = body.moving;
        m.walkStep = 0;
        delete m.takerStep;
      }
      // `enabled: false` takes the liquidity account off this book (tests then lay out their own orders).
      m.liquidity = body.enabled === false ? null : next;
      relayBook(m);
      return done(engine.l2Book(m));
    }
    case 'GET /_sim/clock':
      return { status: 200, json: { nowMs: engine.now(), frozen: s.frozenAtMs !== null }, mutated: false };
    case 'POST /_sim/clock': {
      const { setMs, advanceMs, freeze } = body;
      if (setMs !== undefined && (typeof setMs !== 'number' || !Number.isSafeInteger(setMs))) return bad('setMs must be an integer');
      if (advanceMs !== undefined && (typeof advanceMs !== 'number' || !Number.isSafeInteger(advanceMs))) return bad('advanceMs must be an integer');
      let now = engine.now();
      if (typeof setMs === 'number') now = setMs;
      if (typeof advanceMs === 'number') now += advanceMs;
      const frozen = freeze === undefined ? s.frozenAtMs !== null : freeze === true;
      s.frozenAtMs = frozen ? now : null;
      s.clockOffsetMs = now - Date.now();
      return done({ nowMs: engine.now(), frozen });
    }
    case 'GET /_sim/state':
      return { status: 200, json: stateDump(s), mutated: false };
    case 'POST /_sim/reset':
      resetState();
      return { status: 200, json: { ok: true }, mutated: true, reset: true };
    case 'POST /_sim/nonces': {
      const { signer, upTo } = body;
      if (typeof signer !== 'string' || !ADDRESS.test(signer)) return bad('signer must be an address');
      if (upTo !== undefined && (typeof upTo !== 'number' || !Number.isSafeInteger(upTo))) return bad('upTo must be an integer (ms)');
      const kept = (s.nonces[lower(signer)] ??= []);
      burnNonces(kept, typeof upTo === 'number' ? upTo : engine.now(), s.nonceConfig);
      return done({ signer: lower(signer), lowestKept: kept[0], highestKept: kept[kept.length - 1] });
    }
    case 'GET /_sim/faults':
      return { status: 200, json: s.faults, mutated: false };
    case 'POST /_sim/faults': {
      const rule = validateFault(body);
      if (typeof rule === 'string') return bad(rule);
      const id = s.nextFaultId++;
      s.faults.push({ id, ...rule });
      return done({ id });
    }
    case 'DELETE /_sim/faults':
    case 'POST /_sim/faults/clear': {
      const id = body.id;
      if (id !== undefined) s.faults = s.faults.filter((f) => f.id !== id);
      else s.faults = [];
      return done({ ok: true });
    }
    default:
      return { status: 404, json: { error: `no route ${route}` }, mutated: false };
  }
}
