// `tributary export` as a user runs it: to stdout, a file, a folder and an S3 prefix; bad usage exits 2.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buffer, text } from 'node:stream/consumers';
import { after, before, test } from 'node:test';
import { openApp } from '../../src/app/context.ts';
import { createLogger } from '../../src/core/log.ts';
import { S3Backend } from '../../src/filedrop/s3.ts';
import { validateOcsf } from '../export/ocsf-schema.ts';
import { readOcsfParquet } from '../export/parquet-read.ts';
import { seedSource } from '../export/seed.ts';
import { startS3, type TestS3 } from '../filedrop/s3-server.ts';
import { cliEnv, runCli, runCliAsync } from '../helpers/cli.ts';
import { createSqlite, type TestDatabase } from '../helpers/databases.ts';

let db: TestDatabase;
let s3: TestS3;
const env = cliEnv();

before(async () => {
  db = await createSqlite();
  const app = await openApp({ dataDir: db.dataDir, env, log: createLogger({ level: 'silent' }) });
  await seedSource(app, 'lab', { hosts: 3, findings: 12 });
  await app.close();
  s3 = await startS3({ buckets: ['lake'] });
});
after(async () => {
  await s3?.stop();
  await db?.drop();
});

const cli = (...args: string[]) => runCli(['--data-dir', db.dataDir, ...args], env);

test('OCSF to stdout: one valid event per finding', () => {
  const r = cli('export', 'vulnerabilities', '--format', 'ocsf', '--ocsf-version', '1.3.0');
  assert.equal(r.code, 0, r.stderr);
  const events = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(events.length, 12);
  for (const e of events) assert.deepEqual(validateOcsf('1.3.0', e), []);
  assert.equal(r.stderr, '', 'no progress line when stderr is no terminal');
});

test('ECS bulk to a file, CSV into a folder, --json summary', () => {
  const file = join(db.dataDir, 'out', 'findings.ndjson');
  const r = cli('--json', 'export', 'vulnerabilities', '--format', 'ecs', '--ecs-bulk', '--where', 'severity>=high', '--out', file);
  assert.equal(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.location, file);
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  assert.equal(lines.length, summary.records * 2);
  assert.ok(summary.records > 0 && summary.records < 12);
  assert.ok(JSON.parse(lines[0]).index._id);
  const folder = join(db.dataDir, 'out');
  const c = cli('export', 'hosts', '--format', 'csv', '--out', folder);
  assert.equal(c.code, 0, c.stderr);
  const csv = readdirSync(folder).find((f) => f.startsWith('hosts-') && f.endsWith('.csv'));
  assert.ok(csv, c.stdout);
  assert.equal(readFileSync(join(folder, csv), 'utf8').trim().split('\n').length, 4);
  assert.match(c.stdout, /exported 3 hosts as csv to /);
});

