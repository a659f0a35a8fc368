// The store on both backends: migrations, sources with sealed secrets, idempotent upserts,
// partial updates, status rules, sweep, queries with filters and cursors.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { InputError } from '../../src/core/errors.ts';
import { MODEL_FIELDS, MODEL_NAMES } from '../../src/core/models.ts';
import { SecretBox } from '../../src/core/secrets.ts';
import { openDriver } from '../../src/store/db/driver.ts';
import { migrate } from '../../src/store/db/migrate.ts';
import { MIGRATIONS } from '../../src/store/db/migrations.ts';
import { parseFilter } from '../../src/store/records/filter-syntax.ts';
import { recordId } from '../../src/store/records/upsert.ts';
import { columnOf, tableOf } from '../../src/store/db/schema.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

const box = new SecretBox(Buffer.alloc(32, 7));
const secretKeys = (type: string) => (type === 'fixture' ? ['token'] : []);

for (const backend of BACKENDS) {
  // Reads the live schema after every migration (not the migration text), so an ALTER TABLE counts.
  test(`every model field has a column in the ${backend.kind} store after all migrations`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    try {
      const store = await openStore(db.url, box, secretKeys);
      try {
        for (const model of MODEL_NAMES) {
          const rows =
            store.db.dialect === 'sqlite'
              ? await store.db.all(`SELECT name FROM pragma_table_xinfo('${tableOf(model)}')`)
              : await store.db.all(`SELECT column_name AS name FROM information_schema.columns WHERE table_name = ?`, [tableOf(model)]);
          const columns = new Set(rows.map((r) => String(r.name)));
          assert.ok(columns.size > 0, `table for ${model}`);
          for (const f of MODEL_FIELDS[model]) assert.ok(columns.has(columnOf(f.name)), `${model}.${f.name} has no column ${columnOf(f.name)}`);
        }
      } finally {
        await store.close();
      }
    } finally {
      await db.drop();
    }
  });
}

for (const backend of BACKENDS) {
  test(`migration 3 on ${backend.kind} moves a host's stored records under their host's id, keeping the rest of the id`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    try {
      // A store at version 2 holding one host, one finding and one software record under the old ids.
      const raw = await openDriver(db.url);
      await raw.exec(`CREATE TABLE "schema_migrations" ("version" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "applied_at" TEXT NOT NULL)`);
      for (const m of MIGRATIONS.filter((x) => x.version <= 2)) {
        await raw.exec(m.sql);
        await raw.run(`INSERT INTO "schema_migrations" VALUES (?, ?, ?)`, [m.version, m.name, '2026-01-01T00:00:00.000Z']);
      }
      const hostId = recordId('lab', 'hosts', 'uuid:h1');
      const oldVuln = recordId('lab', 'vulnerabilities', 'uuid:h1|443|tcp|1');
      const oldSoft = recordId('lab', 'software', 'uuid:h1|openssl');
      const ins = (table: string, id: string, host: string | null) =>
        raw.run(
          `INSERT INTO ${table} ("id", "source_id", "natural_key"${host ? ', "host_id"' : ''}) VALUES (?, 's', 'k'${host ? ', ?' : ''})`,
          host ? [id, host] : [id],
        );
      await ins('rec_hosts', hostId, null);
      await ins('rec_vulnerabilities', oldVuln, hostId);
      await ins('rec_software', oldSoft, hostId);
      await raw.close();

      const store = await openStore(db.url, box, secretKeys);
      try {
        const ids = async (table: string) => (await store.db.all(`SELECT "id" FROM ${table}`)).map((r) => String(r.id));
        assert.deepEqual(await ids('rec_hosts'), [hostId]);
        // What the store now computes for the same natural keys is what the migration wrote.
        assert.deepEqual(await ids('rec_vulnerabilities'), [recordId('lab', 'vulnerabilities', 'uuid:h1|443|tcp|1', hostId)]);
        assert.deepEqual(await ids('rec_software'), [recordId('lab', 'software', 'uuid:h1|openssl', hostId)]);
        assert.notEqual(oldVuln.slice(0, 12), hostId.slice(0, 12));
      } finally {
        await store.close();
      }
    } finally {
      await db.drop();
    }
  });
}

