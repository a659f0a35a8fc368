// The secret box, the master key file, masking and the log scrubber.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { ConnectorRegistry } from '../../src/connectors/registry.ts';
import { createLogger } from '../../src/core/log.ts';
import { loadMasterKey, MASK, maskConfig, registerSecret, SecretBox, scrubSecrets } from '../../src/core/secrets.ts';
import { tempDir } from '../helpers/databases.ts';
import { fixtureConnector, newControl } from '../helpers/fixture-connector.ts';

test('AES-256-GCM box round-trips, uses a fresh IV, and detects tampering and wrong keys', () => {
  const box = new SecretBox(Buffer.alloc(32, 1));
  const a = box.encrypt('s3cr3t-value');
  const b = box.encrypt('s3cr3t-value');
  assert.notEqual(a, b);
  assert.ok(SecretBox.isSealed(a));
  assert.doesNotMatch(a, /s3cr3t/);
  assert.equal(box.decrypt(a), 's3cr3t-value');
  const raw = Buffer.from(a.slice('enc:v1:'.length), 'base64');
  raw[raw.length - 1] ^= 1;
  assert.throws(() => box.decrypt('enc:v1:' + raw.toString('base64')), /cannot decrypt/);
  assert.throws(() => new SecretBox(Buffer.alloc(32, 2)).decrypt(a), /master key differs/);
  assert.throws(() => new SecretBox(Buffer.alloc(16)), /32 bytes/);
});

test('the master key comes from the environment, else from a 0600 key file made once', () => {
  const dir = tempDir();
  const file = join(dir, 'sub', 'master.key');
  const envKey = Buffer.alloc(32, 9);
  assert.deepEqual(loadMasterKey(file, { TRIBUTARY_MASTER_KEY: envKey.toString('base64') }), envKey);
  assert.equal(existsSync(file), false, 'no key file when the env gives the key');
  assert.throws(() => loadMasterKey(file, { TRIBUTARY_MASTER_KEY: 'c2hvcnQ=' }), /32 bytes/);
  const k1 = loadMasterKey(file, {});
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(loadMasterKey(file, {}), k1);
  assert.equal(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').length, 32);
});

test('masking replaces set secrets only', () => {
  assert.deepEqual(maskConfig({ a: 'x', secretKey: 'abc', apiKey: '', other: null }, ['secretKey', 'apiKey', 'other']), {
    a: 'x',
    secretKey: MASK,
    apiKey: '',
    other: null,
  });
});

/** A debug logger whose lines are kept; `written` gives them all once the logger has flushed. */
function capturedLog() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _e, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const written = async () => {
    await new Promise((r) => setTimeout(r, 20));
    return lines.join('');
  };
  return { log: createLogger({ level: 'debug', destination: sink }), written };
}

test('log lines never carry a registered secret, whatever path put it there', async () => {
  registerSecret('top-secret-api-key-99');
  // The key names masked are the registered connectors' declared secret fields, not a list in core.
  new ConnectorRegistry([fixtureConnector(newControl())]);
  const { log, written } = capturedLog();
  log.info({ config: { token: 'other-secret-zz', url: 'https://kept.example' } }, 'configured');
  log.info({ deeper: { nested: { token: 'deep-secret-yy' } } }, 'nested');
  log.error({ err: 'upstream said top-secret-api-key-99 is wrong' }, 'failed with top-secret-api-key-99');
  const all = await written();
  assert.match(all, /configured/);
  assert.doesNotMatch(all, /top-secret-api-key-99/);
  assert.doesNotMatch(all, /other-secret-zz/, 'redacted by key name');
  assert.doesNotMatch(all, /deep-secret-yy/, 'redacted by key name at any depth');
  assert.match(all, /kept\.example/, 'a field not declared secret is kept');
  assert.equal(scrubSecrets('x top-secret-api-key-99 y'), `x ${MASK} y`);
});

test('a secret holding a quote or a backslash is scrubbed from log lines too', async () => {
  const secret = 'pa"ss\\word-with-escapes';
  registerSecret(secret);
  const { log, written } = capturedLog();
  log.warn({ detail: `upstream echoed ${secret}`, nested: { list: [secret] } }, `message with ${secret}`);
  log.error({ err: new Error(`failed: ${secret}`) }, 'error object');
  const all = await written();
  assert.match(all, /message with/);
  assert.ok(!all.includes(JSON.stringify(secret).slice(1, -1)), 'the JSON-escaped form is not in the log');
  assert.ok(!all.includes('ss\\\\word'), 'no part of the escaped secret');
  assert.ok(!all.includes(secret));
});
