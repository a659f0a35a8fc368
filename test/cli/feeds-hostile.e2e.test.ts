// `feeds import` refusals end to end through the CLI, on both stores (issue 27): a feed dated more than
// a day ahead exits 2 (with --replace too), an older one exits 2 naming --replace and goes in with it, and
// a file past TRIBUTARY_FEED_MAX_ENTRIES exits 2 naming the setting; each with one line on stderr.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { day, epssCsv, kevCatalog } from '../feeds/fixtures.ts';
import { type CliResult, cliEnv, runCliAsync } from '../helpers/cli.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';

for (const backend of BACKENDS) {
  describe(`feeds import refusals through the CLI (${backend.kind})`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
      runCliAsync(['--data-dir', db.dataDir, '--db', db.url, ...args], cliEnv(env));
    const file = (name: string, data: Buffer | string) => {
      const p = join(db.dataDir, name);
      writeFileSync(p, data);
      return p;
    };
    const refused = (r: CliResult, re: RegExp) => {
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, re);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    };

    before(async () => {
      db = await backend.create();
    });
    after(async () => {
      await db?.drop();
    });

    test('future-dated exits 2 even with --replace; older exits 2 and goes in with --replace; the entry cap exits 2', async () => {
      const current = file('kev.json', kevCatalog('2026.11.20', `${day(-1)}T00:00:00Z`, [{ cve: 'CVE-2024-1000', added: day(-10) }]));
      assert.equal((await cli(['feeds', 'import', current])).code, 0);
      const future = file('kev-2099.json', kevCatalog('2099.12.31', '2099-12-31T00:00:00Z', [{ cve: 'CVE-2024-1000', added: '2099-12-31' }]));
      refused(await cli(['feeds', 'import', '--replace', future]), /^tributary: kev-2099\.json: .* is dated in the future/);
      const older = file('kev-old.json', kevCatalog('2026.10.01', `${day(-50)}T00:00:00Z`, [{ cve: 'CVE-2024-2000', added: day(-50) }]));
      refused(await cli(['feeds', 'import', older]), /^tributary: kev-old\.json: .* is older than the one imported .*--replace/);
      const replaced = await cli(['feeds', 'import', '--replace', older]);
      assert.equal(replaced.code, 0, replaced.stderr);
      assert.match(replaced.stdout, /imported CISA Known Exploited Vulnerabilities 2026\.10\.01/);
      const list = JSON.parse((await cli(['--json', 'feeds', 'list'])).stdout) as { feeds: { kind: string; version: string }[] };
      assert.deepEqual(
        list.feeds.map((f) => [f.kind, f.version]),
        [['kev', '2026.10.01']],
      );
      const epss = file(
        'epss.csv',
        epssCsv(
          'v2025.03.14',
          `${day(-1)}T00:00:00+0000`,
          Array.from({ length: 20 }, (_, i): [string, number, number] => [`CVE-2024-${10000 + i}`, 0.1, 0.2]),
        ),
      );
      refused(
        await cli(['feeds', 'import', epss], { TRIBUTARY_FEED_MAX_ENTRIES: '5' }),
        /epss\.csv: the feed holds more than 5 rows, the limit TRIBUTARY_FEED_MAX_ENTRIES sets/,
      );
    });
  });
}
