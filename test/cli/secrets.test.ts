// Secrets on the command line: a stored secret follows no changed address, a wrong or lost master key
// is refused in one line (never replaced), `secrets reset` and `sources configure` are the way out,
// proxy passwords are sealed and masked, and the database and key file are private.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { BIN, cliEnv, runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function dataDir(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}

const KEY_A = Buffer.alloc(32, 1).toString('base64');
const KEY_B = Buffer.alloc(32, 2).toString('base64');
/** An environment without TRIBUTARY_MASTER_KEY: the key file in the data dir is used. */
function fileKeyEnv(): NodeJS.ProcessEnv {
  const env = cliEnv();
  delete env.TRIBUTARY_MASTER_KEY;
  return env;
}

function assertOneLine(r: { code: number | null; stderr: string }, code: number, pattern: RegExp): void {
  assert.equal(r.code, code, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got: ${r.stderr}`);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

const TENABLE = ['--set', 'apiUrl=https://sc.example.test', '--set', 'accessKey=access-key-one-1', '--set', 'secretKey=secret-key-one-1'];

describe('a stored secret follows no changed address', () => {
  it('changing apiUrl or proxyUrl needs the keys entered again (exit 2 naming them); with them it is saved', () => {
    const d = ['--data-dir', dataDir()];
    assert.equal(runCli([...d, 'sources', 'add', 'tenable-sc', '--name', 'lab', ...TENABLE]).code, 0);
    assertOneLine(
      runCli([...d, 'sources', 'configure', 'lab', '--set', 'apiUrl=https://attacker.example.test']),
      2,
      /changing apiUrl .*enter accessKey and secretKey again/,
    );
    assertOneLine(
      runCli([...d, 'sources', 'configure', 'lab', '--set', 'apiUrl=https://attacker.example.test', '--set', 'accessKey=access-key-one-1']),
      2,
      /enter secretKey again/,
    );
    assertOneLine(runCli([...d, 'sources', 'configure', 'lab', '--set', 'proxyUrl=http://proxy.attacker.test:3128']), 2, /changing proxyUrl/);
    const shown = JSON.parse(runCli([...d, 'sources', 'show', 'lab']).stdout);
    assert.equal(shown.config.apiUrl, 'https://sc.example.test', 'nothing was changed');
    // Other fields change freely; the same URL spelled with a trailing slash is no change.
    assert.equal(runCli([...d, 'sources', 'configure', 'lab', '--set', 'pageSize=500', '--set', 'apiUrl=https://sc.example.test/']).code, 0);
    const ok = runCli([
      ...d,
      'sources',
      'configure',
      'lab',
      '--set',
      'apiUrl=https://sc2.example.test',
      '--set',
      'accessKey=access-key-two-2',
      '--set',
      'secretKey=secret-key-two-2',
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(JSON.parse(runCli([...d, 'sources', 'show', 'lab']).stdout).config.apiUrl, 'https://sc2.example.test');
  });

  it('ServiceDesk Plus: serverUrl needs the API key again', () => {
    const d = ['--data-dir', dataDir()];
    const add = runCli([
      ...d,
      'sources',
      'add',
      'servicedesk-plus',
      '--name',
      'desk',
      '--set',
      'serverUrl=https://sdp.example.test',
      '--set',
      'apiKey=technician-key-1',
    ]);
    assert.equal(add.code, 0, add.stderr);
    assertOneLine(
      runCli([...d, 'sources', 'configure', 'desk', '--set', 'serverUrl=https://elsewhere.example.test']),
      2,
      /changing serverUrl .*enter apiKey again/,
    );
    assert.equal(
      runCli([...d, 'sources', 'configure', 'desk', '--set', 'serverUrl=https://elsewhere.example.test', '--set', 'apiKey=technician-key-2']).code,
      0,
    );
  });

  it('a proxy password is sealed at rest and masked when shown; sent back masked it is kept, with a new address it is refused', () => {
    const dir = dataDir();
    const d = ['--data-dir', dir];
    assert.equal(
      runCli([...d, 'sources', 'add', 'tenable-sc', '--name', 'lab', ...TENABLE, '--set', 'proxyUrl=http://squid:proxy-pass-77@proxy.example.test:3128']).code,
      0,
    );
    const shown = runCli([...d, 'sources', 'show', 'lab']);
    assert.doesNotMatch(shown.stdout, /proxy-pass-77/);
    assert.equal(JSON.parse(shown.stdout).config.proxyUrl, 'http://squid:********@proxy.example.test:3128');
    const db = new DatabaseSync(join(dir, 'tributary.db'));
    const raw = String((db.prepare('SELECT config FROM sources').get() as { config: string }).config);
    db.close();
    assert.doesNotMatch(raw, /proxy-pass-77/, 'sealed at rest');
    assert.equal(
      runCli([...d, 'sources', 'configure', 'lab', '--set', 'proxyUrl=http://squid:********@proxy.example.test:3128']).code,
      0,
      'sent back as shown: kept',
    );
    assertOneLine(
      runCli([
        ...d,
        'sources',
        'configure',
        'lab',
        '--set',
        'proxyUrl=http://squid:********@proxy.attacker.test:3128',
        '--set',
        'accessKey=a-new-key-1',
        '--set',
        'secretKey=a-new-key-2',
      ]),
      2,
      /proxyUrl: enter the password again/,
    );
  });
});

describe('master key', () => {
  it('a wrong key: serve, sync and check refuse in one line; list and show still work; configure takes new secrets', () => {
    const dir = dataDir();
    const d = ['--data-dir', dir];
    assert.equal(runCli([...d, 'sources', 'add', 'tenable-sc', '--name', 'lab', ...TENABLE], cliEnv({ TRIBUTARY_MASTER_KEY: KEY_A })).code, 0);
    const wrong = cliEnv({ TRIBUTARY_MASTER_KEY: KEY_B });
    const serve = spawnSync(process.execPath, [BIN, ...d, 'serve', '--port', '0'], { encoding: 'utf8', env: wrong, timeout: 30_000 });
    assertOneLine({ code: serve.status, stderr: serve.stderr }, 2, /master key cannot decrypt the stored secrets of source 'lab'/);
    assert.doesNotMatch(serve.stderr, /serving on/);
    assertOneLine(runCli([...d, 'sync', 'lab'], wrong), 2, /cannot decrypt the stored accessKey, secretKey of source 'lab'/);
    assertOneLine(runCli([...d, 'sources', 'check', 'lab'], wrong), 2, /cannot decrypt/);
    assertOneLine(runCli([...d, 'sources', 'configure', 'lab', '--set', 'pageSize=10'], wrong), 2, /enter accessKey, secretKey again/);
    const list = runCli([...d, '--json', 'sources', 'list'], wrong);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(JSON.parse(list.stdout)[0].unreadableSecrets, ['accessKey', 'secretKey']);
    const fixed = runCli([...d, 'sources', 'configure', 'lab', '--set', 'accessKey=access-key-new-1', '--set', 'secretKey=secret-key-new-1'], wrong);
    assert.equal(fixed.code, 0, fixed.stderr);
    const check = runCli([...d, '--json', 'sources', 'show', 'lab'], wrong);
    assert.equal(JSON.parse(check.stdout).unreadableSecrets, undefined, 'the new secrets open with this key');
  });

  it('a lost key file is never replaced while secrets exist; secrets reset drops them after confirmation and makes a new key', () => {
    const dir = dataDir();
    const d = ['--data-dir', dir];
    const env = fileKeyEnv();
    assert.equal(runCli([...d, 'sources', 'add', 'tenable-sc', '--name', 'lab', ...TENABLE], env).code, 0);
    const keyFile = join(dir, 'master.key');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    unlinkSync(keyFile);
    assertOneLine(runCli([...d, 'sources', 'list'], env), 2, /master key file .* is missing .* encrypted secrets/);
    assert.equal(existsSync(keyFile), false, 'no new key was made');
    const serve = spawnSync(process.execPath, [BIN, ...d, 'serve', '--port', '0'], { encoding: 'utf8', env, timeout: 30_000 });
    assertOneLine({ code: serve.status, stderr: serve.stderr }, 2, /is missing/);
    assert.equal(existsSync(keyFile), false);
    assertOneLine(runCli([...d, 'secrets', 'reset'], env), 2, /confirm with --yes/);
    assert.equal(existsSync(keyFile), false, 'nothing happened without confirmation');
    const reset = runCli([...d, 'secrets', 'reset', '--yes'], env);
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(reset.stdout, /dropped .*'lab'.*--set accessKey=/);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    const shown = runCli([...d, '--json', 'sources', 'show', 'lab'], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(JSON.parse(shown.stdout).config.accessKey, undefined);
    assert.equal(runCli([...d, 'sources', 'configure', 'lab', '--set', 'accessKey=access-key-3', '--set', 'secretKey=secret-key-3'], env).code, 0);
    assert.equal(JSON.parse(runCli([...d, '--json', 'sources', 'show', 'lab'], env).stdout).config.accessKey, '********');
  });

  it('creates the database 0600 and warns about a key file others can read', () => {
    const dir = dataDir();
    const d = ['--data-dir', dir];
    const env = fileKeyEnv();
    assert.equal(runCli([...d, 'sources', 'list'], env).code, 0);
    assert.equal(statSync(join(dir, 'tributary.db')).mode & 0o777, 0o600);
    chmodSync(join(dir, 'master.key'), 0o644);
    const r = runCli([...d, 'sources', 'list'], env);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /master key file .* is readable by other users \(mode 0644\)/);
    assert.ok(readFileSync(join(dir, 'master.key'), 'utf8').trim().length > 0);
  });
});
