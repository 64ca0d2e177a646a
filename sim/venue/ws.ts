// The venue's WebSocket (`/ws`) as far as the service uses it: the user subscriptions `userFills`,
// `orderUpdates` and `userNonFundingLedgerUpdates`, `ping`, and the venue's per-IP limit on the
// users subscribed to. Message shapes are the venue's ("Websocket > Subscriptions" in its API
// docs, and the unmodified @nktkas/hyperliquid SubscriptionClient, which the tests subscribe with).
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Engine, VenuePush } from './engine.ts';
import { takeFault } from './faults.ts';
import { drawLatencyMs, type SimProfile } from './profile.ts';
import type { Address } from './state.ts';

/** The venue's limit: "Maximum of 10 unique users across user-specific websocket subscriptions" (per IP; API docs, "Rate limits and user limits"). */
export const MAX_USERS_PER_IP = 10;
/** The venue closes a connection it has heard nothing from for 60 s (API docs, "Websocket > Heartbeats"). */
export const IDLE_CLOSE_MS = 60_000;

const CHANNELS = new Set(['userFills', 'orderUpdates', 'userNonFundingLedgerUpdates']);
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

type Subscription = { type: string; user: Address; aggregateByTime?: boolean };

interface Connection {
  socket: WebSocket;
  ip: string;
  /** Subscriptions by their canonical JSON. */
  subscriptions: Map<string, Subscription>;
  heardAt: number;
  /** Sends in order, each after the profile's latency. */
  sending: Promise<void>;
}

export interface VenueSocket {
  /** Drops every connection, and refuses new ones for `refuseMs` (a venue-side disconnect). */
  drop(refuseMs: number): number;
  close(): void;
}

export interface VenueSocketOptions {
  server: Server;
  engine: Engine;
  profile: SimProfile;
  /** Which fills and ledger updates a snapshot may show (the REST page caps apply to it too). */
  snapshot: (user: Address, channel: 'userFills' | 'userNonFundingLedgerUpdates') => unknown[];
}