for (const backend of BACKENDS) {
  test(`migration 15 on ${backend.kind} keeps the change feed in its old order and reads a finding's owner from its host`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    try {
      const raw = await openDriver(db.url);
      await raw.exec(`CREATE TABLE "schema_migrations" ("version" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "applied_at" TEXT NOT NULL)`);
      for (const m of MIGRATIONS.filter((x) => x.version < 15)) {
        await raw.exec(raw.dialect === 'postgres' ? (m.postgres ?? m.sql) : m.sql);
        await raw.run(`INSERT INTO "schema_migrations" VALUES (?, ?, ?)`, [m.version, m.name, '2026-01-01T00:00:00.000Z']);
      }
      await raw.run(`INSERT INTO "sources" ("id", "name", "type", "config", "created_at", "updated_at") VALUES ('s', 'lab', 'fixture', '{}', 't', 't')`);
      await raw.run(`INSERT INTO "rec_hosts" ("id", "source_id", "natural_key", "owner", "removed") VALUES ('h', 's', 'h', 'Bo Chen', 0)`);
      await raw.run(
        `INSERT INTO "rec_vulnerabilities" ("id", "source_id", "natural_key", "host_id", "owner", "removed") VALUES ('v', 's', 'v', 'h', 'stale copy', 0)`,
      );
      // Written out of order: the old feed read them by (at, record, change).
      for (const [at, record] of [
        ['2026-01-02T00:00:00.000Z', 'v'],
        ['2026-01-01T00:00:00.000Z', 'v'],
        ['2026-01-01T00:00:00.000Z', 'h'],
      ])
        await raw.run(`INSERT INTO "changes" ("at", "record_id", "change", "source_id", "model", "run_id") VALUES (?, ?, 'new', 's', ?, 'r')`, [
          at,
          record,
          record === 'h' ? 'hosts' : 'vulnerabilities',
        ]);
      await raw.close();

      const store = await openStore(db.url, box, secretKeys);
      try {
        const feed = (await store.records.changes({ limit: 2 })).records.map((c) => `${c.at.slice(0, 10)} ${c.recordId}`);
        assert.deepEqual(feed, ['2026-01-01 h', '2026-01-01 v']);
        const next = await store.records.changes({ limit: 2, cursor: (await store.records.changes({ limit: 2 })).nextCursor });
        assert.deepEqual(
          next.records.map((c) => `${c.at.slice(0, 10)} ${c.recordId}`),
          ['2026-01-02 v'],
        );
        assert.equal((await store.records.get('vulnerabilities', 'v')).owner, 'Bo Chen');
      } finally {
        await store.close();
      }
    } finally {
      await db.drop();
    }
  });
}

