// `tributary tokens create|list|revoke` (interfaces.md §7.2): the token is printed once and never listed,
// its scope decides what the API lets it do, and a revoked token is answered 401.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { createLogger } from '../../src/core/log.ts';
import { buildServer } from '../../src/server/server.ts';
import { cliEnv, runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';

const dataDir = tempDir();
const d = ['--data-dir', dataDir];
/** No TRIBUTARY_ADMIN_PASSWORD: the first `tokens create` makes the admin user with a generated password. */
const env = cliEnv();
delete env.TRIBUTARY_ADMIN_PASSWORD;
const cli = (args: string[]) => runCli([...d, ...args], env);

interface Listed {
  items: { id: string; name: string; scope: string; createdAt: string; lastUsedAt: string | null; expiresAt: string | null }[];
}

describe('tributary tokens', () => {
  let app: AppContext;
  let server: FastifyInstance;
  const status = async (method: 'GET' | 'POST', url: string, token: string) =>
    (await server.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload: method === 'POST' ? {} : undefined })).statusCode;
  /** The id and value of the operate and admin tokens (from --json), and the read token's value (from the human output). */
  const made: Record<string, { id: string; token: string }> = {};
  let readToken = '';

  before(async () => {
    // The CLI makes the admin user when no server ran yet; the server started afterwards finds it.
    // The generated admin password goes to stderr (and its file), not into the captured token.
    const siem = cli(['tokens', 'create', '--name', 'siem', '--scope', 'read']);
    assert.equal(siem.code, 0, siem.stderr);
    assert.match(siem.stderr, /Created user 'admin' with password: \S+ {2}\(also written to .*admin-password\)/);
    const lines = siem.stdout.split('\n').filter(Boolean);
    assert.equal(lines.length, 1, 'stdout is the token alone');
    assert.match(lines[0]!, /^trb_[A-Za-z0-9_-]{40,}$/);
    assert.match(siem.stderr, /created API token 'siem' \(id [0-9a-f-]+, scope read\); it is shown only now/);
    for (const scope of ['operate', 'admin']) {
      const r = cli(['--json', 'tokens', 'create', '--name', `${scope}-bot`, '--scope', scope, ...(scope === 'admin' ? ['--expires-in', '90d'] : [])]);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { id: string; name: string; scope: string; token: string; expiresAt: string | null };
      assert.equal(out.scope, scope);
      assert.equal(out.expiresAt === null, scope !== 'admin');
      made[scope] = out;
    }
    readToken = lines[0]!;

    app = await openApp({ dataDir, env, log: createLogger({ level: 'silent' }) });
    server = await buildServer(app, { env, print: () => {}, webUi: false });
  });
  after(async () => {
    await server?.close();
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists every token with its scope and never a token value', () => {
    const listed = cli(['--json', 'tokens', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    const items = (JSON.parse(listed.stdout) as Listed).items;
    assert.deepEqual(
      items.map((t) => `${t.name} ${t.scope}`),
      ['siem read', 'operate-bot operate', 'admin-bot admin'],
    );
    const table = cli(['tokens', 'list']);
    assert.match(table.stdout, /^ID\s+NAME\s+SCOPE\s/);
    assert.match(table.stdout, /siem\s+read/);
    for (const token of [readToken, made.operate!.token, made.admin!.token]) {
      assert.ok(!listed.stdout.includes(token) && !table.stdout.includes(token), 'a token value is shown only at creation');
      assert.ok(!listed.stdout.includes(token.slice(4, 16)));
    }
  });

  it('a token does what its scope allows and is refused (403) the rest', async () => {
    assert.equal(await status('GET', '/api/v1/sources', readToken), 200);
    assert.equal(await status('POST', '/api/v1/sources/lab/sync', readToken), 403);
    assert.equal(await status('POST', '/api/v1/sources/lab/sync', made.operate!.token), 404, 'operate may start a sync (of no such source here)');
    assert.equal(await status('GET', '/api/v1/tokens', made.operate!.token), 403);
    assert.equal(await status('GET', '/api/v1/tokens', made.admin!.token), 200);
  });

  it('refuses an unknown scope or a bad lifetime (exit 2) and revokes by id; a revoked token is answered 401', async () => {
    for (const [args, pattern] of [
      [['tokens', 'create', '--name', 'x', '--scope', 'root'], /--scope 'root' is not one of read, operate, admin/],
      [['tokens', 'create', '--name', 'x', '--expires-in', 'forever'], /expiresIn 'forever'/],
      [['tokens', 'revoke', 'no-such-id'], /no API token with id 'no-such-id'/],
    ] as const) {
      const r = cli([...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr.trim(), pattern);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    }

    const revoked = cli(['tokens', 'revoke', made.operate!.id]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`revoked API token ${made.operate!.id}`));
    assert.equal(await status('GET', '/api/v1/sources', made.operate!.token), 401);
    assert.equal(await status('GET', '/api/v1/sources', readToken), 200, 'the other tokens still work');
    assert.deepEqual(
      (JSON.parse(cli(['--json', 'tokens', 'list']).stdout) as Listed).items.map((t) => t.name),
      ['siem', 'admin-bot'],
      'the refused commands made nothing',
    );
  });
});
