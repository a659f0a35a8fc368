// `tributary exceptions` as a user runs it, on both stores: a past --expires exits 2, the requester cannot
// approve (exit 2) and another user can, the finding then reads excepted and leaves `--where overdue=true`,
// `list --json` shows it with its history, revoke brings it back; `add` is propose's other name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BACKENDS } from '../helpers/databases.ts';
import { cliEnv, runCli } from '../helpers/cli.ts';
import { openTestStore, writeRecords } from '../helpers/store.ts';

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);

for (const backend of BACKENDS) {
  test(`tributary exceptions propose, approve by another user, revoke (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    try {
      const store = await openTestStore(db);
      const lab = await store.sources.create('lab', 'fixture', {}, null);
      await writeRecords(store, lab, {
        hosts: [{ key: 'a', fields: { hostname: 'a' } }],
        vulnerabilities: [
          { key: 'a|0|tcp|1001', hostKey: 'a', firstSeen: ago(100), fields: { pluginId: '1001', severity: 'critical', status: 'open', cves: [] } },
          { key: 'a|0|tcp|2002', hostKey: 'a', firstSeen: ago(100), fields: { pluginId: '2002', severity: 'high', status: 'open', cves: [] } },
        ],
      });
      const finding = (await store.records.query('vulnerabilities', { filters: [{ field: 'pluginId', op: '=', value: '1001' }] })).records[0]!;
      await store.close();
      const env = cliEnv({ TRIBUTARY_USER: 'alice' });
      const cli = (args: string[]) => runCli(['--data-dir', db.dataDir, '--db', db.url, ...args], env);
      const overdue = () =>
        cli(['query', 'vulnerabilities', '--where', 'overdue=true', '--json'])
          .stdout.trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l).pluginId as string);
      assert.deepEqual(overdue().sort(), ['1001', '2002']);

      const past = cli(['exceptions', 'propose', '--finding', finding.id, '--reason', 'r', '--expires', ago(3).slice(0, 10)]);
      assert.equal(past.code, 2, past.stderr);
      assert.match(past.stderr, /in the past/);

      const made = cli(['--json', 'exceptions', 'add', '--finding', finding.id, '--reason', 'isolated VLAN', '--expires', inDays(20)]);
      assert.equal(made.code, 0, made.stderr);
      const ex = JSON.parse(made.stdout) as { id: string; state: string; requestedBy: string };
      assert.deepEqual([ex.state, ex.requestedBy], ['proposed', 'alice']);

      const self = cli(['exceptions', 'approve', ex.id]);
      assert.equal(self.code, 2);
      assert.match(self.stderr, /another user/);
      const ok = cli(['--json', 'exceptions', 'approve', ex.id, '--as', 'bob', '--note', 'until the patch window']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(JSON.parse(ok.stdout).state, 'approved');
      assert.deepEqual(overdue(), ['2002']);
      const excepted = cli(['query', 'vulnerabilities', '--where', 'excepted=true', '--json']).stdout.trim().split('\n').filter(Boolean);
      assert.equal(excepted.length, 1);
      assert.equal(JSON.parse(excepted[0]!).exceptionReason, 'isolated VLAN');

      const list = cli(['--json', 'exceptions', 'list', '--state', 'approved']);
      assert.equal(list.code, 0, list.stderr);
      assert.deepEqual(
        (JSON.parse(list.stdout) as { items: { id: string; approvedBy: string }[] }).items.map((e) => [e.id, e.approvedBy]),
        [[ex.id, 'bob']],
      );
      const human = cli(['exceptions', 'list']);
      assert.match(human.stdout, /approved/);

      const revoked = cli(['exceptions', 'revoke', ex.id]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.match(revoked.stdout, /alice: revoke \(approved → revoked\)/);
      assert.deepEqual(overdue().sort(), ['1001', '2002']);
      const again = cli(['exceptions', 'approve', ex.id, '--as', 'bob']);
      assert.equal(again.code, 1, 'a decision on a revoked exception conflicts');
    } finally {
      await db.drop();
    }
  });
  test(`tributary exceptions add speaks the contract's options and fields (${backend.kind})`, { skip: backend.skip }, async () => {
    const db = await backend.create();
    try {
      const store = await openTestStore(db);
      const lab = await store.sources.create('lab', 'fixture', {}, null);
      await writeRecords(store, lab, {
        hosts: [
          { key: 'a', fields: { hostname: 'a' } },
          { key: 'b', fields: { hostname: 'b' } },
        ],
        vulnerabilities: [{ key: 'a|0|tcp|1001', hostKey: 'a', firstSeen: ago(10), fields: { pluginId: '1001', severity: 'high', status: 'open', cves: [] } }],
      });
      const hostIds = (await store.records.query('hosts', {})).records.map((h) => h.id).sort();
      await store.close();
      assert.equal(hostIds.length, 2);
      const cli = (args: string[]) => runCli(['--data-dir', db.dataDir, '--db', db.url, ...args], cliEnv({ TRIBUTARY_USER: 'alice' }));
      const FIELDS = ['scope', 'findingId', 'pluginId', 'assetIds', 'reason', 'expiresAt', 'requestedBy', 'approvedBy', 'state', 'createdAt'];

      const past = cli(['exceptions', 'add', '--plugin', '1001', '--reason', 'r', '--expires', ago(1).slice(0, 10)]);
      assert.equal(past.code, 2, past.stderr);

      const everywhere = cli(['--json', 'exceptions', 'add', '--plugin', '1001', '--reason', 'vendor fix pending', '--expires', inDays(30)]);
      assert.equal(everywhere.code, 0, everywhere.stderr);
      const p = JSON.parse(everywhere.stdout) as Record<string, unknown>;
      for (const k of FIELDS) assert.ok(k in p, `add --json names ${k}`);
      assert.deepEqual(
        [p.scope, p.pluginId, p.assetIds, p.findingId, p.state, p.requestedBy, p.approvedBy],
        ['plugin', '1001', [], null, 'proposed', 'alice', null],
      );

      const some = cli([
        '--json',
        'exceptions',
        'add',
        '--plugin',
        '1001',
        '--asset',
        hostIds[0]!,
        '--asset',
        hostIds[1]!,
        '--reason',
        'lab',
        '--expires',
        inDays(5),
      ]);
      assert.equal(some.code, 0, some.stderr);
      const pa = JSON.parse(some.stdout) as Record<string, unknown>;
      assert.deepEqual([pa.scope, pa.pluginId, (pa.assetIds as string[]).slice().sort()], ['plugin-assets', '1001', hostIds]);

      assert.equal(cli(['exceptions', 'reject', String(pa.id), '--as', 'bob']).code, 0);
      const approved = cli(['--json', 'exceptions', 'approve', String(p.id), '--as', 'bob']);
      assert.equal(approved.code, 0, approved.stderr);
      assert.deepEqual([JSON.parse(approved.stdout).state, JSON.parse(approved.stdout).approvedBy], ['approved', 'bob']);

      const list = cli(['--json', 'exceptions', 'list']);
      assert.equal(list.code, 0, list.stderr);
      const items = (JSON.parse(list.stdout) as { items: Record<string, unknown>[] }).items;
      for (const e of items) for (const k of FIELDS) assert.ok(k in e, `list --json names ${k}`);
      assert.deepEqual(items.map((e) => [e.scope, e.state]).sort(), [
        ['plugin', 'approved'],
        ['plugin-assets', 'rejected'],
      ]);
      // `tributary query exceptions` reads the same model, as JSON Lines or CSV, filtered by --where.
      const q = cli(['query', 'exceptions', '--where', 'state=approved', '--json']);
      assert.equal(q.code, 0, q.stderr);
      const lines = q.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(
        lines.map((e) => [e.id, e.scope, e.approvedBy]),
        [[p.id, 'plugin', 'bob']],
      );
      for (const k of FIELDS) assert.ok(k in lines[0]!, `query exceptions names ${k}`);
      const csv = cli(['query', 'exceptions', '--format', 'csv']);
      assert.equal(csv.code, 0, csv.stderr);
      assert.equal(csv.stdout.split('\n')[0], ['id', ...FIELDS].join(','));
      assert.equal(csv.stdout.trim().split('\n').length, 3);
      assert.equal(cli(['query', 'exceptions', '--where', 'owner=x']).code, 2);
      assert.equal(cli(['exceptions', 'revoke', String(p.id)]).code, 0);
    } finally {
      await db.drop();
    }
  });
}
