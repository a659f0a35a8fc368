// Through the app and the sync runner (SQLite): add a cloud source with an authorization code, full sync,
// incremental sync after upstream changes, removal with token revocation.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppContext } from '../../../src/app/context.ts';
import { addSource, removeSource } from '../../../src/app/sources.ts';
import { servicedeskPlusConnector } from '../../../src/connectors/servicedesk-plus/index.ts';
import { runSync } from '../../../src/sync/runner.ts';
import { type RunningSdpSim, startSdpSim } from '../../../sim/servicedesk-plus/index.ts';
import { createSqlite, type TestDatabase } from '../../helpers/databases.ts';
import { openTestApp } from '../../helpers/app.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 5).toString('base64');
process.env.TRIBUTARY_RETRY_BASE_MS = '1';

let sim: RunningSdpSim;
let db: TestDatabase;
let app: AppContext;

before(async () => {
  sim = await startSdpSim({ seed: 11, now: Date.now() - 2 * 86400_000, requests: 120, assets: 15, cis: 6, users: 12, technicians: 3 });
  db = await createSqlite();
  app = await openTestApp(db, { connectors: [servicedeskPlusConnector as never] });
});
after(async () => {
  await app?.close();
  await db?.drop();
  await sim?.close();
});

test('add (code exchanged, not stored), full sync, incremental sync, remove with revocation', async () => {
  const source = await addSource(app, 'servicedesk-plus', 'sdp', {
    clientId: sim.clientId,
    clientSecret: sim.clientSecret,
    authorizationCode: sim.mintAuthorizationCode(),
    accountsUrl: sim.accountsUrl,
    serverUrl: sim.url,
    portal: sim.portal,
    revokeTokenOnDeletion: true,
  });
  assert.equal('authorizationCode' in source.config, false);
  const state = await app.store.sources.getState(source.id);
  const refreshToken = String(state.refreshToken);
  assert.match(refreshToken, /^1000\./);

  const full = await runSync(app, 'sdp');
  assert.equal(full.status, 'succeeded', full.error ?? '');
  assert.equal(full.mode, 'full');
  assert.deepEqual(full.streams.tickets, { records: 120, errors: 0 });
  assert.deepEqual(full.streams['cmdb-assets'], { records: 15 + 12, errors: 0 });
  assert.deepEqual(full.streams.users, { records: 15, errors: 0 });
  assert.equal(sim.stats().tokens.refresh_token, 0, 'the access token from the exchange was reused');

  const upd = (await fetch(`${sim.url}/_sim/update`, { method: 'POST', body: JSON.stringify({ kind: 'requests', ids: ['3', '4'], flavour: 'cloud' }) }).then(
    (r) => r.json(),
  )) as { cloudIds: string[] };
  const inc = await runSync(app, 'sdp');
  assert.equal(inc.status, 'succeeded', inc.error ?? '');
  assert.equal(inc.mode, 'incremental');
  assert.ok(inc.streams.tickets!.records >= 2 && inc.streams.tickets!.records <= 4, JSON.stringify(inc.streams));
  const s = await app.store.sources.get('sdp');
  const rows = await app.store.records.query('tickets', { sourceIds: [s.id], limit: 1000 });
  assert.equal(rows.records.length, 120);
  const changed = rows.records.find((r) => r.externalId === upd.cloudIds[0]);
  assert.match(String(changed?.subject), /\(update 1\)/);
  assert.ok(rows.records.every((r) => r.subject !== ''));

  const { warnings } = await removeSource(app, 'sdp');
  assert.deepEqual(warnings, []);
  assert.equal(sim.accounts.isRevoked(refreshToken), true);
});
