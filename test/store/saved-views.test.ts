// Saved views (migration 33) on both stores: per user, listed by path and name, saving under a taken
// name replaces that view, one user cannot see or delete another's, and a missing id is not found.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS } from '../helpers/databases.ts';
import { openTestStore } from '../helpers/store.ts';

for (const backend of BACKENDS) {
  describe(`saved views on ${backend.kind}`, { skip: backend.skip }, () => {
    it('keeps each user’s named views, replaces by name, deletes only the owner’s', async () => {
      const db = await backend.create();
      const store = await openTestStore(db);
      try {
        const alice = await store.users.create('alice', 'x');
        const bob = await store.users.create('bob', 'x');
        const kev = await store.views.save(alice, { name: 'KEV open', path: '/inventory/vulnerabilities', query: 'knownExploited=true&sort=-severity' });
        assert.equal(kev.name, 'KEV open');
        assert.equal(kev.query, 'knownExploited=true&sort=-severity');
        await store.views.save(alice, { name: 'Acme hosts', path: '/inventory/hosts', query: 'q=acme' });
        await store.views.save(bob, { name: 'KEV open', path: '/inventory/vulnerabilities', query: 'severity=critical' });

        assert.deepEqual(
          (await store.views.list(alice)).map((v) => [v.path, v.name]),
          [
            ['/inventory/hosts', 'Acme hosts'],
            ['/inventory/vulnerabilities', 'KEV open'],
          ],
        );
        assert.deepEqual(
          (await store.views.list(alice, '/inventory/vulnerabilities')).map((v) => v.query),
          ['knownExploited=true&sort=-severity'],
        );
        // The same name saved again replaces the view (same id), with the new query.
        const again = await store.views.save(alice, { name: 'KEV open', path: '/inventory/vulnerabilities', query: 'knownExploited=true&status=open' });
        assert.equal(again.id, kev.id);
        assert.equal((await store.views.list(alice, '/inventory/vulnerabilities'))[0]?.query, 'knownExploited=true&status=open');
        // Bob's view of the same name is his own and untouched.
        assert.deepEqual(
          (await store.views.list(bob)).map((v) => v.query),
          ['severity=critical'],
        );
        // Bob cannot delete Alice's view; Alice can.
        await assert.rejects(store.views.delete(bob, kev.id), { name: 'NotFoundError' });
        await store.views.delete(alice, kev.id);
        assert.deepEqual(
          (await store.views.list(alice)).map((v) => v.name),
          ['Acme hosts'],
        );
        await assert.rejects(store.views.delete(alice, kev.id), { name: 'NotFoundError' });
      } finally {
        await store.close();
        await db.drop();
      }
    });
  });
}
