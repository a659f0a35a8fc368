// Summaries after an incremental run (issue 30): the epilogue rebuilds only the groups of what the run
// stamped (store/reports/summary-tables-touched.ts), and every summary table then holds exactly what a
// rebuild from every record gives, on both stores; and it rebuilds everything when the summaries are
// not the previous run's (a refresh outside a run came between).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { addSource } from '../../src/app/sources.ts';
import { ConnectorRegistry } from '../../src/connectors/registry.ts';
import type { Page, StreamContext } from '../../src/core/connector.ts';
import { keptLinesLogger } from '../helpers/app.ts';
import { runSync } from '../../src/sync/runner.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { streamsConnector } from '../helpers/streams-connector.ts';
import { recordId } from '../../src/store/records/upsert.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 6).toString('base64');

const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'];
const DAY = 86_400_000;

interface Finding {
  host: string;
  plugin: string;
  severity: string;
  status: 'open' | 'fixed' | 'reopened';
  kev: boolean;
  firstSeen: string;
}
interface Rule {
  host: string;
  benchmark: string | null;
  rule: string;
  result: string;
}

/** What the upstream holds; `changed` the keys an incremental read returns (all on a full read). */
const upstream = {
  findings: new Map<string, Finding>(),
  rules: new Map<string, Rule>(),
  software: new Map<string, { host: string; name: string }>(),
  changed: new Set<string>(),
};

function seed(): void {
  for (const m of [upstream.findings, upstream.rules, upstream.software, upstream.changed]) m.clear();
  const now = Date.now();
  for (let h = 0; h < 12; h++)
    for (let p = 0; p < 8; p++) {
      const i = h * 8 + p;
      upstream.findings.set(`h${h}|${(h + p) % 15}`, {
        host: `h${h}`,
        plugin: String(1000 + ((h + p) % 15)),
        severity: SEVERITIES[i % 5]!,
        status: i % 9 === 0 ? 'fixed' : 'open',
        kev: i % 7 === 0,
        firstSeen: new Date(now - (i % 40) * DAY).toISOString(),
      });
    }
  for (let h = 0; h < 12; h++)
    for (let r = 0; r < 4; r++)
      upstream.rules.set(`h${h}|r${r}`, {
        host: `h${h}`,
        benchmark: r === 3 ? null : r % 2 ? 'CIS' : 'STIG',
        rule: `r${r}`,
        result: ['passed', 'failed', 'warning'][(h + r) % 3]!,
      });
  for (let h = 0; h < 12; h++) upstream.software.set(`h${h}|openssl`, { host: `h${h}`, name: h % 2 ? 'openssl' : 'curl' });
}

const pick = <T>(m: Map<string, T>, ctx: StreamContext) => [...m].filter(([k]) => ctx.mode === 'full' || upstream.changed.has(k));

function connector() {
  return streamsConnector('touchfix', () => [
    {
      name: 'hosts',
      models: ['hosts', 'software', 'compliance'],
      primaryKey: ['host'],
      async *read(ctx: StreamContext): AsyncIterable<Page> {
        const rules = pick(upstream.rules, ctx);
        const software = pick(upstream.software, ctx);
        const hosts = [
          ...new Set([...rules.map(([, r]) => r.host), ...software.map(([, s]) => s.host), ...pick(upstream.findings, ctx).map(([, f]) => f.host)]),
        ];
        yield {
          records: {
            hosts: hosts.map((h) => ({ key: `host:${h}`, fields: { hostname: h } })),
            software: software.map(([k, s]) => ({ key: k, hostKey: `host:${s.host}`, fields: { name: s.name, version: '1' } })),
            compliance: rules.map(([k, r]) => ({
              key: k,
              hostKey: `host:${r.host}`,
              fields: { benchmark: r.benchmark, ruleId: r.rule, ruleName: `Rule ${r.rule}`, result: r.result },
            })),
          },
          checkpoint: { done: true },
        };
      },
    },
    {
      name: 'findings',
      models: ['vulnerabilities'],
      primaryKey: ['host', 'plugin'],
      async *read(ctx: StreamContext): AsyncIterable<Page> {
        const rows = pick(upstream.findings, ctx);
        for (let i = 0; i < rows.length || i === 0; i += 25)
          yield {
            records: {
              vulnerabilities: rows.slice(i, i + 25).map(([k, f]) => ({
                key: k,
                hostKey: `host:${f.host}`,
                firstSeen: f.firstSeen,
                fields: { pluginId: f.plugin, pluginName: `Plugin ${f.plugin}`, severity: f.severity, status: f.status, scannerKnownExploited: f.kev },
              })),
            },
            checkpoint: { offset: i + 25 },
          };
      },
    },
  ]);
}

