/**
 * The one PostgreSQL connection a node LISTENs on (cross-node wake-ups and prices, ws/node-bus.ts).
 * A pool cannot LISTEN: a notification arrives only on the connection that asked for it.
 *
 * The connection can fail at any time (server restart, `pg_terminate_backend`, a network cut). It
 * is then replaced, with backoff, and every channel is LISTENed again; without that the node would
 * stop hearing the other nodes for good. Notifications sent while it is down are lost, which costs
 * latency only (the dispatcher polls the outbox, prices are re-sent before they go stale).
 */
import pg from 'pg';

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5000;

export class PgListener {
  private readonly url: string;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private client: Promise<pg.Client> | null = null;
  /** Channels LISTENed on the current connection. */
  private listening = new Set<string>();
  private retryMs = RETRY_MIN_MS;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;
  /** A first connection that fails fails the caller (start-up); only a lost one is retried. */
  private connectedOnce = false;
  /** Connections opened after a lost one (observability). */
  reconnects = 0;

  constructor(url: string) {
    this.url = url;
  }

  /** Subscribes; the first call connects (and throws if it cannot: the node does not start half-deaf). */
  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(onPayload);
    const client = await (this.client ??= this.connect());
    await this.listenAll(client);
    return async () => {
      set.delete(onPayload);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = await this.client?.catch(() => null);
    await client?.end().catch(() => undefined);
  }

  private connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'rfq-listen' });
    const connection = (async () => {
      await client.connect();
      this.listening = new Set();
      await this.listenAll(client);
      this.connectedOnce = true;
      return client;
    })();
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      client.end().catch(() => undefined);
      if (this.client === connection) this.client = null;
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (message) => {
      for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    connection.catch(onLost);
    return connection;
  }

  private async listenAll(client: pg.Client): Promise<void> {
    for (const channel of this.handlers.keys()) {
      if (this.listening.has(channel)) continue;
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      this.listening.add(channel);
    }
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry || !this.connectedOnce) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (this.closed || this.client) return;
      this.reconnects++;
      const next = (this.client = this.connect());
      next.then(
        () => {
          this.retryMs = RETRY_MIN_MS;
        },
        () => {
          this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
        },
      );
    }, this.retryMs);
    this.retry.unref();
  }
}
