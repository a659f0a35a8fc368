// A summary rebuild and a correlation pass that commits between its reads and its writes (issue 30), on
// both stores: the rebuild writes the hosts' placement and the owners per plugin as the pass left them
// (summary-tables-guard.ts), after a full rebuild and after an incremental run's touched-only one.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { addSource } from '../../src/app/sources.ts';
import { ConnectorRegistry } from '../../src/connectors/registry.ts';
import type { IncomingRecord, ModelName } from '../../src/core/models.ts';
import type { Page, StreamContext } from '../../src/core/connector.ts';
import { keptLinesLogger } from '../helpers/app.ts';
import { correlateAll } from '../../src/store/correlation/full.ts';
import { refreshSeam } from '../../src/store/reports/summary-tables-guard.ts';
import { runSync } from '../../src/sync/runner.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { streamsConnector } from '../helpers/streams-connector.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 6).toString('base64');

/** Upstream findings by key (`h<host>|<plugin>`); `changed` the keys an incremental read returns. */
const upstream = { findings: new Map<string, { host: string; plugin: string; severity: string }>(), changed: new Set<string>() };
for (let h = 0; h < 6; h++)
  for (let p = 0; p < 4; p++)
    upstream.findings.set(`h${h}|${p}`, { host: `h${h}`, plugin: String(2000 + ((h + p) % 5)), severity: ['low', 'medium', 'high', 'critical'][p]! });

function connector() {
  return streamsConnector('interleave', () => [
    {
      name: 'findings',
      models: ['hosts', 'vulnerabilities'],
      primaryKey: ['host', 'plugin'],
      async *read(ctx: StreamContext): AsyncIterable<Page> {
        const rows = [...upstream.findings].filter(([k]) => ctx.mode === 'full' || upstream.changed.has(k));
        yield {
          records: {
            hosts: [...new Set(rows.map(([, f]) => f.host))].map((h) => ({ key: `host:${h}`, fields: { hostname: h, serialNumber: `SN-${h}` } })),
            vulnerabilities: rows.map(([k, f]) => ({
              key: k,
              hostKey: `host:${f.host}`,
              fields: { pluginId: f.plugin, pluginName: `Plugin ${f.plugin}`, severity: f.severity, status: 'open' },
            })),
          },
          checkpoint: { done: true },
        };
      },
    },
  ]);
}

const TABLES = ['sum_vuln_counts', 'sum_vuln_due', 'sum_plugins', 'sum_hosts', 'sum_model_counts', 'sum_software', 'sum_compliance', 'sum_plugin_owners'];

/** Every summary row of the source, per table, in one order (numbers as numbers, to 9 digits). */
async function snapshot(app: AppContext, sourceId: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of TABLES)
    out[t] = (await app.store.db.all(`SELECT * FROM ${t} WHERE source_id = ?`, [sourceId]))
      .map((r) =>
        JSON.stringify(
          Object.entries(r).map(([k, v]) => [
            k,
            typeof v === 'bigint' || (typeof v === 'string' && /^\d+$/.test(v)) ? Number(v) : typeof v === 'number' ? Number(v.toPrecision(9)) : v,
          ]),
        ),
      )
      .sort();
  return out;
}