const TABLES = ['sum_vuln_counts', 'sum_vuln_due', 'sum_plugins', 'sum_hosts', 'sum_model_counts', 'sum_software', 'sum_compliance', 'sum_plugin_owners'];

/**
 * Every summary row of the source, per table, in one order (numbers as numbers; a sum of fractions, like
 * the summed priority, to 9 digits: its last bits follow the order the rows were added in, which is the
 * plan's, whichever the refresh).
 */
async function snapshot(app: AppContext, sourceId: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of TABLES) {
    const rows = await app.store.db.all(`SELECT * FROM ${t} WHERE source_id = ?`, [sourceId]);
    out[t] = rows
      .map((r) =>
        JSON.stringify(
          Object.entries(r).map(([k, v]) => [
            k,
            typeof v === 'bigint' || (typeof v === 'string' && /^\d+$/.test(v)) ? Number(v) : typeof v === 'number' ? Number(v.toPrecision(9)) : v,
          ]),
        ),
      )
      .sort();
  }
  return out;
}

for (const backend of BACKENDS) {
  describe(`summaries after an incremental run, on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: AppContext;
    const lines: Record<string, unknown>[] = [];
    before(async () => {
      db = await backend.create();
      app = await openApp({
        dataDir: db.dataDir,
        db: db.url,
        log: keptLinesLogger(lines),
        registry: new ConnectorRegistry([connector()]),
      });
      await addSource(app, 'touchfix', 'one', {});
      await addSource(app, 'touchfix', 'other', { url: 'https://other.example' });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });
    const how = (runId: string) => lines.find((l) => l.msg === 'summaries refreshed' && l.runId === runId)?.how;

    test('a touched-only refresh gives the tables a rebuild from every record gives', async () => {
      seed();
      const first = await runSync(app, 'one', { full: true });
      assert.equal(first.status, 'succeeded');
      assert.equal(how(first.runId), 'full');
      assert.equal((await runSync(app, 'other', { full: true })).status, 'succeeded');
      const source = await app.store.sources.get('one');
      const other = await app.store.sources.get('other');
      const otherBefore = await snapshot(app, other.id);
      const before = await snapshot(app, source.id);

      // Upstream changes: a severity, a fix, a reopen, a KEV flag, a new finding on a new plugin and
      // one on a new host; a rule's result; a host's software renamed (a new record beside the old).
      const change = (k: string, f: Partial<Finding>) => {
        upstream.findings.set(k, { ...upstream.findings.get(k)!, ...f });
        upstream.changed.add(k);
      };
      change('h1|1', { severity: 'critical' });
      change('h2|3', { status: 'fixed' });
      change('h0|0', { status: 'reopened' });
      change('h4|6', { kev: true });
      upstream.findings.set('h3|99', { host: 'h3', plugin: '1099', severity: 'high', status: 'open', kev: false, firstSeen: new Date().toISOString() });
      upstream.changed.add('h3|99');
      upstream.findings.set('h20|1', {
        host: 'h20',
        plugin: '1001',
        severity: 'medium',
        status: 'open',
        kev: true,
        firstSeen: new Date(Date.now() - 3 * DAY).toISOString(),
      });
      upstream.changed.add('h20|1');
      upstream.rules.set('h5|r1', { ...upstream.rules.get('h5|r1')!, result: 'error' });
      upstream.changed.add('h5|r1');
      upstream.software.set('h6|zlib', { host: 'h6', name: 'zlib' });
      upstream.changed.add('h6|zlib');

      const inc = await runSync(app, 'one');
      assert.equal(inc.mode, 'incremental');
      assert.equal(inc.status, 'succeeded');
      assert.equal(how(inc.runId), 'touched', 'the epilogue rebuilt only what the run touched');
      const touched = await snapshot(app, source.id);
      assert.notDeepEqual(touched, before, 'the run changed the summaries');
      for (const t of ['sum_vuln_counts', 'sum_plugins', 'sum_hosts', 'sum_compliance', 'sum_software', 'sum_vuln_due', 'sum_model_counts'])
        assert.notDeepEqual(touched[t], before[t], `${t} changed`);

      await app.store.reports.refreshSummaries(source.id);
      assert.deepEqual(touched, await snapshot(app, source.id), 'touched-only = rebuilt from every record');
      assert.deepEqual(await snapshot(app, other.id), otherBefore, "the other source's summaries are untouched");
    });

    test('after a refresh outside a run the next run rebuilds everything', async () => {
      const source = await app.store.sources.get('one');
      // The last refresh was made outside a run (above): the summaries are not the last run's.
      upstream.changed.clear();
      change2();
      const inc = await runSync(app, 'one');
      assert.equal(inc.mode, 'incremental');
      assert.equal(how(inc.runId), 'full');
      const next = await runSync(app, 'one');
      assert.equal(how(next.runId), 'touched', "the run after follows the summaries of that run's epilogue");
      const kept = await snapshot(app, source.id);
      await app.store.reports.refreshSummaries(source.id);
      assert.deepEqual(kept, await snapshot(app, source.id));
    });

    test('a finding whose plugin moved under the same id: counted under its new plugin alone', async () => {
      const source = await app.store.sources.get('one');
      upstream.changed.clear();
      // (a run first, so the summaries are a run's: the last test ended with a refresh outside one)
      assert.equal(how((await runSync(app, 'one')).runId), 'full');
      const k = 'h9|9';
      upstream.findings.set(k, { ...upstream.findings.get(k)!, plugin: '1077' });
      upstream.changed.add(k);
      const inc = await runSync(app, 'one');
      assert.equal(inc.mode, 'incremental');
      // Its image before the run names its old plugin: that group loses it, the new one gains it.
      assert.equal(how(inc.runId), 'touched');
      const kept = await snapshot(app, source.id);
      assert.ok(
        kept.sum_vuln_counts!.some((r) => r.includes('["plugin_id",1077]')),
        'the finding counts under its new plugin',
      );
      await app.store.reports.refreshSummaries(source.id);
      assert.deepEqual(kept, await snapshot(app, source.id));
    });

    test('the owners of a plugin’s hosts: summed while a host has an owner, gone once none has', async () => {
      const source = await app.store.sources.get('one');
      const owners = async () => (await app.store.db.all(`SELECT * FROM sum_plugin_owners WHERE source_id = ?`, [source.id])).length;
      assert.equal(await owners(), 0, 'no host has an owner yet (the grouped scan is skipped)');
      await app.store.db.run(`UPDATE rec_hosts SET owner = 'Team A' WHERE source_id = ?`, [source.id]);
      await app.store.reports.refreshSummaries(source.id);
      assert.ok((await owners()) > 0);
      await app.store.db.run(`UPDATE rec_hosts SET owner = NULL WHERE source_id = ?`, [source.id]);
      await app.store.reports.refreshSummaries(source.id);
      assert.equal(await owners(), 0, 'the rows of owners no host has any more are removed');
    });

    test('after a run killed before its epilogue the next run rebuilds everything, its pages included', async () => {
      const source = await app.store.sources.get('one');
      upstream.changed.clear();
      assert.equal(how((await runSync(app, 'one')).runId), 'full', '(the last test ended with a refresh outside a run)');
      // A run of a process that died (its pid is gone) after storing one page that changed a finding.
      const killed = randomUUID();
      const generation = randomUUID();
      await app.store.runs.create({
        id: killed,
        sourceId: source.id,
        mode: 'incremental',
        generation,
        resumedFrom: null,
        trigger: 'test',
        owner: `${hostname()}:999999`,
        startedAt: new Date().toISOString(),
      });
      const k = 'h10|10';
      const f = { ...upstream.findings.get(k)!, severity: 'critical', status: 'open' as const };
      upstream.findings.set(k, f);
      await app.store.records.writePage(
        { sourceId: source.id, sourceName: 'one', runId: killed, generation, now: new Date().toISOString() },
        'findings',
        'incremental',
        {
          vulnerabilities: [
            {
              key: k,
              hostKey: `host:${f.host}`,
              firstSeen: f.firstSeen,
              fields: { pluginId: f.plugin, pluginName: `Plugin ${f.plugin}`, severity: f.severity, status: f.status, scannerKnownExploited: f.kev },
            },
          ],
        },
        { value: { offset: 25 }, complete: false },
      );
      // The next run closes it, resumes it past that page (rewriting nothing of it) and rebuilds everything.
      const next = await runSync(app, 'one');
      assert.equal(next.resumedFrom, killed);
      assert.equal(how(next.runId), 'full');
      const kept = await snapshot(app, source.id);
      await app.store.reports.refreshSummaries(source.id);
      assert.deepEqual(kept, await snapshot(app, source.id), "the killed run's page is counted");
    });

    test('runs one after another (new, fixed, reopened, severity, KEV, a swept host back, findings re-read unchanged) keep every summary a rebuild', async () => {
      const source = await app.store.sources.get('one');
      const set = (k: string, f: Partial<Finding>) => {
        upstream.findings.set(k, { ...upstream.findings.get(k)!, ...f });
        upstream.changed.add(k);
      };
      // A full run that sweeps host h11 (upstream dropped it): its findings fixed, its host removed.
      const h11 = [...upstream.findings].filter(([, f]) => f.host === 'h11');
      for (const [k] of h11) upstream.findings.delete(k);
      upstream.changed.clear();
      const full = await runSync(app, 'one', { full: true });
      assert.equal(full.status, 'succeeded');
      const swept = await app.store.db.all(
        `SELECT status FROM rec_vulnerabilities WHERE source_id = ? AND host_id IN (SELECT id FROM rec_hosts WHERE hostname = 'h11')`,
        [source.id],
      );
      assert.ok(swept.length > 0 && swept.every((r) => r.status === 'fixed'), 'the sweep fixed the host’s findings');

      // Run 1: severities, a fix, a reopen, a KEV flag, a new finding, and findings re-read as they are.
      upstream.changed.clear();
      set('h1|1', { severity: 'info' });
      set('h2|4', { status: 'fixed' });
      set('h2|3', { status: 'open' }); // fixed by the first test: reopened
      set('h5|7', { kev: true, severity: 'high' });
      for (const k of ['h6|6', 'h6|7', 'h7|8']) upstream.changed.add(k);
      upstream.findings.set('h4|50', {
        host: 'h4',
        plugin: '1050',
        severity: 'low',
        status: 'open',
        kev: false,
        firstSeen: new Date(Date.now() - 5 * DAY).toISOString(),
      });
      upstream.changed.add('h4|50');
      const one = await runSync(app, 'one');
      assert.equal(one.mode, 'incremental');
      assert.equal(how(one.runId), 'touched');

      // Run 2 on run 1's summaries: the swept host comes back (its findings open again, one at a new
      // severity), run 1's new finding is fixed, a finding changes twice within the run's pages.
      upstream.changed.clear();
      for (const [k, f] of h11) {
        upstream.findings.set(k, { ...f, status: 'open' });
        upstream.changed.add(k);
      }
      set(h11[0]![0], { severity: 'critical' });
      set('h4|50', { status: 'fixed' });
      set('h3|5', { severity: 'medium', status: 'fixed' });
      const two = await runSync(app, 'one');
      assert.equal(two.mode, 'incremental');
      assert.equal(how(two.runId), 'touched');
      const back = await app.store.db.all(
        `SELECT status FROM rec_vulnerabilities WHERE source_id = ? AND host_id IN (SELECT id FROM rec_hosts WHERE hostname = 'h11')`,
        [source.id],
      );
      assert.ok(
        back.every((r) => r.status === 'reopened'),
        'the swept host’s findings are reopened',
      );
      assert.equal((await app.store.db.all(`SELECT 1 FROM sum_pending WHERE source_id = ?`, [source.id])).length, 0, 'the kept images are dropped');

      const kept = await snapshot(app, source.id);
      await app.store.reports.refreshSummaries(source.id);
      assert.deepEqual(kept, await snapshot(app, source.id), 'two touched-only refreshes = rebuilt from every record');
    });

    test('a plugin whose findings were re-read unchanged is not regrouped', async () => {
      const source = await app.store.sources.get('one');
      upstream.changed.clear();
      assert.equal(how((await runSync(app, 'one')).runId), 'full', '(the last test ended with a refresh outside a run)');
      // A mark on the plugin's and the host's summaries a regroup would overwrite.
      const [f] = [...upstream.findings].filter(([, x]) => x.host === 'h7' && x.status === 'open');
      const [k, finding] = f!;
      await app.store.db.run(`UPDATE sum_plugins SET plugin_name = 'marked' WHERE source_id = ? AND plugin_id = ?`, [source.id, finding.plugin]);
      upstream.changed.add(k);
      const inc = await runSync(app, 'one');
      assert.equal(how(inc.runId), 'touched');
      const rows = await app.store.db.all(`SELECT plugin_name FROM sum_plugins WHERE source_id = ? AND plugin_id = ?`, [source.id, finding.plugin]);
      assert.equal(rows[0]?.plugin_name, 'marked', 'the unchanged finding touched nothing');
      // Once it changes, its plugin is regrouped.
      upstream.findings.set(k, { ...finding, severity: finding.severity === 'critical' ? 'low' : 'critical' });
      const next = await runSync(app, 'one');
      assert.equal(how(next.runId), 'touched');
      const again = await app.store.db.all(`SELECT plugin_name FROM sum_plugins WHERE source_id = ? AND plugin_id = ?`, [source.id, finding.plugin]);
      assert.equal(again[0]?.plugin_name, `Plugin ${finding.plugin}`);
      const kept = await snapshot(app, source.id);
      await app.store.reports.refreshSummaries(source.id);
      assert.deepEqual(kept, await snapshot(app, source.id));
    });

    test('software and rule results re-read unchanged are not regrouped; a changed one is', async () => {
      const source = await app.store.sources.get('one');
      const hostId = (h: string) => recordId('one', 'hosts', `host:${h}`);
      upstream.changed.clear();
      await runSync(app, 'one', { full: true });
      // Marks a regroup of the name's software or of the host's results would overwrite (the software's a
      // row of no record, n 0: the counts still add up to the records, touchedAgree).
      const mark = async () => {
        await app.store.db.run(`INSERT INTO sum_software (source_id, name, removed, n) VALUES (?, 'curl', 7, 0)`, [source.id]);
        await app.store.db.run(`UPDATE sum_compliance SET total = 1000 WHERE source_id = ? AND host_id = ?`, [source.id, hostId('h5')]);
      };
      const marks = async () => [
        (await app.store.db.all(`SELECT 1 FROM sum_software WHERE source_id = ? AND name = 'curl' AND removed = 7`, [source.id])).length,
        Number((await app.store.db.all(`SELECT MAX(total) AS t FROM sum_compliance WHERE source_id = ? AND host_id = ?`, [source.id, hostId('h5')]))[0]?.t),
      ];
      await mark();
      // Re-read (stamped by the run) but unchanged.
      upstream.changed.add('h0|openssl');
      upstream.changed.add('h5|r1');
      const inc = await runSync(app, 'one');
      assert.equal(how(inc.runId), 'touched');
      assert.equal(
        Number((await app.store.db.all(`SELECT COUNT(*) AS n FROM rec_software WHERE seen_run = ?`, [inc.runId]))[0]?.n),
        1,
        'the software was re-read',
      );
      assert.deepEqual(await marks(), [1, 1000], 'nothing unchanged was regrouped');
      // Changed: both are regrouped.
      upstream.software.set('h2|curl-new', { host: 'h2', name: 'curl' });
      upstream.changed.add('h2|curl-new');
      const rule = upstream.rules.get('h5|r1')!;
      upstream.rules.set('h5|r1', { ...rule, result: rule.result === 'passed' ? 'failed' : 'passed' });
      const next = await runSync(app, 'one');
      assert.equal(how(next.runId), 'touched');
      assert.ok(
        (await marks()).every((n) => n < 1000),
        'the changed name and host were regrouped',
      );
      const kept = await snapshot(app, source.id);
      await app.store.reports.refreshSummaries(source.id);
      assert.deepEqual(kept, await snapshot(app, source.id));
    });
  });
}

function change2(): void {
  const k = 'h8|9';
  upstream.findings.set(k, { ...upstream.findings.get(k)!, severity: 'low', status: 'fixed' });
  upstream.changed.add(k);
}
