// A reader that stops early (`tributary query … | head -3`, the README's own example) ends the command
// quietly with status 0, as `git log | head` does: no EPIPE stack, no status 1 (issue 27 §7). Also
// under the launcher, where the command runs as its child under Node 24. Any other failure to write
// stdout is one line on stderr and status 1.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { BIN, cliEnv, olderNode } from '../helpers/cli.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { openTestStore, writeRecords } from '../helpers/store.ts';

// Far more than a pipe holds (64 KB): the command is still writing when the reader goes.
const HOSTS = 3000;
const env = cliEnv({ TRIBUTARY_MASTER_KEY: Buffer.alloc(32, 1).toString('base64') });

/** Runs `tributary ARGS` under `node` with stdout read up to its first line, then closed. */
function firstLine(node: string, args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; line: string; stderr: string }> {
  const child = spawn(node, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    out += d;
    if (out.includes('\n')) child.stdout.destroy();
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, line: out.split('\n')[0]!, stderr })));
}

function assertQuiet(r: { code: number | null; signal: NodeJS.Signals | null; stderr: string }): void {
  assert.deepEqual([r.code, r.signal], [0, null], r.stderr);
  assert.doesNotMatch(r.stderr, /EPIPE|Error|\n\s+at /, 'nothing about the closed pipe on stderr');
}

for (const backend of BACKENDS) {
  describe(`a closed stdout ends the command with status 0 (${backend.kind})`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let global: string[];
    before(async () => {
      db = await backend.create();
      global = ['--data-dir', db.dataDir, '--db', db.url];
      const store = await openTestStore(db);
      try {
        const lab = await store.sources.create('lab', 'fixture', {}, null);
        const hosts = Array.from({ length: HOSTS }, (_, i) => ({ key: `h${i}`, fields: { hostname: `host-${i}`, fqdn: `host-${i}.corp.example` } }));
        await writeRecords(store, lab, { hosts });
      } finally {
        await store.close();
      }
    });
    after(async () => {
      await db?.drop();
    });

    test('query … --format jsonl | head -1', async () => {
      const r = await firstLine(process.execPath, [...global, 'query', 'hosts', '--format', 'jsonl']);
      assertQuiet(r);
      assert.match(String((JSON.parse(r.line) as { hostname: string }).hostname), /^host-\d+$/);
    });

    test('report coverage --list (JSON Lines and the table), export to stdout | head -1', async () => {
      for (const args of [
        ['--json', 'report', 'coverage', '--list', 'scannedNotInCmdb'],
        ['report', 'coverage', '--list', 'scannedNotInCmdb'],
        ['export', 'hosts', '--format', 'jsonl'],
      ]) {
        const r = await firstLine(process.execPath, [...global, ...args]);
        assertQuiet(r);
        assert.notEqual(r.line, '', args.join(' '));
      }
    });

    test('stdout that cannot be written (a full disk: /dev/full) ends it with status 1 and one line', {
      skip: !existsSync('/dev/full') && 'no /dev/full',
    }, () => {
      const full = openSync('/dev/full', 'w');
      try {
        const r = spawnSync(process.execPath, [BIN, ...global, 'query', 'hosts', '--format', 'jsonl'], {
          env,
          stdio: ['ignore', full, 'pipe'],
          encoding: 'utf8',
        });
        assert.equal(r.status, 1, r.stderr);
        assert.equal(r.stderr.replace(/^\{"level".*\n/gm, ''), 'tributary: cannot write to stdout: ENOSPC: no space left on device, write\n');
      } finally {
        closeSync(full);
      }
    });

    const oldNode = olderNode();
    test('query … | head -1 under the launcher (Node 24 its child)', { skip: oldNode ? false : 'no Node older than 22.13 on this machine' }, async () => {
      const r = await firstLine(oldNode!, [...global, 'query', 'hosts', '--format', 'jsonl']);
      assertQuiet(r);
      assert.match(r.line, /"hostname":"host-\d+"/);
    });
  });
}
