/**
 * The cross-node bus (src/ws/node-bus.ts) on each store's own notifications (PostgreSQL:
 * LISTEN/NOTIFY; PGlite: delivered within the process): a node alone sends no outbox wake-ups;
 * a second node is known to the first as soon as it starts and the first to it at once, after
 * which each node's commits wake the other; prices always go out.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { NodeBus } from '../../src/ws/node-bus.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';

const logger = pino({ level: 'silent' });

for (const backend of backends()) {
  describe(`node bus [${backend}]`, () => {
    let database: TestDatabase;
    let store: Store;
    const buses: NodeBus[] = [];
    before(async () => {
      database = await createTestDatabase(backend);
      store = await openStore(database.location);
    });
    after(async () => {
      for (const bus of buses) await bus.stop();
      await store.close();
      await database.drop();
    });

    const startBus = async () => {
      const bus = new NodeBus(store);
      const heard = { wakes: 0, prices: [] as Record<string, unknown>[] };
      await bus.start({ outboxWake: () => heard.wakes++, price: (message) => heard.prices.push(message) }, logger);
      buses.push(bus);
      return { bus, heard };
    };

    it('a lone node announces itself once and sends no wake-ups for its commits', async () => {
      const a = await startBus();
      await eventually(async () => a.bus.wakesSent, (sent) => sent === 1, 5000);
      for (let i = 0; i < 5; i++) {
        a.bus.signalOutbox();
        // Whatever the signal asked to send is sent by then.
        await a.bus.sent();
      }
      assert.equal(a.bus.hasPeers, false);
      assert.equal(a.bus.wakesSent, 1, 'the announcement only');
      assert.equal(a.heard.wakes, 0, 'its own notifications are not wake-ups');

      // A second node: known to the first when it starts, and the first to it by the first's answer.
      const b = await startBus();
      await eventually(async () => a.bus.hasPeers && b.bus.hasPeers, (known) => known, 5000);
      const bWakes = b.heard.wakes;
      const aWakes = a.heard.wakes;
      a.bus.signalOutbox();
      b.bus.signalOutbox();
      await eventually(async () => [b.heard.wakes, a.heard.wakes], ([bw, aw]) => bw! > bWakes && aw! > aWakes, 5000);
      assert.equal(b.bus.remoteWakes, b.heard.wakes);

      // Prices go out whether or not a peer is known.
      a.bus.publishPrice('m1:ETH-USDC', { maker: 'm1', instrumentId: 'ETH-USDC', bid: '1' });
      const prices = await eventually(async () => b.heard.prices, (heard) => heard.length > 0, 5000);
      assert.equal(prices[0]!['maker'], 'm1');
      assert.equal(prices[0]!['node'], a.bus.nodeId);
    });
  });
}