for (const backend of BACKENDS) {
  describe(`store on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let store: Store;
    let sourceId: string;
    const stamp = (runId: string, generation: string) => ({ sourceId, sourceName: 'lab', runId, generation, now: new Date().toISOString() });

    before(async () => {
      db = await backend.create();
      store = await openStore(db.url, box, secretKeys);
    });
    after(async () => {
      await store?.close();
      await db?.drop();
    });

    test('migrations are versioned and re-running them is a no-op', async () => {
      assert.equal(await store.schemaVersion(), MIGRATIONS.at(-1)!.version);
      await migrate(store.db);
      const rows = await store.db.all(`SELECT COUNT(*) AS "n" FROM "schema_migrations"`);
      assert.equal(Number(rows[0].n), MIGRATIONS.length);
    });

    test('secret config values are sealed at rest and readable through the store', async () => {
      const s = await store.sources.create('lab', 'fixture', { url: 'https://x.example', token: 'very-secret-token-1' }, '6h');
      sourceId = s.id;
      assert.equal(s.config.token, 'very-secret-token-1');
      assert.equal(s.schedule, '6h');
      const raw = await store.db.all(`SELECT "config" FROM "sources" WHERE "id" = ?`, [s.id]);
      assert.doesNotMatch(String(raw[0].config), /very-secret-token-1/);
      assert.match(String(raw[0].config), /enc:v1:/);
      await store.sources.setState(s.id, { refreshToken: 'refresh-secret-42' });
      assert.deepEqual(await store.sources.getState(s.id), { refreshToken: 'refresh-secret-42' });
      const rawState = await store.db.all(`SELECT "state" FROM "sources" WHERE "id" = ?`, [s.id]);
      assert.doesNotMatch(String(rawState[0].state), /refresh-secret-42/);
    });

    test('upserts are idempotent, keep first-seen, and leave undefined fields alone', async () => {
      const host = (fields: Record<string, unknown>) => ({ key: 'uuid:abc', externalId: 'abc', fields });
      await store.records.writePage(
        stamp('r1', 'g1'),
        'hosts',
        'full',
        { hosts: [host({ hostname: 'web01', os: 'Linux', ipAddresses: ['10.0.0.1'] })] },
        { value: { o: 1 }, complete: false },
      );
      const first = await store.records.get('hosts', recordId('lab', 'hosts', 'uuid:abc'));
      await new Promise((r) => setTimeout(r, 5));
      // A second stream fills in hardware only: hostname and os must stay.
      await store.records.writePage(
        stamp('r1', 'g1'),
        'findings',
        'full',
        { hosts: [host({ manufacturer: 'Dell Inc.', serialNumber: null })] },
        { value: null, complete: false },
      );
      const second = await store.records.get('hosts', first.id);
      assert.equal(second.hostname, 'web01');
      assert.equal(second.os, 'Linux');
      assert.equal(second.manufacturer, 'Dell Inc.');
      assert.equal(second.serialNumber, null);
      assert.deepEqual(second.ipAddresses, ['10.0.0.1']);
      assert.equal(second.firstSeen, first.firstSeen);
      assert.ok(String(second.lastSeen) > String(first.lastSeen));
      assert.equal(await store.records.count('hosts', sourceId), 1);
      const cps = await store.runs.checkpoints(sourceId);
      assert.deepEqual(cps.get('hosts')?.value, { o: 1 });
      assert.equal(cps.get('hosts')?.complete, false);
    });

    test('a page with the same record twice keeps the last one', async () => {
      const v = (status: string, sev: string) => ({
        key: 'uuid:abc|0|tcp|1',
        hostKey: 'uuid:abc',
        fields: { pluginId: '1', severity: sev, status, cves: [], scannerKnownExploited: false },
      });
      await store.records.writePage(
        stamp('r1', 'g1'),
        'findings',
        'full',
        { vulnerabilities: [v('open', 'low'), v('open', 'high')] },
        { value: null, complete: false },
      );
      const hostId = recordId('lab', 'hosts', 'uuid:abc');
      const rec = await store.records.get('vulnerabilities', recordId('lab', 'vulnerabilities', 'uuid:abc|0|tcp|1', hostId));
      assert.equal(rec.severity, 'high');
      assert.equal(rec.hostId, hostId);
      // A host's records share its id's first 12 digits (one id range per host); the rest is their own.
      assert.equal(rec.id.slice(0, 12), hostId.slice(0, 12));
      assert.equal(rec.id.slice(12), recordId('lab', 'vulnerabilities', 'uuid:abc|0|tcp|1').slice(0, 20));
    });

    test('a finding written again in one generation (one row per CVE, across pages) keeps every CVE; a later generation replaces them', async () => {
      const v = (cves: string[]) => ({ key: 'uuid:cve|443|tcp|9', hostKey: 'uuid:cve', fields: { pluginId: '9', severity: 'high', status: 'open', cves } });
      const id = recordId('lab', 'vulnerabilities', 'uuid:cve|443|tcp|9', recordId('lab', 'hosts', 'uuid:cve'));
      // Three pages of one run (and a resumed run of the same generation), one CVE each, one twice.
      await store.records.writePage(stamp('ru1', 'gu1'), 'findings', 'full', { vulnerabilities: [v(['CVE-2024-0003'])] }, { value: null, complete: false });
      await store.records.writePage(
        stamp('ru1', 'gu1'),
        'findings',
        'full',
        { vulnerabilities: [v(['CVE-2023-0001', 'CVE-2024-0003'])] },
        { value: null, complete: false },
      );
      await store.records.writePage(
        stamp('ru2', 'gu1'),
        'findings',
        'full',
        { vulnerabilities: [v(['CVE-2024-0002']), v(['CVE-2022-0009'])] },
        { value: null, complete: true },
      );
      assert.deepEqual((await store.records.get('vulnerabilities', id)).cves, ['CVE-2022-0009', 'CVE-2023-0001', 'CVE-2024-0002', 'CVE-2024-0003']);
      // The same values again change nothing; an empty list adds nothing.
      await store.records.writePage(stamp('ru2', 'gu1'), 'findings', 'full', { vulnerabilities: [v([])] }, { value: null, complete: true });
      assert.equal(((await store.records.get('vulnerabilities', id)).cves as string[]).length, 4);
      // The next run's export lists one CVE: it replaces the list.
      await store.records.writePage(stamp('ru3', 'gu2'), 'findings', 'full', { vulnerabilities: [v(['CVE-2024-0002'])] }, { value: null, complete: true });
      assert.deepEqual((await store.records.get('vulnerabilities', id)).cves, ['CVE-2024-0002']);
    });

    test('vulnerability status: fixed when swept, reopened when seen open again', async () => {
      const vuln = (key: string, status = 'open') => ({
        key,
        hostKey: 'uuid:abc',
        firstSeen: '2026-01-02T03:04:05.000Z',
        lastSeen: '2026-10-01T00:00:00.000Z',
        fields: { pluginId: key, severity: 'critical', status, cves: ['CVE-2024-1234', 'CVE-2023-9'], scannerKnownExploited: true, vprScore: 9.1, port: 443 },
      });
      await store.records.writePage(
        stamp('r2', 'g2'),
        'findings',
        'full',
        { vulnerabilities: [vuln('a'), vuln('b')], hosts: [{ key: 'uuid:abc', fields: {} }] },
        { value: null, complete: true },
      );
      // Full run g3 sees only `a`: the sweep fixes `b` and removes it.
      await store.records.writePage(
        stamp('r3', 'g3'),
        'findings',
        'full',
        { vulnerabilities: [vuln('a')], hosts: [{ key: 'uuid:abc', fields: {} }] },
        { value: null, complete: true },
      );
      const swept = await store.records.sweep(sourceId, ['vulnerabilities', 'hosts'], 'g3');
      assert.equal(swept.vulnerabilities, 3, "b and the earlier tests' findings");
      // The bare host row the store made for the CVE test's findings (their page wrote no host).
      assert.equal(swept.hosts, 1);
      const b = await store.records.get('vulnerabilities', recordId('lab', 'vulnerabilities', 'b', recordId('lab', 'hosts', 'uuid:abc')));
      assert.equal(b.status, 'fixed');
      assert.equal(b.removed, true);
      assert.equal(b.firstSeen, '2026-01-02T03:04:05.000Z');
      assert.deepEqual(b.cves, ['CVE-2024-1234', 'CVE-2023-9']);
      assert.equal(b.knownExploited, true);
      assert.equal(b.vprScore, 9.1);
      assert.equal(b.port, 443);
      // Seen open again → reopened, no longer removed.
      await store.records.writePage(stamp('r4', 'g4'), 'findings', 'incremental', { vulnerabilities: [vuln('b')] }, { value: null, complete: true });
      const b2 = await store.records.get('vulnerabilities', b.id);
      assert.equal(b2.status, 'reopened');
      assert.equal(b2.removed, false);
      // An explicit fixed from upstream wins.
      await store.records.writePage(stamp('r5', 'g5'), 'findings', 'incremental', { vulnerabilities: [vuln('b', 'fixed')] }, { value: null, complete: true });
      assert.equal((await store.records.get('vulnerabilities', b.id)).status, 'fixed');
    });

    test('a large page (the bulk path) inserts new records and upserts known ones, in one page', async () => {
      const src = await store.sources.create('bulk', 'fixture', { url: 'https://x.example', token: 'bulk-token-1' }, null);
      const st = (runId: string, generation: string) => ({ sourceId: src.id, sourceName: 'bulk', runId, generation, now: new Date().toISOString() });
      const bulk = (from: number, n: number, status: string, sev: string) =>
        Array.from({ length: n }, (_, i) => ({
          key: `bulk|${from + i}`,
          hostKey: 'uuid:bulk',
          externalId: String(from + i),
          firstSeen: '2026-02-01T00:00:00.000Z',
          // Letters, not digits: other tests filter every source's findings by plugin id.
          fields: { pluginId: String(from + i).replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!), severity: sev, status, cves: [], scannerKnownExploited: false },
        }));
      await store.records.writePage(st('rb1', 'gb1'), 'findings', 'full', { vulnerabilities: bulk(0, 200, 'fixed', 'low') }, { value: null, complete: false });
      // 100 known (seen open again after fixed → reopened) and 150 new, in one page.
      await store.records.writePage(
        st('rb2', 'gb2'),
        'findings',
        'full',
        { vulnerabilities: bulk(100, 250, 'open', 'high') },
        { value: null, complete: false },
      );
      const got = await store.records.query('vulnerabilities', { sourceIds: [src.id], limit: 10_000 });
      const byPlugin = new Map(got.records.map((r) => [Number(r.externalId), r]));
      assert.equal(byPlugin.size, 350);
      assert.equal(byPlugin.get(50)?.status, 'fixed');
      assert.equal(byPlugin.get(50)?.severity, 'low');
      assert.equal(byPlugin.get(150)?.status, 'reopened');
      assert.equal(byPlugin.get(150)?.severity, 'high');
      assert.equal(byPlugin.get(300)?.status, 'open');
      assert.equal(byPlugin.get(300)?.firstSeen, '2026-02-01T00:00:00.000Z');
      assert.equal(await store.records.countStamped(src.id, 'vulnerabilities', 'rb2'), 250);
    });

    test('queries filter by field, list element, number, bool and page with a cursor', async () => {
      const recs = Array.from({ length: 25 }, (_, i) => ({
        key: `q${i}`,
        hostKey: 'uuid:abc',
        fields: {
          pluginId: String(1000 + i),
          severity: i % 2 ? 'high' : 'low',
          status: 'open',
          cves: i === 7 ? ['CVE-2021-44228'] : [],
          scannerKnownExploited: i === 7,
          vprScore: i,
          port: i,
        },
      }));
      await store.records.writePage(stamp('r6', 'g6'), 'findings', 'incremental', { vulnerabilities: recs }, { value: null, complete: true });
      const byCve = await store.records.query('vulnerabilities', { filters: [parseFilter('cves=CVE-2021-44228')] });
      assert.deepEqual(
        byCve.records.map((r) => r.pluginId),
        ['1007'],
      );
      assert.equal(byCve.records[0].source, 'lab');
      const kev = await store.records.query('vulnerabilities', { filters: [parseFilter('knownExploited=true'), parseFilter('severity=high')] });
      assert.ok(kev.records.some((r) => r.pluginId === '1007'));
      assert.ok(kev.records.every((r) => r.severity === 'high' && r.knownExploited === true));
      const vpr = await store.records.query('vulnerabilities', { filters: [parseFilter('vprScore>=20'), parseFilter('pluginId~10')] });
      assert.deepEqual(vpr.records.map((r) => r.pluginId).sort(), ['1020', '1021', '1022', '1023', '1024']);
      const seen = new Set<string>();
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await store.records.query('vulnerabilities', { filters: [parseFilter('pluginId~10')], limit: 10, cursor });
        for (const r of page.records) seen.add(r.id);
        cursor = page.nextCursor;
        pages++;
      } while (cursor);
      assert.equal(seen.size, 25);
      assert.equal(pages, 3);
      assert.throws(() => parseFilter('nonsense'), InputError);
      await assert.rejects(store.records.query('vulnerabilities', { filters: [parseFilter('bogus=1')] }), /unknown field 'bogus'/);
      await assert.rejects(store.records.query('vulnerabilities', { filters: [parseFilter('port=abc')] }), /port is a number/);
      await assert.rejects(store.records.query('vulnerabilities', { filters: [parseFilter('knownExploited=maybe')] }), /true or false/);
      await assert.rejects(store.records.query('vulnerabilities', { cursor: 'garbage!' }), /invalid cursor/);
    });

    test('removing a source deletes its records, runs and checkpoints', async () => {
      await store.runs.create({
        id: 'run-x',
        sourceId,
        mode: 'full',
        generation: 'gx',
        resumedFrom: null,
        trigger: 'test',
        owner: null,
        startedAt: new Date().toISOString(),
      });
      await store.sources.delete('lab');
      for (const m of MODEL_NAMES) assert.equal(await store.records.count(m, sourceId), 0, m);
      assert.equal((await store.runs.list(sourceId)).length, 0);
      assert.equal((await store.runs.checkpoints(sourceId)).size, 0);
      await assert.rejects(store.sources.get('lab'), /no source named 'lab'/);
    });
  });
}

test('the store never writes a plaintext secret into the database file', async () => {
  const db = await BACKENDS[0].create();
  const store = await openStore(db.url, box, secretKeys);
  await store.sources.create('s', 'fixture', { url: 'https://x.example', token: 'plaintext-needle-77' }, null);
  await store.close();
  const bytes = readFileSync(db.url.slice('sqlite:'.length));
  assert.equal(bytes.includes(Buffer.from('plaintext-needle-77')), false);
  await db.drop();
});

for (const backend of BACKENDS) {
  test(`only one run per source can be running at a time (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    const store = await openStore(db.url, box, secretKeys);
    try {
      const s = await store.sources.create('one', 'fixture', { url: 'https://x.example', token: 't' }, null);
      const run = (id: string) => ({
        id,
        sourceId: s.id,
        mode: 'full' as const,
        generation: id,
        resumedFrom: null,
        trigger: 'test',
        owner: null,
        startedAt: new Date().toISOString(),
      });
      const results = await Promise.allSettled([store.runs.create(run('r1')), store.runs.create(run('r2'))]);
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      assert.match(String((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason), /already running/);
      const winner = (await store.runs.active(s.id))!;
      await store.runs.finish(winner.id, 'succeeded', {}, null);
      await store.runs.create(run('r3'));
    } finally {
      await store.close();
      await db.drop();
    }
  });
}

// A sync page's transaction commits without waiting for its WAL flush (pages.ts); other transactions wait as ever.
test('a transaction with flush: false commits without waiting for the WAL flush (postgres)', { skip: BACKENDS[1]!.skip }, async () => {
  const db = await BACKENDS[1]!.create();
  const raw = await openDriver(db.url);
  try {
    const setting = (tx: Awaited<ReturnType<typeof openDriver>>) => tx.all(`SHOW synchronous_commit`).then((r) => String(r[0]!.synchronous_commit));
    assert.equal(await raw.transaction(setting, { flush: false }), 'off');
    assert.equal(await raw.transaction(setting), 'on');
    assert.equal(await setting(raw), 'on', 'the setting ends with its transaction');
  } finally {
    await raw.close();
    await db.drop();
  }
});