test('to an S3 prefix with the standard AWS settings', async () => {
  const s3env = {
    ...env,
    TRIBUTARY_S3_ENDPOINT: s3.env.TRIBUTARY_S3_ENDPOINT!,
    TRIBUTARY_S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: s3.env.AWS_ACCESS_KEY_ID!,
    AWS_SECRET_ACCESS_KEY: s3.env.AWS_SECRET_ACCESS_KEY!,
    AWS_REGION: 'us-east-1',
  };
  const r = await runCliAsync(['--data-dir', db.dataDir, '--json', 'export', 'vulnerabilities', '--format', 'ocsf', '--out', 's3://lake/tenable/ocsf/'], s3env);
  assert.equal(r.code, 0, r.stderr);
  const { location } = JSON.parse(r.stdout);
  assert.match(location, /^s3:\/\/lake\/tenable\/ocsf\/vulnerabilities-\d{8}T\d{6}Z\.ocsf\.jsonl$/);
  const backend = new S3Backend({ endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  try {
    const body = await text(await backend.open('lake', location.slice('s3://lake/'.length)));
    assert.equal(body.trim().split('\n').length, 12);
    // OCSF as Parquet, as Security Lake takes it: a multipart upload of the binary file.
    const pq = await runCliAsync(
      ['--data-dir', db.dataDir, '--json', 'export', 'vulnerabilities', '--format', 'ocsf-parquet', '--out', 's3://lake/tenable/pq/'],
      s3env,
    );
    assert.equal(pq.code, 0, pq.stderr);
    const pqLocation: string = JSON.parse(pq.stdout).location;
    assert.match(pqLocation, /^s3:\/\/lake\/tenable\/pq\/vulnerabilities-\d{8}T\d{6}Z\.ocsf\.parquet$/);
    const object = await buffer(await backend.open('lake', pqLocation.slice('s3://lake/'.length)));
    assert.deepEqual(
      await readOcsfParquet(object),
      body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    );
  } finally {
    await backend.close();
  }
});

test('OCSF as Parquet to a file: read back, the same events as the JSON export', async () => {
  const file = join(db.dataDir, 'out', 'findings.parquet');
  const r = cli('--json', 'export', 'vulnerabilities', '--format', 'ocsf-parquet', '--ocsf-version', '1.3.0', '--out', file);
  assert.equal(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.location, file);
  assert.equal(summary.records, 12);
  assert.equal(summary.format, 'ocsf-parquet');
  const bytes = readFileSync(file);
  assert.equal(summary.bytes, bytes.length);
  assert.equal(bytes.subarray(0, 4).toString(), 'PAR1');
  const json = cli('export', 'vulnerabilities', '--format', 'ocsf', '--ocsf-version', '1.3.0');
  const want = json.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(await readOcsfParquet(bytes), want);
  for (const e of want) assert.deepEqual(validateOcsf('1.3.0', e), []);
});

test('bad usage exits 2 with one line naming the culprit', () => {
  const cases: [string[], RegExp][] = [
    [['export', 'vulnerabilities', '--format', 'xml'], /--format must be one of ocsf, ocsf-parquet, ecs, jsonl, csv/],
    [['export', 'nothing', '--format', 'csv'], /unknown model 'nothing'/],
    [['export', 'software', '--format', 'ocsf'], /--ocsf-version 1\.3\.0/],
    [['export', 'tickets', '--format', 'ecs'], /no mapping for tickets/],
    [['export', 'vulnerabilities', '--format', 'jsonl', '--since', 'yesterday'], /since: 'yesterday' is neither a run id nor an ISO-8601 time/],
    [['export', 'vulnerabilities', '--format', 'jsonl', '--where', 'colour=red'], /unknown field 'colour'/],
    [['export', 'vulnerabilities', '--format', 'ocsf', '--ocsf-version', '2.0'], /--ocsf-version must be one of/],
  ];
  for (const [args, re] of cases) {
    const r = cli(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  }
});

test('exports add|run|list|remove, with the status in sources show', () => {
  // `exports add` is confined as the API is: a relative folder is under the export root.
  const dir = join(db.dataDir, 'exports', 'scheduled');
  const add = cli('exports', 'add', 'lake', '--to', 'scheduled', '--format', 'ocsf', '--model', 'vulnerabilities', '--changes');
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stdout, /added export 'lake': changes of every source as ocsf \(vulnerabilities\)/);
  const run = cli('exports', 'run', 'lake');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^lab: succeeded, 12 records → /);
  const files = readdirSync(join(dir, 'lab'));
  assert.equal(files.length, 1);
  const show = JSON.parse(cli('sources', 'show', 'lab').stdout);
  assert.equal(show.exports[0].destination, 'lake');
  assert.equal(show.exports[0].status, 'succeeded');
  assert.equal(show.exports[0].records, 12);
  const list = JSON.parse(cli('--json', 'exports', 'list').stdout);
  assert.equal(list[0].mode, 'changes');
  assert.equal(list[0].status[0].source, 'lab');
  assert.match(cli('exports', 'list').stdout, /lake\s+\(all\)\s+ocsf 1\.1\.0\s+changes/);
  const bad = cli('exports', 'add', 'x', '--to', '-', '--format', 'csv');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /no folder or s3/);
  assert.equal(cli('exports', 'remove', 'lake').code, 0);
  const gone = cli('exports', 'remove', 'lake');
  assert.equal(gone.code, 2);
  assert.match(gone.stderr, /no export destination named 'lake'/);
});
