// The CLI's answers to bad usage: exit 2 and one line on stderr that names what is wrong.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';
import { rmSync } from 'node:fs';

const dataDir = tempDir();
after(() => rmSync(dataDir, { recursive: true, force: true }));
const d = ['--data-dir', dataDir];

function assertUsage(args: string[], pattern: RegExp) {
  const r = runCli(args);
  assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got: ${r.stderr}`);
  assert.match(lines[0], /^tributary: /);
  assert.match(lines[0], pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

test('unknown commands, types, models, sources and formats exit 2 naming the culprit', () => {
  assertUsage(['frobnicate'], /unknown command 'frobnicate'/);
  assertUsage([...d, 'sources', 'add', 'nessus-pro', '--name', 'x'], /unknown source type 'nessus-pro'/);
  assertUsage([...d, 'sources', 'add', 'tenable-sc'], /--name/);
  assertUsage([...d, 'query', 'widgets'], /unknown model 'widgets'/);
  assertUsage([...d, 'query', 'hosts', '--format', 'xml'], /--format/);
  assertUsage([...d, 'query', 'hosts', '--limit', '0'], /--limit/);
  assertUsage([...d, 'query', 'hosts', '--where', 'nonsense'], /malformed filter 'nonsense'/);
  assertUsage([...d, 'query', 'hosts', '--where', 'colour=red'], /unknown field 'colour'/);
  assertUsage([...d, 'query', 'vulnerabilities', '--where', 'severity>=urgent'], /unknown severity 'urgent'.*one of: info, low, medium, high, critical/);
  assertUsage([...d, 'query', 'compliance', '--where', 'result=PASS'], /unknown result 'PASS'.*one of: passed, failed, warning, error/);
  assertUsage([...d, 'query', 'hosts', '--source', 'ghost'], /no source named 'ghost'/);
  assertUsage([...d, 'sources', 'show', 'ghost'], /no source named 'ghost'/);
  assertUsage([...d, 'sync', 'ghost'], /no source named 'ghost'/);
  assertUsage([...d, 'serve', '--port', 'http'], /--port/);
});

test('an empty store lists no sources and queries no records', () => {
  const list = runCli([...d, '--json', 'sources', 'list']);
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(JSON.parse(list.stdout), []);
  const q = runCli([...d, 'query', 'vulnerabilities', '--json']);
  assert.equal(q.code, 0, q.stderr);
  assert.equal(q.stdout, '');
  const csv = runCli([...d, 'query', 'ports', '--format', 'csv']);
  assert.equal(csv.stdout.trim(), 'id,source,externalId,firstSeen,lastSeen,removed,hostId,port,protocol,service');
});

test('each simulator prints its whole usage for --help and exits 0; a bad option exits 2 with one line', () => {
  for (const [sim, flags] of [
    ['servicedesk-plus', [/--asset-api/, /--tls-cert/, /--requests/]],
    ['tenable-sc', [/--findings-per-host/, /--fault-paths/, /--port/]],
  ] as const) {
    for (const help of ['--help', '-h']) {
      const r = runCli(['sim', sim, help]);
      assert.equal(r.code, 0, `${sim} ${help}: ${r.stderr}`);
      assert.equal(r.stderr, '');
      assert.match(r.stdout, new RegExp(`^usage: tributary sim ${sim} \\[options\\]`, 'i'));
      for (const flag of flags) assert.match(r.stdout, flag);
      assert.ok(r.stdout.trim().split('\n').length > 10, r.stdout);
    }
    assertUsage(['sim', sim, '--bogus'], /unknown option '?--bogus/);
  }
});
