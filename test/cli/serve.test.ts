// `tributary serve` as a user starts it: the admin password is printed once and kept 0600, /healthz is
// open, the API is closed without credentials, login works, SIGTERM stops it cleanly.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BIN, cliEnv, runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/databases.ts';

const dataDir = tempDir();
after(() => rmSync(dataDir, { recursive: true, force: true }));

function startServe(): Promise<{ url: string; stdout: () => string; stop: () => Promise<number | string | null> }> {
  const env = cliEnv();
  delete env.TRIBUTARY_ADMIN_PASSWORD;
  const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 20_000);
    child.stderr.on('data', (d) => {
      err += d;
      const m = /serving on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          stdout: () => out,
          stop: () =>
            new Promise((res) => {
              child.once('exit', (code, signal) => res(code ?? signal));
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

test('serve bootstraps admin once, guards the API, and stops on SIGTERM', async () => {
  const s = await startServe();
  const line = s
    .stdout()
    .split('\n')
    .find((l) => /password/i.test(l));
  assert.ok(line, 'the generated password is printed');
  const file = join(dataDir, 'admin-password');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const password = readFileSync(file, 'utf8').trim();
  assert.ok(line.includes(password));

  const health = await fetch(`${s.url}/healthz`);
  assert.equal(health.status, 200);
  assert.equal(((await health.json()) as { ok: boolean }).ok, true);
  assert.equal((await fetch(`${s.url}/api/v1/sources`)).status, 401);
  const bad = await fetch(`${s.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'nope' }),
  });
  assert.equal(bad.status, 401);
  const login = await fetch(`${s.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  assert.equal(login.status, 200);
  const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
  const list = await fetch(`${s.url}/api/v1/sources`, { headers: { cookie } });
  assert.equal(list.status, 200);
  assert.equal(await s.stop(), 0);

  const again = await startServe();
  assert.doesNotMatch(again.stdout(), /password/i, 'printed only on the first start');
  assert.equal(await again.stop(), 0);
});

test('sources file-drop gives the address the running server listens on, else a placeholder and how to set it', async () => {
  const env = cliEnv();
  delete env.TRIBUTARY_PUBLIC_URL;
  const guide = () => {
    const r = runCli(['--data-dir', dataDir, '--json', 'sources', 'file-drop', 'drop'], env);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as { uploadUrl: string; notes: string[]; commands: { command: string }[] };
  };
  assert.equal(runCli(['--data-dir', dataDir, 'sources', 'add', 'tenable-sc', '--name', 'drop', '--set', 'inputMode=file'], env).code, 0);
  const s = await startServe();
  try {
    const g = guide();
    assert.equal(g.uploadUrl, `${s.url}/api/v1/upload/vuln-scanner/`, 'the port serve really listens on (here a random one)');
    assert.ok(g.commands.some((c) => c.command.includes(`${s.url}/api/v1/upload/`)));
    assert.ok(!g.notes.some((n) => /TRIBUTARY_PUBLIC_URL/.test(n)));
    const human = runCli(['--data-dir', dataDir, 'sources', 'file-drop', 'drop'], env);
    assert.ok(human.stdout.includes(`${s.url}/api/v1/upload/vuln-scanner/`), human.stdout);
  } finally {
    assert.equal(await s.stop(), 0);
  }
  const stopped = guide();
  assert.doesNotMatch(stopped.uploadUrl, /:8080/);
  assert.match(stopped.uploadUrl, /^http:\/\/TRIBUTARY-HOST:PORT\//);
  assert.ok(
    stopped.notes.some((n) => /No running `tributary serve`.*TRIBUTARY_PUBLIC_URL/.test(n)),
    stopped.notes.join('\n'),
  );
  const pub = runCli(['--data-dir', dataDir, '--json', 'sources', 'file-drop', 'drop'], { ...env, TRIBUTARY_PUBLIC_URL: 'https://tributary.example/' });
  assert.equal((JSON.parse(pub.stdout) as { uploadUrl: string }).uploadUrl, 'https://tributary.example/api/v1/upload/vuln-scanner/');
});

test('a busy port exits 2 with one line naming the port and how to pick another', async () => {
  const { createServer } = await import('node:net');
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  try {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'serve', '--port', String(port)], {
        env: cliEnv(),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      child.once('exit', (code) => resolve({ code, stderr }));
    });
    assert.equal(r.code, 2, r.stderr);
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('tributary: '));
    assert.deepEqual(lines.length, 1, r.stderr);
    assert.match(lines[0]!, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use: pick another with --port N`));
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    blocker.close();
  }
});