/** Serves `/ws` on `server` and pushes what `engine` records to its subscribers. */
export function attachVenueSocket(options: VenueSocketOptions): VenueSocket {
  const { server, engine, profile } = options;
  const wss = new WebSocketServer({ noServer: true });
  const connections = new Set<Connection>();
  let refusingUntil = 0;

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(req.url ?? '/', 'http://sim').pathname !== '/ws' || Date.now() < refusingUntil) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, req.socket.remoteAddress ?? ''));
  };
  server.on('upgrade', onUpgrade);

  const send = (c: Connection, message: unknown) => {
    const text = JSON.stringify(message);
    c.sending = c.sending.then(async () => {
      if (profile.latency) await new Promise((resolve) => setTimeout(resolve, drawLatencyMs(profile.latency!)));
      if (c.socket.readyState === c.socket.OPEN) c.socket.send(text);
    });
  };

  /** Users this IP's connections subscribe to, each counted once. */
  const usersOf = (ip: string): Set<string> => {
    const users = new Set<string>();
    for (const c of connections) if (c.ip === ip) for (const s of c.subscriptions.values()) users.add(s.user);
    return users;
  };

  const accept = (socket: WebSocket, ip: string) => {
    const c: Connection = { socket, ip, subscriptions: new Map(), heardAt: Date.now(), sending: Promise.resolve() };
    connections.add(c);
    socket.on('close', () => connections.delete(c));
    socket.on('error', () => socket.terminate());
    socket.on('message', (data) => {
      c.heardAt = Date.now();
      let msg: { method?: unknown; subscription?: unknown };
      try {
        msg = JSON.parse(String(data)) as typeof msg;
      } catch {
        send(c, { channel: 'error', data: `Invalid message: ${String(data).slice(0, 200)}` });
        return;
      }
      if (msg.method === 'ping') send(c, { channel: 'pong' });
      else if (msg.method === 'subscribe' || msg.method === 'unsubscribe') onSubscription(c, msg.method, msg.subscription);
      // `post` (info and actions over the socket) is not served: the service sends them over HTTP.
      else send(c, { channel: 'error', data: `Invalid method: ${JSON.stringify(msg).slice(0, 200)}` });
    });
  };

  const onSubscription = (c: Connection, method: 'subscribe' | 'unsubscribe', raw: unknown) => {
    const given = raw as { type?: unknown; user?: unknown; aggregateByTime?: unknown } | null;
    const json = JSON.stringify(raw ?? null);
    if (given === null || typeof given !== 'object' || typeof given.type !== 'string' || !CHANNELS.has(given.type) || typeof given.user !== 'string' || !ADDRESS.test(given.user)) {
      // The venue's refusal names the subscription (the SDK matches it to the request by that JSON).
      send(c, { channel: 'error', data: `Invalid subscription ${json}` });
      return;
    }
    const subscription: Subscription = { type: given.type, user: given.user.toLowerCase() as Address, ...(given.type === 'userFills' ? { aggregateByTime: given.aggregateByTime === true } : {}) };
    const key = JSON.stringify(subscription);
    if (method === 'unsubscribe') {
      if (!c.subscriptions.delete(key)) send(c, { channel: 'error', data: `Already unsubscribed: ${json}` });
      else send(c, { channel: 'subscriptionResponse', data: { method, subscription: given } });
      return;
    }
    if (c.subscriptions.has(key)) {
      send(c, { channel: 'error', data: `Already subscribed: ${json}` });
      return;
    }
    const users = usersOf(c.ip);
    if (!users.has(subscription.user) && users.size >= MAX_USERS_PER_IP) {
      // No recorded reply gives the venue's wording; the request is quoted so a client can match it.
      send(c, { channel: 'error', data: `Cannot track more than ${MAX_USERS_PER_IP} total users: ${JSON.stringify({ method, subscription: given })}` });
      return;
    }
    c.subscriptions.set(key, subscription);
    send(c, { channel: 'subscriptionResponse', data: { method, subscription: given } });
    // The user channels start with a snapshot of what is already there (`isSnapshot: true`);
    // `orderUpdates` starts with nothing.
    if (subscription.type === 'userFills') send(c, { channel: 'userFills', data: { isSnapshot: true, user: subscription.user, fills: options.snapshot(subscription.user, 'userFills') } });
    if (subscription.type === 'userNonFundingLedgerUpdates') {
      send(c, { channel: 'userNonFundingLedgerUpdates', data: { isSnapshot: true, user: subscription.user, nonFundingLedgerUpdates: options.snapshot(subscription.user, 'userNonFundingLedgerUpdates') } });
    }
  };

  // What one request recorded goes out together after it, one message per channel and user, in
  // the order recorded (the venue pushes an action's fills as one message).
  let pending: VenuePush[] = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    const groups = new Map<string, { channel: VenuePush['channel']; user: Address; items: unknown[] }>();
    for (const push of batch) {
      const key = `${push.channel}:${push.user}`;
      const group = groups.get(key) ?? { channel: push.channel, user: push.user, items: [] };
      group.items.push(push.item);
      groups.set(key, group);
    }
    for (const { channel, user, items } of groups.values()) {
      // A test's fault: this message is lost on its way (the venue's pushes carry no sequence number).
      if (takeFault(engine.state.faults, { endpoint: 'ws', channel, users: [user], cloids: [] }, ['dropPush'])) continue;
      const data = channel === 'userFills' ? { user, fills: items } : channel === 'userNonFundingLedgerUpdates' ? { user, nonFundingLedgerUpdates: items } : items;
      for (const c of connections) {
        const subscribed = [...c.subscriptions.values()].some((s) => s.type === channel && s.user === user);
        if (subscribed) send(c, { channel, data });
      }
    }
  };
  engine.onPush = (push) => {
    if (connections.size === 0) return;
    if (pending.length === 0) setImmediate(flush);
    pending.push(push);
  };

  const idle = setInterval(() => {
    const now = Date.now();
    for (const c of connections) if (now - c.heardAt > IDLE_CLOSE_MS) c.socket.terminate();
  }, 5_000);
  idle.unref();

  return {
    drop(refuseMs) {
      refusingUntil = Date.now() + refuseMs;
      const dropped = connections.size;
      for (const c of connections) c.socket.terminate();
      return dropped;
    },
    close() {
      clearInterval(idle);
      engine.onPush = null;
      server.off('upgrade', onUpgrade);
      for (const c of connections) c.socket.terminate();
      wss.close();
    },
  };
}
