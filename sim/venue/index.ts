// The venue simulator, in-process: an HTTP server speaking the venue's `/info` and `/exchange`
// (enough for the unmodified `@nktkas/hyperliquid` clients) plus the `/_sim/*` control surface.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { resolveConfig, type VenueSimConfig, type VenueSimConfigInput } from './config.ts';
import { handleControl } from './control-routes.ts';
import { parseUnits } from './decimal.ts';
import { createInitialState, Engine } from './engine.ts';
import { prepareExchange, type PreparedAction, type Reply } from './exchange.ts';
import { takeFault, type FaultSubject } from './faults.ts';
import { handleInfo, infoCloid, infoUser, snapshotOf } from './info.ts';
import { attachVenueSocket } from './ws.ts';
import { loadState, saveState, type Address, type DeferredApply } from './state.ts';
import { OtherTraders, type OtherTraderAddresses } from './other-traders.ts';
import { drawLatencyMs, resolveProfile, WeightLimiter, type SimProfile, type SimProfileName } from './profile.ts';
import { replyWeight, requestWeight } from '../../src/domain/venue/request-weight.ts';

export type { VenueSimConfig, VenueSimConfigInput } from './config.ts';
export type { SimProfile, SimProfileName } from './profile.ts';
export { resolveProfile } from './profile.ts';
export { DEFAULT_CONFIG } from './config.ts';
export { VenueSimControl, VenueSimControlError } from './control.ts';
export type { FaultEffect, FaultMatch, FaultRule } from './faults.ts';
export { SPOT_ASSET_OFFSET, VenueErrors } from './engine.ts';

export type VenueSimOptions = {
  /** Directory for `state.json`; null or absent: in memory only (tests). */
  dataDir?: string | null;
  /** 0 (default): any free port. */
  port?: number;
  host?: string;
  /** Seeds the liquidity account's address and the mid walks. */
  seed?: number;
  config?: VenueSimConfigInput;
  /** How long a faulted request is held without a reply before its connection is dropped (default 30 s). */
  faultHoldMs?: number;
  /** `fast` (default) or `realistic` (profile.ts), by name or resolved with overrides. */
  profile?: SimProfileName | SimProfile;
};

export type VenueSim = {
  /** Base URL, e.g. `http://127.0.0.1:40123` (give it to `HttpTransport` as `apiUrl`). */
  url: string;
  /** The venue's WebSocket, e.g. `ws://127.0.0.1:40123/ws` (give it to `WebSocketTransport` as `url`). */
  wsUrl: string;
  port: number;
  host: string;
  /** The seeded liquidity account, the counterparty of the books' default levels. */
  liquidityAddress: Address;
  /** The other makers' and takers' accounts (profile `movingBook`), null when the profile has none. */
  otherTraders: OtherTraderAddresses | null;
  config: VenueSimConfig;
  profile: SimProfile;
  stop(): Promise<void>;
};

const MAX_BODY_BYTES = 1_000_000;
const DEFAULT_HOLD_MS = 30_000;

