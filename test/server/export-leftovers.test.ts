// Issue 27: the `*.partial-*` files a killed export left under the export root are removed when the
// server starts; those of a live process or, fresh, of another machine are kept.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openApp } from '../../src/app/context.ts';
import { createLogger } from '../../src/core/log.ts';
import { exportRootOf } from '../../src/export/confine.ts';
import { partialPath } from '../../src/export/target.ts';
import { buildServer } from '../../src/server/server.ts';
import { ADMIN_PASSWORD } from './helpers.ts';

test('partial export files of dead processes and stale ones are removed at server start; live ones stay', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-leftovers-'));
  const app = await openApp({ dataDir, env: {}, log: createLogger({ level: 'silent' }) });
  try {
    const dir = join(exportRootOf(app), 'lake', 'lab');
    mkdirSync(dir, { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    const files = {
      killed: partialPath(join(dir, 'hosts-1.csv'), dead),
      ours: partialPath(join(dir, 'hosts-2.csv')),
      olderName: join(dir, `hosts-3.csv.partial-${dead}`),
      otherMachineStale: join(dir, 'hosts-4.csv.partial-elsewhere-1'),
      live: partialPath(join(dir, 'hosts-5.csv'), process.ppid),
      otherMachineFresh: join(dir, 'hosts-6.csv.partial-elsewhere-1'),
      finished: join(dir, 'hosts-7.csv'),
    };
    for (const f of Object.values(files)) writeFileSync(f, 'half a file');
    utimesSync(files.otherMachineStale, twoHoursAgo, twoHoursAgo);
    const server = await buildServer(app, { env: { TRIBUTARY_ADMIN_PASSWORD: ADMIN_PASSWORD }, print: () => {}, webUi: false });
    await server.close();
    const left = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, existsSync(f)]));
    assert.deepEqual(left, {
      killed: false,
      ours: false,
      olderName: false,
      otherMachineStale: false,
      live: true,
      otherMachineFresh: true,
      finished: true,
    });
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
