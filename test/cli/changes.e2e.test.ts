// The change feed end to end through the `tributary` command, on both stores: an API-mode source
// against the Tenable.sc simulator (first sync, an unchanged full sync, a finding patched and then
// reopened on the console) and a file-mode source (a later export without a finding, read by a full
// run), read with `changes` (--run: one run's; --since a run: the later runs'), `query changes`,
// `report remediation` and `export --since`; bad input exits 2.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { SC_HEADER, scRow } from '../connectors/tenable-sc/csv-fixtures.ts';
import { csvText } from '../filedrop/memory-bucket.ts';
import { call, pageAll, vulnQuery } from '../sim/tenable-sc-helpers.ts';
import { addTenableArgs, type CliResult, cliEnv, runCliAsync } from '../helpers/cli.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

type Row = Record<string, unknown>;
const lines = (r: CliResult): Row[] =>
  r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);

for (const backend of BACKENDS) {
  describe(`changes through the CLI on ${backend.kind}`, { skip: backend.skip }, () => {
    let sim: RunningTenableSim;
    let db: TestDatabase;
    /** The lab's first run (for the bad-input test). */
    let labRun = '';
    const env = cliEnv();
    const cli = async (...args: string[]): Promise<CliResult> => runCliAsync(['--data-dir', db.dataDir, '--db', db.url, ...args], env);
    const ok = async (...args: string[]): Promise<CliResult> => {
      const r = await cli(...args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      return r;
    };
    const sync = async (name: string, ...flags: string[]) =>
      JSON.parse((await ok('--json', 'sync', name, ...flags)).stdout) as { runId: string; status: string };
    /** Exactly one run's changes (`--run`). */
    const changesOf = async (runId: string, ...flags: string[]) => lines(await ok('changes', '--json', '--run', runId, ...flags));

    before(async () => {
      sim = await startTenableSim({ port: 0, hosts: 12, findingsPerHost: 10, seed: 11 });
      db = await backend.create();
    });
    after(async () => {
      await sim?.close();
      await db?.drop();
    });

    test('API mode: a first sync is all new, an unchanged sync adds nothing, a patch is one fix and a reopening one reopened', async () => {
      await ok(...addTenableArgs('lab', sim));
      const r1 = await sync('lab');
      labRun = r1.runId;
      assert.equal(r1.status, 'succeeded');
      const first = await changesOf(r1.runId);
      const stored = lines(await ok('query', 'vulnerabilities', '--all', '--json'));
      const hosts = lines(await ok('query', 'hosts', '--all', '--json'));
      assert.equal(first.filter((c) => c.model === 'vulnerabilities' && c.change === 'new').length, stored.length);
      assert.equal(first.filter((c) => c.model === 'hosts' && c.change === 'new').length, hosts.length);
      assert.ok(first.every((c) => c.change === 'new' && c.runId === r1.runId && c.source === 'lab'));

      const r2 = await sync('lab', '--full');
      assert.equal(r2.status, 'succeeded');
      assert.deepEqual(await changesOf(r2.runId), [], 'an unchanged full sync adds no event');

      // One finding patched on the console: exactly one fixed event, for that finding.
      const served = (await pageAll(sim, vulnQuery([{ filterName: 'severity', operator: '=', value: '1,2,3,4' }]), 200)).filter(
        (r) => r.pluginType !== 'compliance' && r.family?.type !== 'compliance',
      );
      const target = served.find((r) => Number(r.pluginID) < 1000000 && r.hasBeenMitigated !== '1')!;
      assert.equal((await call(sim, 'POST', '/_sim/patch', { body: { hosts: [target.ip], pluginIDs: [target.pluginID] } })).status, 200);
      const r3 = await sync('lab', '--full');
      const fixes = await changesOf(r3.runId);
      assert.deepEqual(
        fixes.map((c) => [c.model, c.externalId, c.change, c.from, c.to]),
        [['vulnerabilities', target.vulnUUID, 'fixed', 'open', 'fixed']],
      );
      const finding = lines(await ok('query', 'vulnerabilities', '--all', '--json', '--where', `id=${String(fixes[0]!.recordId)}`))[0]!;
      assert.equal(finding.status, 'fixed');
      assert.equal(finding.fixedAt, fixes[0]!.at);

      await call(sim, 'POST', '/_sim/advance', { body: { seconds: 60, rescanFraction: 0 } });
      assert.equal((await call(sim, 'POST', '/_sim/reopen', { body: { hosts: [target.ip], pluginIDs: [target.pluginID] } })).status, 200);
      const r4 = await sync('lab', '--full');
      const reopened = await changesOf(r4.runId, '--model', 'vulnerabilities');
      assert.deepEqual(
        reopened.map((c) => [c.externalId, c.change, c.from, c.to]),
        [[target.vulnUUID, 'reopened', 'fixed', 'reopened']],
      );
      assert.equal(
        lines(await ok('query', 'vulnerabilities', '--all', '--json', '--where', `id=${String(fixes[0]!.recordId)}`))[0]!.reopenedAt,
        reopened[0]!.at,
      );

      // The same feed as a model, filtered, in CSV; and the remediation report counts the fix.
      const csv = (await ok('query', 'changes', '--where', 'change=fixed', '--format', 'csv')).stdout.trim().split('\n');
      assert.equal(csv[0], 'id,source,model,recordId,externalId,change,from,to,runId,at');
      assert.equal(csv.length, 2);
      assert.ok(csv[1]!.includes(String(target.vulnUUID)));
      const table = (await ok('changes', '--run', r3.runId)).stdout;
      assert.match(table, /^AT +SOURCE +MODEL +CHANGE/);
      assert.match(table, /vulnerabilities +fixed +open +fixed/);
      const report = JSON.parse((await ok('--json', 'report', 'remediation', '--source', 'lab')).stdout) as { items: Row[] };
      const severity = finding.severity;
      const row = report.items.find((i) => i.severity === severity)!;
      // The patch, and the findings the first sync found already fixed (dated by the console's lastSeen).
      assert.equal(row.fixed, 1 + stored.filter((v) => v.severity === severity && v.status === 'fixed').length);
      assert.equal(row.undatedFixes, 0);
      assert.equal(typeof row.meanDaysToRemediate, 'number');
      assert.equal(row.open, stored.filter((v) => v.severity === severity && v.status !== 'fixed').length);
      assert.match((await ok('report', 'remediation')).stdout, /^SOURCE +SEVERITY +FIXED +MTTR DAYS +MEDIAN DAYS +OPEN/);

      // --since a run is after it: the changes of the later runs, never its own; the same rule for the report and the export.
      const after = async (runId: string) => lines(await ok('changes', '--json', '--since', runId));
      const r4Changes = await changesOf(r4.runId);
      assert.ok(r4Changes.length > 0);
      assert.deepEqual(await after(r1.runId), [...fixes, ...r4Changes]);
      assert.deepEqual(await after(r3.runId), r4Changes);
      assert.deepEqual(await after(r4.runId), []);
      const fixedAfter = async (runId: string) =>
        (JSON.parse((await ok('--json', 'report', 'remediation', '--since', runId)).stdout) as { items: Row[] }).items.reduce((n, i) => n + Number(i.fixed), 0);
      assert.equal(await fixedAfter(r2.runId), 1);
      assert.equal(await fixedAfter(r3.runId), 0, "the fix was r3's own");
      const exported = async (runId: string) => lines(await ok('export', 'vulnerabilities', '--format', 'jsonl', '--since', runId)).map((v) => v.id);
      assert.deepEqual(await exported(r4.runId), []);
      assert.ok((await exported(r3.runId)).includes(reopened[0]!.recordId), "r4's reopening is exported after r3");
    });

    test('file mode: a later export without a finding fixes it; importing nothing adds nothing', async () => {
      await ok('sources', 'add', 'tenable-sc', '--name', 'f', '--set', 'inputMode=file');
      const write = (name: string, rows: string[][]) => {
        const p = join(db.dataDir, name);
        writeFileSync(p, csvText(SC_HEADER, rows));
        return p;
      };
      const a = scRow({});
      const b = scRow({ Plugin: '51192', 'Plugin Name': 'SSL Certificate Cannot Be Trusted', Severity: 'High' });
      await ok('upload', 'f', write('2024-10-01.csv', [a, b]));
      const r1 = await sync('f');
      const first = await changesOf(r1.runId, '--source', 'f');
      assert.deepEqual(
        first.filter((c) => c.model === 'vulnerabilities').map((c) => [c.change, c.to]),
        [
          ['new', 'open'],
          ['new', 'open'],
        ],
      );
      assert.ok(first.some((c) => c.model === 'hosts' && c.change === 'new'));
      const r2 = await sync('f');
      assert.deepEqual(await changesOf(r2.runId, '--source', 'f'), []);
      // The later export is its repository's state (docs/csv-import.md): the incremental run that reads it fixes 51192.
      await ok('upload', 'f', write('2024-10-08.csv', [a]));
      const r3 = await sync('f');
      const fixed = await changesOf(r3.runId, '--source', 'f');
      assert.deepEqual(
        fixed.map((c) => [c.model, c.change, c.from, c.to]),
        [['vulnerabilities', 'fixed', 'open', 'fixed']],
      );
      const v = lines(await ok('query', 'vulnerabilities', '--all', '--json', '--where', `id=${String(fixed[0]!.recordId)}`))[0]!;
      assert.equal(v.pluginId, '51192');
    });

    test('bad input exits 2 with one line', async () => {
      for (const args of [
        ['changes', '--since', 'not-a-run'],
        ['changes', '--run', 'not-a-run'],
        ['changes', '--run', '2026-01-01'],
        ['changes', '--run', labRun, '--since', '2026-01-01'],
        ['changes', '--model', 'widgets'],
        ['changes', '--change', 'exploded'],
        ['changes', '--source', 'nope'],
        ['changes', '--where', 'colour=red'],
        ['changes', '--format', 'xml'],
        ['report', 'remediation', '--since', 'yesterday-ish'],
      ]) {
        const r = await cli(...args);
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      }
    });
  });
}
