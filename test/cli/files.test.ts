// `tributary upload` and `tributary sources file-drop` on the embedded (local folder) file drop.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';

const dataDir = tempDir();
after(() => rmSync(dataDir, { recursive: true, force: true }));
const d = ['--data-dir', dataDir];

test('upload puts files into the source bucket; the guide gives a scoped token and commands', () => {
  assert.equal(runCli([...d, 'sources', 'add', 'tenable-sc', '--name', 'csv', '--set', 'inputMode=file']).code, 0);
  const file = join(dataDir, 'vulns.csv');
  writeFileSync(file, 'Plugin,IP Address,Severity\n19506,10.0.0.1,Info\n');
  const up = runCli([...d, 'upload', 'csv', file]);
  assert.equal(up.code, 0, up.stderr);
  // A local bucket is a folder: the output names the file there, not an s3:// address.
  assert.ok(up.stdout.startsWith(`uploaded ${join(dataDir, 'drop', 'vuln-scanner', 'vulns.csv')} (`), up.stdout);
  assert.equal(readFileSync(join(dataDir, 'drop', 'vuln-scanner', 'vulns.csv'), 'utf8'), readFileSync(file, 'utf8'));

  const missing = runCli([...d, 'upload', 'csv', join(dataDir, 'nope.csv')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /nope\.csv/);
  assert.equal(runCli([...d, 'upload', 'ghost', file]).code, 2);

  const guide = runCli([...d, '--json', 'sources', 'file-drop', 'csv', '--expires', '30m']);
  assert.equal(guide.code, 0, guide.stderr);
  const g = JSON.parse(guide.stdout) as { address: string; token: { token: string } | null; commands: { command: string }[]; expiresAt: string };
  assert.equal(g.address, 's3://vuln-scanner/');
  assert.equal((g as unknown as { folder: string }).folder, join(dataDir, 'drop', 'vuln-scanner'));
  const human = runCli([...d, 'sources', 'file-drop', 'csv']);
  assert.equal(human.code, 0, human.stderr);
  assert.ok(human.stdout.startsWith(`Folder of 'csv': ${join(dataDir, 'drop', 'vuln-scanner')}\n`), human.stdout);
  assert.ok(!human.stdout.includes('s3://'), 'no s3:// address for a local bucket');
  assert.match(g.token?.token ?? '', /^tfu_/);
  assert.ok(g.commands.some((c) => c.command.startsWith('curl ') && c.command.includes(g.token!.token)));
  const minutes = (Date.parse(g.expiresAt) - Date.now()) / 60_000;
  assert.ok(minutes > 28 && minutes <= 30, String(minutes));
  // Only where a sync reads the bucket.
  assert.equal(
    runCli([...d, 'sources', 'add', 'tenable-sc', '--name', 'api', '--set', 'apiUrl=https://sc.example', '--set', 'accessKey=a', '--set', 'secretKey=b']).code,
    0,
  );
  const apiMode = runCli([...d, 'sources', 'file-drop', 'api']);
  assert.equal(apiMode.code, 2);
  assert.match(apiMode.stderr, /reads from its API/);
  const bad = runCli([...d, 'sources', 'file-drop', 'csv', '--expires', 'forever']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /expires/);
});
