// The connector contract is closed: a connector defined only in the tests (test/helpers/third-connector.ts),
// registered with one line, goes through `sources add/check`, `sync`, the file drop, the queue's
// per-upstream concurrency key and the API's configure-form metadata, with no file under src/ naming it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openApp } from '../../src/app/context.ts';
import { defaultRegistry, registerConnector } from '../../src/connectors/registry.ts';
import { createLogger } from '../../src/core/log.ts';
import { buildServer } from '../../src/server/server.ts';
import { upstreamOf } from '../../src/sync/queue.ts';
import { cliEnv } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';
import { THIRD_API_HOSTS, THIRD_BUCKET, THIRD_TOKEN, THIRD_TYPE, thirdConnector } from '../helpers/third-connector.ts';

const ENTRY = fileURLToPath(new URL('../helpers/third-cli.ts', import.meta.url));
const dataDir = tempDir();
after(() => rmSync(dataDir, { recursive: true, force: true }));

function tributary(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [ENTRY, '--data-dir', dataDir, ...args], { encoding: 'utf8', env: cliEnv(), timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function ok(...args: string[]): string {
  const r = tributary(...args);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Hostnames in `query hosts --json` output (JSON lines). */
function names(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => String((JSON.parse(line) as { hostname: unknown }).hostname))
    .sort();
}

test('no file under src/ names the test connector', () => {
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
  const src = fileURLToPath(new URL('../../src', import.meta.url));
  for (const file of walk(src)) assert.ok(!readFileSync(file, 'utf8').includes(THIRD_TYPE), `${file} names the test connector`);
});

test('sources add/check and sync run a connector registered with one line (CLI)', () => {
  ok('sources', 'add', THIRD_TYPE, '--name', 'third-api', '--set', 'endpoint=https://third.example:8443/api', '--set', `accessToken=${THIRD_TOKEN}`);
  const listed = ok('sources', 'list');
  assert.match(listed, /third-api\s+third-inventory\s+api/);
  const shown = ok('--json', 'sources', 'show', 'third-api');
  assert.ok(!shown.includes(THIRD_TOKEN), 'the declared secret field is masked');
  ok('sources', 'check', 'third-api');
  ok('sync', 'third-api');
  assert.deepEqual(names(ok('--json', 'query', 'hosts', '--source', 'third-api')), [...THIRD_API_HOSTS].sort());

  ok('sources', 'add', THIRD_TYPE, '--name', 'third-bad', '--set', 'endpoint=https://third.example:8443/api', '--set', 'accessToken=wrong-token-00');
  assert.equal(tributary('sources', 'check', 'third-bad').code, 1, 'a failed check exits 1');
});

test('the file drop: the declared default bucket, upload, sync', () => {
  ok('sources', 'add', THIRD_TYPE, '--name', 'third-files', '--set', 'inputMode=file');
  assert.match(ok('sources', 'list'), /third-files\s+third-inventory\s+file/);
  const file = join(dataDir, 'hosts.txt');
  writeFileSync(file, 'gamma.third.test\ndelta.third.test\n');
  ok('upload', 'third-files', file);
  assert.equal(readFileSync(join(dataDir, 'drop', THIRD_BUCKET, 'hosts.txt'), 'utf8'), readFileSync(file, 'utf8'), 'uploaded into the declared default bucket');
  ok('sources', 'check', 'third-files');
  ok('sync', 'third-files');
  assert.deepEqual(names(ok('--json', 'query', 'hosts', '--source', 'third-files')), ['delta.third.test', 'gamma.third.test']);
});

test('the queue keys the concurrency limit on the declared upstream; the API describes the form', async () => {
  registerConnector(thirdConnector);
  const app = await openApp({
    dataDir: tempDir(),
    env: { TRIBUTARY_MASTER_KEY: Buffer.alloc(32, 3).toString('base64') },
    log: createLogger({ level: 'silent' }),
    registry: await defaultRegistry(),
  });
  try {
    const a = { name: 'a', type: THIRD_TYPE, config: { inputMode: 'api', endpoint: 'https://Third.Example:8443/api' } };
    const b = { name: 'b', type: THIRD_TYPE, config: { inputMode: 'api', endpoint: 'https://third.example:8443/other' } };
    assert.equal(upstreamOf(app, a), 'third.example:8443');
    assert.equal(upstreamOf(app, b), upstreamOf(app, a), 'two sources on one upstream share its limit');
    assert.equal(upstreamOf(app, { name: 'f', type: THIRD_TYPE, config: { inputMode: 'file' } }), `bucket:${THIRD_BUCKET}`);
    assert.equal(upstreamOf(app, { name: 'g', type: THIRD_TYPE, config: { inputMode: 'file', bucket: 'elsewhere' } }), 'bucket:elsewhere');

    const server = await buildServer(app, { env: { TRIBUTARY_ADMIN_PASSWORD: 'correct horse battery staple 42' }, print: () => {} });
    try {
      const login = await server.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: 'admin', password: 'correct horse battery staple 42' },
      });
      assert.equal(login.statusCode, 200, login.body);
      const cookie = login.cookies.find((c) => c.name === 'tributary_session');
      const res = await server.inject({ method: 'GET', url: '/api/v1/connectors', headers: { cookie: `tributary_session=${cookie?.value}` } });
      assert.equal(res.statusCode, 200, res.body);
      const meta = (res.json() as { items: Record<string, unknown>[] }).items.find((c) => c.type === THIRD_TYPE) as Record<string, unknown>;
      assert.ok(meta, 'the connector is listed');
      assert.equal(meta.shortName, 'Third');
      assert.deepEqual(meta.sections, [{ title: 'Connection', help: null, keys: ['inputMode', 'endpoint', 'accessToken', 'bucket'] }]);
      assert.deepEqual(meta.files, { defaultBucket: THIRD_BUCKET, kinds: ['txt'], uploadHint: 'Upload host lists, one name a line.' });
      const fields = meta.fields as { key: string; secret: boolean; input: string; default: unknown }[];
      assert.deepEqual(
        fields.map((f) => f.key),
        ['inputMode', 'endpoint', 'accessToken', 'bucket'],
      );
      assert.equal(fields.find((f) => f.key === 'accessToken')?.secret, true);
      assert.equal(fields.find((f) => f.key === 'inputMode')?.default, 'api');
    } finally {
      await server.close();
    }
  } finally {
    await app.close();
  }
});
