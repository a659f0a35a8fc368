// A run says what it could not use, on both stores: a file-mode sync of an HTML page, an empty file, a CSV
// with foreign columns and one good export ends partial (exit 1) and names each rejected file with its
// reason, and a later export's bad rows with their model, line and column: in the CLI summary, `--json`,
// GET /api/v1/runs/{id} (and the runs list's totals). Such a run read every stream: the next one is not a
// resume of it, and a clean run after it succeeds.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openApp } from '../../src/app/context.ts';
import { silentLogger } from '../../src/core/log.ts';
import { buildServer } from '../../src/server/server.ts';
import { SC_HEADER, scRow } from '../connectors/tenable-sc/csv-fixtures.ts';
import { csvText } from '../filedrop/memory-bucket.ts';
import { type CliResult, cliEnv, runCliAsync } from '../helpers/cli.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { apiToken, bearer, call } from '../server/helpers.ts';

interface SyncJson {
  runId: string;
  status: string;
  streams: Record<string, { records: number; errors: number }>;
  error: string | null;
  rejected: { file: string; reason: string }[];
  errors: { model: string; row: string; field: string | null; reason: string }[];
  rejectedTotal: number;
  errorsTotal: number;
}

const PASSWORD = 'correct horse battery staple 42';

for (const backend of BACKENDS) {
  describe(`a run lists what it could not use, on ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    const env = cliEnv();
    const cli = (...args: string[]): Promise<CliResult> => runCliAsync(['--data-dir', db.dataDir, '--db', db.url, ...args], env);
    const ok = async (...args: string[]): Promise<CliResult> => {
      const r = await cli(...args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      return r;
    };
    const upload = async (name: string, text: string) => {
      const p = join(db.dataDir, name);
      writeFileSync(p, text);
      await ok('upload', 'f', p);
    };
    /** One run as the API serves it (a server on the same store). */
    const apiRun = async (path: string): Promise<Record<string, unknown>> => {
      const app = await openApp({ dataDir: db.dataDir, db: db.url, log: silentLogger, env });
      const server = await buildServer(app, { env: { TRIBUTARY_ADMIN_PASSWORD: PASSWORD }, print: () => {} });
      try {
        const res = await call(server, { method: 'GET', url: path, headers: bearer(await apiToken(server)) });
        assert.equal(res.statusCode, 200, res.body);
        return res.data as Record<string, unknown>;
      } finally {
        await server.close();
        await app.close();
      }
    };

    before(async () => {
      db = await backend.create();
      await ok('sources', 'add', 'tenable-sc', '--name', 'f', '--set', 'inputMode=file');
    });
    after(async () => db?.drop());

    test('rejected files: the run ends partial (exit 1) and names each file with its reason', async () => {
      await upload('login.html', '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form>user, password</form></body></html>\n');
      await upload('empty.csv', '');
      await upload('people.csv', 'name,email\nAlice,alice@example.com\n');
      await upload('2024-10-01.csv', csvText(SC_HEADER, [scRow({}), scRow({ Plugin: '51192', 'Plugin Name': 'SSL Certificate Cannot Be Trusted' })]));

      const r = await cli('--json', 'sync', 'f');
      assert.equal(r.code, 1, r.stderr);
      const out = JSON.parse(r.stdout) as SyncJson;
      assert.equal(out.status, 'partial');
      assert.equal(out.error, null, 'every stream was read to its end');
      assert.equal(out.streams.vulnerabilities!.records, 2, 'the good export is imported');
      const reasons = Object.fromEntries(out.rejected.map((f) => [f.file, f.reason]));
      assert.deepEqual(Object.keys(reasons).sort(), ['empty.csv', 'login.html', 'people.csv']);
      assert.match(reasons['empty.csv']!, /the file is empty/);
      assert.match(reasons['login.html']!, /not a Tenable\.sc export/);
      assert.match(reasons['people.csv']!, /not a Tenable\.sc export/);
      assert.deepEqual([out.rejectedTotal, out.errors, out.errorsTotal], [3, [], 0]);

      const run = await apiRun(`/api/v1/runs/${out.runId}`);
      assert.equal(run.status, 'partial');
      assert.deepEqual(run.rejected, out.rejected);
      assert.deepEqual([run.rejectedTotal, run.errors, run.errorsTotal], [3, [], 0]);
      const list = (await apiRun('/api/v1/runs?source=f')) as { items: Record<string, unknown>[] };
      assert.deepEqual([list.items[0]!.id, list.items[0]!.status, list.items[0]!.rejectedTotal], [out.runId, 'partial', 3]);

      // The next run is no resume of it (it read every stream), and with nothing new to reject it succeeds.
      await upload('2024-10-08.csv', csvText(SC_HEADER, [scRow({ Plugin: '57582', 'Plugin Name': 'SSL Self-Signed Certificate' })]));
      const next = JSON.parse((await ok('--json', 'sync', 'f')).stdout) as SyncJson;
      assert.equal(next.status, 'succeeded');
      assert.equal(next.streams.vulnerabilities!.records, 1, 'the new export was read');
      assert.deepEqual([next.rejected, next.errors], [[], []]);
      assert.equal((await apiRun(`/api/v1/runs/${next.runId}`)).resumedFrom, null);
    });

    test('rows that cannot be stored: listed with model, line and column; the text summary has one line each', async () => {
      await upload(
        '2024-10-15.csv',
        csvText(SC_HEADER, [scRow({ 'IP Address': '10.0.0.2' }), scRow({ Severity: 'Severe' }), scRow({ 'IP Address': '10.0.0.999' })]),
      );
      // (each row spans three lines: its plugin output holds two line breaks)
      const r = await cli('sync', 'f');
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stdout, /^partial: /);
      assert.match(r.stdout, /\n {2}rows not stored \(2\):\n/);
      assert.match(r.stdout, /\n {4}vulnerabilities, 2024-10-15\.csv line 5, Severity: Severity 'Severe' is not one of Info, Low, Medium, High, Critical\n/);
      assert.match(r.stdout, /\n {4}vulnerabilities, 2024-10-15\.csv line 8, IP Address: IP Address '10\.0\.0\.999' is not an IPv4 or IPv6 address\n/);
      assert.doesNotMatch(r.stdout, /rejected files/);

      const last = (await apiRun('/api/v1/runs?source=f&limit=1')) as { items: { id: string }[] };
      const run = await apiRun(`/api/v1/runs/${last.items[0]!.id}`);
      assert.equal(run.status, 'partial');
      assert.deepEqual(run.errors, [
        {
          model: 'vulnerabilities',
          row: '2024-10-15.csv line 5',
          field: 'Severity',
          reason: "Severity 'Severe' is not one of Info, Low, Medium, High, Critical",
        },
        { model: 'vulnerabilities', row: '2024-10-15.csv line 8', field: 'IP Address', reason: "IP Address '10.0.0.999' is not an IPv4 or IPv6 address" },
      ]);
      assert.equal(run.errorsTotal, 2);
      assert.equal((run.counts as Record<string, { errors: number }>).vulnerabilities!.errors, 2, 'the counts say so too');
    });
  });
}