export async function startVenueSim(options: VenueSimOptions = {}): Promise<VenueSim> {
  const config = resolveConfig(options.config);
  const seed = options.seed ?? 1;
  const dataDir = options.dataDir ?? null;
  const holdMs = options.faultHoldMs ?? DEFAULT_HOLD_MS;

  const fresh = () => {
    const e = new Engine(createInitialState(config, seed));
    e.seedLiquidity();
    return e.state;
  };
  const engine = new Engine((dataDir && loadState(dataDir)) || fresh());
  const profile = typeof options.profile === 'object' ? options.profile : resolveProfile(options.profile);
  engine.profile = profile;
  const traders = profile.movingBook ? new OtherTraders(engine, profile.movingBook) : null;
  const limiter = profile.weightPerMin === null ? null : new WeightLimiter(profile.weightPerMin);
  const persist = () => {
    if (dataDir) saveState(dataDir, engine.state);
  };
  persist();

  // One request at a time: every mutation and its persistence complete before the next begins.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T> | T): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const held = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;

  const hold = (res: ServerResponse, ms: number | undefined) => {
    const socket = res.socket;
    if (!socket) return;
    held.add(socket);
    const t = setTimeout(() => {
      timers.delete(t);
      held.delete(socket);
      socket.destroy();
    }, ms ?? holdMs);
    timers.add(t);
  };

  // An `applyLater` action: kept in the state (so a restart still applies it) and applied when due.
  const scheduleDeferred = (entry: DeferredApply) => {
    const t = setTimeout(() => {
      timers.delete(t);
      void serial(async () => {
        const i = engine.state.deferred.indexOf(entry);
        if (stopped || i < 0) return;
        engine.state.deferred.splice(i, 1);
        const prepared = await prepareExchange(engine, entry.body);
        if ('apply' in prepared) prepared.apply({ fillFraction: null });
        persist();
      });
    }, Math.max(0, entry.dueAtMs - engine.now()));
    timers.add(t);
  };
  const deferLater = (body: unknown, delayMs: number) => {
    const entry: DeferredApply = { dueAtMs: engine.now() + delayMs, body };
    engine.state.deferred.push(entry);
    scheduleDeferred(entry);
  };

  const send = (res: ServerResponse, reply: Reply) => {
    if (reply.text !== undefined) {
      res.writeHead(reply.status, { 'content-type': 'text/plain' }).end(reply.text);
    } else {
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.json ?? null));
    }
  };

  const onExchange = async (res: ServerResponse, body: unknown): Promise<void> => {
    const prepared = await prepareExchange(engine, body);
    if (!('apply' in prepared)) return send(res, prepared);
    const p: PreparedAction = prepared;
    const subject: FaultSubject = {
      endpoint: 'exchange',
      action: p.actionType,
      users: [p.signer, ...(p.user ? [p.user] : [])],
      cloids: p.cloids,
    };
    const rules = engine.state.faults;
    const fault = takeFault(rules, subject, ['reject', 'http', 'timeoutBeforeApply', 'timeoutAfterApply', 'applyLater']);
    const partial = takeFault(rules, subject, ['partialFill']);
    if (fault || partial) persist(); // counts consumed
    const fillFraction = partial && partial.effect.type === 'partialFill' ? parseUnits(partial.effect.fraction) : null;
    switch (fault?.effect.type) {
      case 'reject':
        if (fault.effect.applied === true) {
          p.apply({ fillFraction });
          persist();
        }
        return send(res, { status: 200, json: { status: 'err', response: fault.effect.message } });
      case 'http':
        return send(res, { status: fault.effect.status, text: `simulated HTTP ${fault.effect.status}` });
      case 'timeoutBeforeApply':
        return hold(res, fault.effect.holdMs);
      case 'applyLater':
        deferLater(body, fault.effect.delayMs);
        persist();
        return hold(res, fault.effect.holdMs);
      case 'timeoutAfterApply':
        p.apply({ fillFraction });
        persist();
        return hold(res, fault.effect.holdMs);
    }
    const json = p.apply({ fillFraction });
    persist();
    send(res, { status: 200, json });
  };

  const onInfo = (res: ServerResponse, body: unknown): void => {
    const user = infoUser(body);
    const cloid = infoCloid(body);
    const subject: FaultSubject = {
      endpoint: 'info',
      infoType: String((body as { type?: unknown } | null)?.type),
      users: user ? [user] : [],
      cloids: cloid ? [cloid] : [],
    };
    const fault = takeFault(engine.state.faults, subject, ['http', 'timeoutBeforeApply', 'infoDown', 'unknownOid']);
    if (fault) persist();
    switch (fault?.effect.type) {
      case 'http':
        return send(res, { status: fault.effect.status, text: `simulated HTTP ${fault.effect.status}` });
      case 'timeoutBeforeApply':
        return hold(res, fault.effect.holdMs);
      case 'infoDown':
        res.socket?.destroy();
        return;
    }
    send(res, handleInfo(engine, body, { unknownOid: fault?.effect.type === 'unknownOid' }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://sim').pathname;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return send(res, { status: 413, text: 'payload too large' });
      chunks.push(chunk);
    }
    let body: unknown = {};
    const raw = Buffer.concat(chunks).toString('utf8');
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        return send(res, { status: 422, text: 'Failed to parse the request body as JSON' });
      }
    }
    const endpoint = req.method === 'POST' && (path === '/info' || path === '/exchange') ? (path.slice(1) as 'info' | 'exchange') : null;
    // The venue's own behaviours apply to its API only: the control surface is free and immediate.
    if (endpoint !== null) {
      const client = req.socket.remoteAddress ?? 'unknown';
      if (limiter) {
        const taken = limiter.take(client, requestWeight(endpoint, body), Date.now());
        if (!taken.ok) {
          res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': String(Math.ceil(taken.retryAfterMs / 1000)) }).end('Too many requests');
          return;
        }
        const counted = res.end.bind(res);
        // The item-priced histories weigh what they returned.
        res.end = ((chunk?: unknown, ...rest: unknown[]) => {
          if (typeof chunk === 'string' && res.statusCode === 200) {
            try {
              limiter.add(client, replyWeight(endpoint, body, JSON.parse(chunk)), Date.now());
            } catch {
              // not JSON: weighs nothing more
            }
          }
          return (counted as (...args: unknown[]) => ServerResponse)(chunk, ...rest);
        }) as typeof res.end;
      }
      if (profile.latency) await new Promise((resolve) => setTimeout(resolve, drawLatencyMs(profile.latency!)));
    }
    await serial(async () => {
      if (traders ? traders.advance() : engine.advanceWalks()) persist();
      if (endpoint === 'info') return onInfo(res, body);
      if (endpoint === 'exchange') return onExchange(res, body);
      if (path === '/_sim/ws/drop') {
        const refuseMs = Number((body as { refuseMs?: unknown } | null)?.refuseMs ?? 0);
        return send(res, { status: 200, json: { dropped: socket.drop(Number.isFinite(refuseMs) ? refuseMs : 0) } });
      }
      if (path.startsWith('/_sim/')) {
        const result = handleControl(engine, req.method ?? 'GET', path, (body ?? {}) as Record<string, unknown>, () => {
          engine.state = fresh();
        }, traders ? (m) => traders.relay(m) : undefined);
        if (result.mutated) persist();
        return send(res, result);
      }
      send(res, { status: 404, text: 'Not Found' });
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, { status: 500, text: `venue simulator error: ${String(error)}` });
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  // The user subscriptions on `/ws`; what a request records is pushed after it (ws.ts).
  const socket = attachVenueSocket({ server, engine, profile, snapshot: (user, channel) => snapshotOf(engine, user, channel) });
  for (const entry of engine.state.deferred) scheduleDeferred(entry);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      stopped = true;
      socket.close();
      for (const t of timers) clearTimeout(t);
      for (const s of held) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue;
    })());

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    wsUrl: `ws://${host.includes(':') ? `[${host}]` : host}:${port}/ws`,
    port,
    host,
    liquidityAddress: engine.state.liquidityAddress,
    otherTraders: traders?.addresses ?? null,
    config,
    profile,
    stop,
  };
}