for (const backend of BACKENDS) {
  describe(`a correlation pass between a summary rebuild's reads and writes, on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: AppContext;
    let deskId: string;
    let deskRun = 0;
    const lines: Record<string, unknown>[] = [];
    const how = (runId: string) => lines.find((l) => l.msg === 'summaries refreshed' && l.runId === runId)?.how;
    /** Writes CMDB records on the desk source without correlating (a sync of the desk before its epilogue). */
    const writeDesk = async (records: Partial<Record<ModelName, IncomingRecord[]>>) => {
      const runId = `desk-${++deskRun}`;
      await app.store.records.writePage(
        { sourceId: deskId, sourceName: 'desk', runId, generation: `g${deskRun}`, now: new Date().toISOString() },
        'x',
        'incremental',
        records,
        { value: null, complete: false },
      );
    };
    const cmdb = (user: string): IncomingRecord[] => [{ key: 'c1', externalId: '1', fields: { name: 'box-1', serialNumber: 'SN-h1', assignedUser: user } }];
    /** The next rebuild of a summary has a correlation pass commit between its reads and its write transaction. */
    const correlateBetween = () => {
      let ran = false;
      refreshSeam.beforeWrite = async () => {
        refreshSeam.beforeWrite = null;
        await correlateAll(app.store.db);
        ran = true;
      };
      return () => ran;
    };
    const placement = async (sourceId: string) =>
      (
        await app.store.db.all(
          `SELECT s."host_id", s."owner" AS "summary_owner", h."owner" AS "host_owner" FROM sum_hosts s JOIN rec_hosts h ON h."id" = s."host_id" WHERE s.source_id = ? ORDER BY s."host_id"`,
          [sourceId],
        )
      ).map((r) => [r.summary_owner ?? null, r.host_owner ?? null]);

    before(async () => {
      db = await backend.create();
      app = await openApp({
        dataDir: db.dataDir,
        db: db.url,
        log: keptLinesLogger(lines),
        registry: new ConnectorRegistry([connector()]),
      });
      await addSource(app, 'interleave', 'scan', {});
      deskId = (await app.store.sources.create('desk', 'fixture', {}, null)).id;
    });
    afterEach(() => {
      refreshSeam.beforeWrite = null;
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    test('a full rebuild writes the owners the pass placed', async () => {
      const first = await runSync(app, 'scan', { full: true });
      assert.equal(first.status, 'succeeded');
      const source = await app.store.sources.get('scan');
      assert.equal((await app.store.db.all(`SELECT 1 FROM sum_plugin_owners WHERE source_id = ?`, [source.id])).length, 0, 'no owner yet');
      // A CMDB record naming h1's owner, stored; the pass that places it commits while the rebuild is between its reads and its writes.
      await writeDesk({ 'cmdb-assets': cmdb('Bo Chen') });
      const ran = correlateBetween();
      await app.store.reports.refreshSummaries(source.id);
      assert.ok(ran(), 'the pass ran between the reads and the writes');
      const placed = await placement(source.id);
      assert.ok(
        placed.some(([, host]) => host === 'Bo Chen'),
        'the pass placed an owner on h1',
      );
      for (const [summary, host] of placed) assert.equal(summary, host, "each host summary carries its host's owner");
      const owners = await app.store.db.all(`SELECT DISTINCT owner FROM sum_plugin_owners WHERE source_id = ?`, [source.id]);
      assert.deepEqual(
        owners.map((r) => r.owner),
        ['Bo Chen'],
        'the owners per plugin count the placed owner',
      );
      const kept = await snapshot(app, source.id);
      await app.store.reports.refreshSummaries(source.id);
      assert.deepEqual(kept, await snapshot(app, source.id), 'as a rebuild with nothing between');
    });

    test("an incremental run's touched-only rebuild writes the owners the pass moved", async () => {
      const source = await app.store.sources.get('scan');
      upstream.changed.clear();
      // (a run first, so the summaries are a run's: the last test ended with a refresh outside one)
      assert.equal(how((await runSync(app, 'scan')).runId), 'full');
      // h1's machine changes hands in the CMDB; one of h1's findings changes, so its summary is regrouped.
      await writeDesk({ 'cmdb-assets': cmdb('Di Park') });
      upstream.findings.set('h1|0', { ...upstream.findings.get('h1|0')!, severity: 'critical' });
      upstream.changed.add('h1|0');
      const ran = correlateBetween();
      const inc = await runSync(app, 'scan');
      assert.equal(inc.mode, 'incremental');
      assert.ok(ran(), 'the pass ran between the reads and the writes');
      assert.equal(how(inc.runId), 'touched', 'the epilogue rebuilt only what the run touched');
      const placed = await placement(source.id);
      assert.ok(
        placed.some(([, host]) => host === 'Di Park'),
        'the pass moved h1 to its new owner',
      );
      for (const [summary, host] of placed) assert.equal(summary, host, "each host summary carries its host's owner");
      const owners = await app.store.db.all(`SELECT DISTINCT owner FROM sum_plugin_owners WHERE source_id = ?`, [source.id]);
      assert.deepEqual(
        owners.map((r) => r.owner),
        ['Di Park'],
        'the owners per plugin moved with the host',
      );
      const kept = await snapshot(app, source.id);
      await app.store.reports.refreshSummaries(source.id);
      assert.deepEqual(kept, await snapshot(app, source.id), 'as a rebuild with nothing between');
    });
  });
}
