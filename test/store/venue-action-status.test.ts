/**
 * The venue action status writer: a transition is written only while the action is still in one
 * of the statuses its event applies to (an answered action is never written over), its send
 * counted in the statement and its answer written with it.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends, openMigratedStore } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { ONE_MORE_SEND } from '../../src/store/status-change.ts';
import { writeVenueActionStatusIfStill } from '../../src/store/venue-action-status.ts';
import { venueActionTransition } from '../../src/domain/venue/venue-action-status.ts';

for (const backend of backends()) {
  describe(`venue action status writer [${backend}]`, () => {
    let store: Store;
    let close: () => Promise<void>;
    before(async () => {
      ({ store, close } = await openMigratedStore(backend));
    });
    after(async () => {
      await close();
    });

    let nonce = 0;
    async function newAction(): Promise<string> {
      const id = randomUUID();
      await store.db.insertInto('venue_actions').values({ id, signer: '0xsigner', nonce: ++nonce, kind: 'order', owner_id: randomUUID(), request: '{}', status: 'SIGNED', send_attempts: 0, response: null, created_at: 1, updated_at: 1 }).execute();
      return id;
    }
    const read = (id: string) => store.db.selectFrom('venue_actions').select(['status', 'send_attempts', 'response', 'updated_at']).where('id', '=', id).executeTakeFirstOrThrow();
    const send = (id: string) => ({ id, ...venueActionTransition('send'), fields: { send_attempts: ONE_MORE_SEND } });

    it('a send is written from SIGNED and again from SENT, each counted', async () => {
      const id = await newAction();
      assert.equal(await writeVenueActionStatusIfStill(store.db, send(id), 10), true);
      assert.equal(await writeVenueActionStatusIfStill(store.db, send(id), 20), true);
      assert.deepEqual(await read(id), { status: 'SENT', send_attempts: 2, response: null, updated_at: 20 });
    });

    it('an answer is written with the status; an answered action is never written over', async () => {
      const id = await newAction();
      assert.equal(await writeVenueActionStatusIfStill(store.db, { id, ...venueActionTransition('refuse'), fields: { response: '"early"' } }, 5), false, 'not sent yet');
      await writeVenueActionStatusIfStill(store.db, send(id), 10);
      assert.equal(await writeVenueActionStatusIfStill(store.db, { id, ...venueActionTransition('refuse'), fields: { response: '{"status":"err"}' } }, 20), true);
      assert.equal(await writeVenueActionStatusIfStill(store.db, send(id), 30), false);
      assert.equal(await writeVenueActionStatusIfStill(store.db, { id, ...venueActionTransition('acknowledge') }, 40), false);
      assert.deepEqual(await read(id), { status: 'REFUSED', send_attempts: 1, response: { status: 'err' }, updated_at: 20 });
    });
  });
}
