// Finding detail, offline feeds and the SLA end to end through the CLI, on both stores, in API mode
// (against the Tenable.sc simulator) and file mode (an uploaded export): plugins once per plugin, capped
// proofs, `feeds import` (bad file → exit 2, nothing changed; KEV JSON and gzipped EPSS), `feeds list`
// with staleness, the `sources check` warning line, and overdue/feed filters in `query`.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type RunningTenableSim, startTenableSim } from '../../sim/tenable-sc/index.ts';
import { SC_HEADER, scRow } from '../connectors/tenable-sc/csv-fixtures.ts';
import { day, epssCsv, kevCatalog } from '../feeds/fixtures.ts';
import { csvText } from '../filedrop/memory-bucket.ts';
import { addTenableArgs, type CliResult, cliEnv, runCliAsync } from '../helpers/cli.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

type Rec = Record<string, unknown>;
let sim: RunningTenableSim;
before(async () => {
  sim = await startTenableSim({ port: 0, hosts: 12, findingsPerHost: 10, seed: 11 });
});
after(async () => {
  await sim?.close();
});

for (const backend of BACKENDS) {
  describe(`finding detail, feeds and SLA through the CLI (${backend.kind})`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    const cli = (args: string[], env: Rec = {}): Promise<CliResult> =>
      runCliAsync(['--data-dir', db.dataDir, '--db', db.url, ...args], cliEnv(env as Record<string, string>));
    const ok = async (args: string[], env: Rec = {}) => {
      const r = await cli(args, env);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    const rows = async (args: string[], env: Rec = {}) =>
      (await ok(['--json', 'query', ...args], env))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Rec);
    const file = (name: string, data: Buffer | string) => {
      const p = join(db.dataDir, name);
      writeFileSync(p, data);
      return p;
    };

    before(async () => {
      db = await backend.create();
    });
    after(async () => {
      await db?.drop();
    });

    test('API mode: one plugin record per plugin, findings with family, synopsis and a capped proof', async () => {
      await ok(addTenableArgs('lab', sim, 'proofMaxBytes=60'));
      const sync = JSON.parse(await ok(['--json', 'sync', 'lab'])) as { status: string; streams: Record<string, { records: number }> };
      assert.equal(sync.status, 'succeeded');
      const vulns = await rows(['vulnerabilities', '--source', 'lab', '--all']);
      const plugins = await rows(['plugins', '--source', 'lab']);
      assert.ok(vulns.length > 20);
      assert.equal(sync.streams.plugins!.records, plugins.length);
      assert.deepEqual(
        plugins.map((p) => p.pluginId).sort(),
        [...new Set(vulns.map((v) => v.pluginId as string))].sort(),
        'one plugin record per plugin of the findings',
      );
      assert.ok(
        plugins.every((p) => p.name && p.family && p.pluginPublished),
        'plugins carry their names and dates',
      );
      assert.ok(
        plugins.some((p) => p.synopsis && p.description && p.solution),
        'and their text',
      );
      assert.ok(plugins.some((p) => Array.isArray(p.cves) && (p.cves as string[]).length > 0));
      assert.ok(vulns.every((v) => typeof v.pluginFamily === 'string' && typeof v.synopsis === 'string'));
      assert.ok(
        vulns.every((v) => v.proof === null || Buffer.byteLength(v.proof as string) <= 60),
        'proofMaxBytes caps the proof',
      );
      assert.ok(
        vulns.some((v) => v.proofTruncated === true),
        'longer outputs are cut and say so',
      );
      assert.ok(vulns.every((v) => !String(v.proof ?? '').includes('<plugin_output>')));
      const table = await ok([
        'query',
        'vulnerabilities',
        '--source',
        'lab',
        '--where',
        'overdue=true',
        '--limit',
        '3',
        '--fields',
        'pluginName,dueAt,overdue',
      ]);
      assert.match(table.split('\n')[0]!, /DUEAT\s+OVERDUE/);
    });

    test('feeds: a bad file exits 2 and changes nothing; KEV JSON and gzipped EPSS import; list and check tell a stale one', async () => {
      const bad = await cli(['feeds', 'import', file('notes.txt', 'shopping list\n')]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /^tributary: notes\.txt: not a CISA KEV catalog \(JSON\) or a FIRST EPSS CSV/);
      assert.equal(bad.stderr.trim().split('\n').length, 1);
      assert.match(await ok(['feeds', 'list']), /no feeds imported/);
      const vulns = await rows(['vulnerabilities', '--source', 'lab', '--where', 'status!=fixed']);
      const target = vulns.find((v) => (v.cves as string[]).length > 0 && v.overdue === false && v.severity !== 'info');
      assert.ok(target, 'an open finding with a CVE that is not overdue yet');
      const cve = (target.cves as string[])[0]!;
      const kev = file(
        'known_exploited_vulnerabilities.json',
        // Released a day ago: `feeds list` says "1 day old" (and "1 record"), not "1 days".
        kevCatalog('2026.11.21', new Date(Date.now() - 86_400_000 - 60_000).toISOString(), [{ cve, added: day(-3), due: day(-1), ransomware: 'Known' }]),
      );
      const epss = file('epss_scores-current.csv.gz', epssCsv('v2025.03.14', `${day(-8)}T00:00:00+0000`, [[cve, 0.87654, 0.99123]], { gzip: true }));
      const out = await ok(['feeds', 'import', kev, epss]);
      assert.match(out, /imported CISA Known Exploited Vulnerabilities 2026\.11\.21/);
      assert.match(out, /imported FIRST EPSS scores v2025\.03\.14/);
      const list = await ok(['feeds', 'list']);
      assert.match(list, /^epss .*STALE: 8 days old$/m);
      assert.match(list, /^kev .*version 2026\.11\.21 .* 1 record .* 1 day old$/m);
      const listed = JSON.parse(await ok(['--json', 'feeds', 'list'])) as { feeds: Rec[] };
      assert.deepEqual(
        listed.feeds.map((f) => [f.kind, f.stale, f.records]),
        [
          ['epss', true, 1],
          ['kev', false, 1],
        ],
      );
      const check = await cli(['sources', 'check', 'lab']);
      assert.equal(check.code, 0, check.stderr);
      assert.match(check.stdout, /^! warning: FIRST EPSS scores v2025\.03\.14 is 8 days old/m);
      const checked = JSON.parse(await ok(['--json', 'sources', 'check', 'lab'])) as { ok: boolean; warnings: string[] };
      assert.equal(checked.ok, true);
      assert.equal(checked.warnings.length, 1);

      const hit = (await rows(['vulnerabilities', '--source', 'lab', '--where', 'kevDateAdded!=null'])).filter((v) => v.id === target.id);
      assert.equal(hit.length, 1);
      assert.equal(hit[0]!.kevDueDate, `${day(-1)}T00:00:00.000Z`);
      assert.equal(hit[0]!.epssFeedScore, 0.87654);
      assert.deepEqual([hit[0]!.epssScore, hit[0]!.epssPercentile, hit[0]!.epssSource], [0.87654, 0.99123, 'feed'], 'one origin: the feed');
      assert.equal(hit[0]!.scannerEpssScore, target.scannerEpssScore, 'the scanner’s EPSS is kept beside the feed’s');
      assert.deepEqual([hit[0]!.knownExploited, hit[0]!.knownExploitedBy === 'feed' || hit[0]!.knownExploitedBy === 'both'], [true, true]);
      const overdue = await rows(['vulnerabilities', '--source', 'lab', '--where', 'overdue=true']);
      assert.ok(
        overdue.some((v) => v.id === target.id),
        'past its KEV due date',
      );
      assert.ok(overdue.every((v) => v.overdue === true && v.status !== 'fixed'));
      // A re-sync writes the findings again: the feed values come with the write.
      await ok(['sync', 'lab', '--full']);
      const again = await rows(['vulnerabilities', '--source', 'lab', '--where', 'epssPercentile>0.99']);
      assert.deepEqual(
        again.map((v) => v.id),
        [target.id],
      );
      // The policy is a setting; a malformed one is bad input.
      const strict = await rows(['vulnerabilities', '--source', 'lab', '--where', 'overdue=true'], { TRIBUTARY_SLA_DAYS: 'critical:1,high:1,medium:1,low:1' });
      assert.ok(strict.length >= overdue.length);
      const wrong = await cli(['query', 'vulnerabilities', '--limit', '1'], { TRIBUTARY_SLA_DAYS: 'urgent:3' });
      assert.equal(wrong.code, 2);
      assert.match(wrong.stderr, /TRIBUTARY_SLA_DAYS/);
    });

    test('file mode: an uploaded export gives plugin records and finding detail', async () => {
      await ok(['sources', 'add', 'tenable-sc', '--name', 'files', '--set', 'inputMode=file']);
      const a = scRow({
        'IP Address': '10.9.0.1',
        Synopsis: 'Weak ciphers are offered.',
        Description: 'The service offers 64-bit block ciphers.',
        'See Also': 'https://sweet32.info',
        'Plugin Publication Date': 'Aug 25, 2016 12:00:00 UTC',
        'Exploit?': 'No',
      });
      const b = scRow({
        'IP Address': '10.9.0.2',
        Synopsis: 'Weak ciphers are offered.',
        Description: 'The service offers 64-bit block ciphers.',
        'See Also': 'https://sweet32.info',
        'Plugin Publication Date': 'Aug 25, 2016 12:00:00 UTC',
        'Exploit?': 'No',
      });
      await ok(['upload', 'files', file('export.csv', csvText(SC_HEADER, [a, b]))]);
      await ok(['sync', 'files']);
      const plugins = await rows(['plugins', '--source', 'files']);
      assert.deepEqual(
        plugins.map((p) => [p.pluginId, p.description, p.seeAlso, p.pluginPublished]),
        [['42873', 'The service offers 64-bit block ciphers.', ['https://sweet32.info'], '2016-08-25T12:00:00.000Z']],
      );
      const vulns = await rows(['vulnerabilities', '--source', 'files']);
      assert.equal(vulns.length, 2);
      for (const v of vulns) {
        assert.equal(v.synopsis, 'Weak ciphers are offered.');
        assert.equal(v.solution, 'Reconfigure the service.');
        assert.equal(v.proof, '  Medium Strength Ciphers', 'the output as the scanner printed it, indentation kept');
        assert.equal(v.exploitAvailable, false);
        assert.equal(v.pluginFamily, 'General');
      }
    });
  });
}
