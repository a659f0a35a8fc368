// Streaming exports from both stores: every matching record once, across many pages, with its host;
// the query filters; --since (records stored by later runs, or with later events: swept ones; a run
// of the same millisecond is later, the run itself is not); CSV with
// every field; OCSF validating.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { InputError } from '../../src/core/errors.ts';
import { createLogger } from '../../src/core/log.ts';
import { fieldsOf } from '../../src/core/models.ts';
import type { FormatOptions } from '../../src/export/formats/index.ts';
import { type ExportQuery, exportChunks } from '../../src/export/stream.ts';
import { parseFilter } from '../../src/store/index.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { validateOcsf } from './ocsf-schema.ts';
import { findingRecords, hostRecords, seedSource, storeRun } from './seed.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 5).toString('base64');

async function lines(app: AppContext, q: ExportQuery, fmt: FormatOptions): Promise<string[]> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of exportChunks(app, q, fmt)) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  assert.ok(text === '' || text.endsWith('\n'));
  return text.split('\n').slice(0, -1);
}

for (const backend of BACKENDS) {
  describe(`exports from ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: AppContext;
    let firstRun: string;

    before(async () => {
      db = await backend.create();
      app = await openApp({ dataDir: db.dataDir, db: db.url, log: createLogger({ level: 'silent' }) });
      firstRun = await seedSource(app, 'lab', { hosts: 4, findings: 23, startedAt: '2026-11-20T01:00:00.000Z' });
      await seedSource(app, 'other', { hosts: 1, findings: 2, startedAt: '2026-11-20T01:00:01.000Z' });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    test('OCSF: every finding once across pages, each a valid Vulnerability Finding on its own host', async () => {
      for (const version of ['1.1.0', '1.3.0'] as const) {
        const out = (await lines(app, { model: 'vulnerabilities', pageSize: 4 }, { format: 'ocsf', ocsfVersion: version })).map((l) => JSON.parse(l));
        assert.equal(out.length, 25);
        assert.equal(new Set(out.map((e) => e.finding_info.uid)).size, 25);
        const hosts = new Map((await app.store.records.query('hosts', { limit: 100 })).records.map((h) => [h.id, h]));
        for (const e of out) {
          assert.deepEqual(validateOcsf(version, e), []);
          const host = hosts.get(e.device.uid);
          assert.ok(host, 'the device is the finding’s stored host');
          assert.equal(e.device.ip, (host.ipAddresses as string[])[0]);
        }
        assert.equal(out.find((e) => e.unmapped.source === 'lab').metadata.product.vendor_name, 'Tenable');
      }
    });

    test('the export reader returns exactly the records query returns, in id order, for every model and filter', async () => {
      const lab = await app.store.sources.get('lab');
      for (const model of ['vulnerabilities', 'hosts', 'software', 'compliance'] as const) {
        for (const opts of [{}, { sourceIds: [lab.id] }, ...(model === 'vulnerabilities' ? [{ filters: [parseFilter('severity>=high')] }] : [])]) {
          const want = (await app.store.records.query(model, { ...opts, limit: 1000 })).records;
          const got: unknown[] = [];
          for await (const page of app.store.records.pages(model, opts, 3)) got.push(...page);
          assert.ok(want.length > 0, model);
          assert.deepEqual(got, want, model);
          // The same text too: JSON Lines writes the records as they are, so the fields must come in the same order.
          assert.equal(JSON.stringify(got), JSON.stringify(want), model);
        }
      }
    });

    test('OCSF, OCSF Parquet events and ECS: findings read without their priority text are written exactly as from the records query returns', async () => {
      const { lineWriter, writerOf } = await import('../../src/export/formats/index.ts');
      const { productsBySource } = await import('../../src/export/stream.ts');
      const productOf = await productsBySource(app.store, app.registry);
      const records = (await app.store.records.query('vulnerabilities', { limit: 1000 })).records;
      assert.ok(
        records.some((r) => r.priorityReason !== null && r.priorityFactors !== null),
        'the records have the text the export leaves out',
      );
      const hosts = new Map((await app.store.records.query('hosts', { limit: 100 })).records.map((h) => [h.id, h]));
      for (const fmt of [
        { format: 'ocsf', ocsfVersion: '1.1.0' },
        { format: 'ocsf', ocsfVersion: '1.3.0' },
        { format: 'ecs' },
        { format: 'ecs', ecsBulk: true },
      ] as FormatOptions[]) {
        const w = lineWriter('vulnerabilities', fmt);
        assert.equal(w.priorityText, false, fmt.format);
        const want = records.map((r) => w.line(r, hosts.get(r.hostId as string) ?? null, productOf(r.source)));
        assert.deepEqual(await lines(app, { model: 'vulnerabilities', pageSize: 4 }, fmt), want.join('\n').split('\n'), JSON.stringify(fmt));
      }
      const events = writerOf('vulnerabilities', { format: 'ocsf-parquet', ocsfVersion: '1.1.0' });
      assert.ok('events' in events && events.events.priorityText === false);
      const page: unknown[] = [];
      for await (const p of app.store.records.pages('vulnerabilities', { priorityText: false }, 1000)) page.push(...p);
      assert.ok(
        page.every((r) => !Object.hasOwn(r as object, 'priorityReason')),
        'read without the priority text',
      );
      assert.deepEqual(
        page.map((r) =>
          events.events.event(r as (typeof records)[number], hosts.get((r as { hostId: string }).hostId) ?? null, productOf((r as { source: string }).source)),
        ),
        records.map((r) => events.events.event(r, hosts.get(r.hostId as string) ?? null, productOf(r.source))),
      );
    });

    test('the filters of query apply: source, severity, known exploited', async () => {
      const lab = await app.store.sources.get('lab');
      const filters = [parseFilter('severity=critical')];
      const want = (await app.store.records.query('vulnerabilities', { sourceIds: [lab.id], filters, limit: 100 })).records.map((r) => r.id).sort();
      assert.ok(want.length > 0);
      const got = (await lines(app, { model: 'vulnerabilities', sourceIds: [lab.id], filters, pageSize: 2 }, { format: 'ecs' }))
        .map((l) => JSON.parse(l).event.id)
        .sort();
      assert.deepEqual(got, want);
      const kev = await lines(app, { model: 'vulnerabilities', filters: [parseFilter('knownExploited=true')] }, { format: 'jsonl' });
      assert.ok(kev.length > 0 && kev.every((l) => JSON.parse(l).knownExploited === true));
    });

    test('CSV: a header of every field, then one row per record', async () => {
      const out = await lines(app, { model: 'vulnerabilities', pageSize: 5 }, { format: 'csv' });
      assert.equal(
        out[0],
        fieldsOf('vulnerabilities')
          .map((f) => f.name)
          .join(','),
      );
      assert.equal(out.length, 26);
      // Every stored host, including the bare ones the store adds for hosts a page named but did not write.
      const stored = (await app.store.records.query('hosts', { limit: 1000 })).records.length;
      assert.ok(stored >= 5);
      const hosts = await lines(app, { model: 'hosts' }, { format: 'csv' });
      assert.equal(hosts.length, 1 + stored);
    });

    test('--since a run: only what later runs stored; --since a time: runs from then on', async () => {
      const later = await storeRun(app, 'lab', { vulnerabilities: findingRecords(3, 4, 100) }, '2026-11-21T01:00:00.000Z');
      const sinceFirst = await lines(app, { model: 'vulnerabilities', since: await app.store.records.resolveSince(firstRun) }, { format: 'jsonl' });
      // The other source's run started a second after the first: it counts as later too.
      assert.deepEqual(sinceFirst.map((l) => JSON.parse(l).pluginId).sort(), ['10000', '10001', '10100', '10101', '10102']);
      const sinceLater = await lines(app, { model: 'vulnerabilities', since: await app.store.records.resolveSince(later) }, { format: 'jsonl' });
      assert.equal(sinceLater.length, 0);
      const sinceDay = await lines(app, { model: 'vulnerabilities', since: await app.store.records.resolveSince('2026-11-21') }, { format: 'ocsf' });
      assert.equal(sinceDay.length, 3);
      const all = await lines(app, { model: 'vulnerabilities', since: await app.store.records.resolveSince('2026-11-01T00:00:00Z') }, { format: 'jsonl' });
      assert.equal(all.length, 28);
      await assert.rejects(app.store.records.resolveSince('no-such-run'), InputError);
    });

    test('--since brings what a later sweep fixed or removed (the change feed), not only what a run stored', async () => {
      // A full run of the other source that sees one of its two findings; its sweep fixes the other.
      const other = await app.store.sources.get('other');
      const runId = randomUUID();
      const generation = randomUUID();
      const startedAt = '2026-11-22T01:00:00.000Z';
      await app.store.runs.create({ id: runId, sourceId: other.id, mode: 'full', generation, resumedFrom: null, trigger: 'test', owner: null, startedAt });
      await app.store.records.writePage(
        { sourceId: other.id, sourceName: 'other', runId, generation, now: startedAt },
        'test',
        'full',
        { hosts: hostRecords(1), vulnerabilities: findingRecords(1, 1) },
        { value: null, complete: true },
      );
      await app.store.records.sweep(other.id, ['vulnerabilities'], generation, undefined, { runId, at: '2026-11-22T01:00:05.000Z' });
      await app.store.runs.finish(runId, 'succeeded', {}, null);
      const since = (await lines(app, { model: 'vulnerabilities', since: await app.store.records.resolveSince('2026-11-22') }, { format: 'jsonl' })).map((l) =>
        JSON.parse(l),
      );
      assert.deepEqual(since.map((r) => [r.pluginId, r.status, r.removed]).sort(), [
        ['10000', 'open', false],
        ['10001', 'fixed', true],
      ]);
      // After the lab's later run (by run id): the same two, and none of the lab's.
      const lab = await app.store.sources.get('lab');
      const labLater = (await app.store.runs.last(lab.id))!.id;
      const afterLab = (await lines(app, { model: 'vulnerabilities', since: await app.store.records.resolveSince(labLater) }, { format: 'jsonl' })).map((l) =>
        JSON.parse(l),
      );
      assert.deepEqual(afterLab.map((r) => `${r.source} ${r.pluginId}`).sort(), ['other 10000', 'other 10001']);
    });

    test('software is OCSF in 1.3.0 only; tickets are no OCSF at all', async () => {
      const sw = await lines(app, { model: 'software' }, { format: 'ocsf', ocsfVersion: '1.3.0' });
      assert.equal(sw.length, 2);
      assert.deepEqual(validateOcsf('1.3.0', JSON.parse(sw[0])), []);
      await assert.rejects(lines(app, { model: 'software' }, { format: 'ocsf', ocsfVersion: '1.1.0' }), /1\.3\.0/);
      await assert.rejects(lines(app, { model: 'tickets' }, { format: 'ocsf' }), InputError);
      const compliance = (await lines(app, { model: 'compliance' }, { format: 'ocsf' })).map((l) => JSON.parse(l));
      assert.equal(compliance.length, 4);
      for (const e of compliance) assert.deepEqual(validateOcsf('1.1.0', e), []);
    });

    test('after a run: a run of another source that started in the same millisecond counts, the run itself does not', async () => {
      const startedAt = '2026-11-23T01:00:00.000Z';
      const a = await seedSource(app, 'twin-a', { hosts: 1, findings: 1, startedAt });
      const b = await seedSource(app, 'twin-b', { hosts: 1, findings: 2, startedAt });
      const sources = async (run: string) =>
        (await lines(app, { model: 'vulnerabilities', since: await app.store.records.resolveSince(run) }, { format: 'jsonl' })).map(
          (l) => JSON.parse(l).source,
        );
      assert.deepEqual(await sources(a), ['twin-b', 'twin-b']);
      assert.deepEqual(await sources(b), ['twin-a']);
      // The change feed by the same rule.
      const feed = await app.store.records.changes({ since: await app.store.records.resolveSince(a), limit: 1000 });
      assert.deepEqual([...new Set(feed.records.map((c) => c.runId))], [b]);
    });
  });
}
