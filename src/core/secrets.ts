// Secret handling in one place: the AES-256-GCM box that encrypts secret config values at rest,
// the master-key source (TRIBUTARY_MASTER_KEY or a 0600 key file, made only while nothing is sealed),
// the mask every presenter uses, and the scrubber that keeps known secret values out of logs and errors.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { InputError } from './errors.ts';

export const MASK = '********';
const PREFIX = 'enc:v1:';

export class SecretBox {
  #key: Buffer;
  constructor(key: Buffer) {
    if (key.length !== 32) throw new InputError('the master key must be 32 bytes (base64-encoded in TRIBUTARY_MASTER_KEY)', 'TRIBUTARY_MASTER_KEY');
    this.#key = key;
  }

  /** Replaces the key before anything was sealed with it (another process wrote the key file first). */
  replaceKey(key: Buffer): void {
    if (key.length !== 32) throw new InputError('the master key must be 32 bytes', 'TRIBUTARY_MASTER_KEY');
    this.#key = key;
  }

  /** Whether this key opens `sealed`. */
  opens(sealed: string): boolean {
    try {
      this.decrypt(sealed);
      return true;
    } catch {
      return false;
    }
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  decrypt(sealed: string): string {
    if (!SecretBox.isSealed(sealed)) throw new Error('value is not an encrypted secret');
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    try {
      const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      registerSecret(plain);
      return plain;
    } catch {
      throw new InputError('cannot decrypt a stored secret: the master key differs from the one it was encrypted with', 'TRIBUTARY_MASTER_KEY');
    }
  }

  static isSealed(v: unknown): v is string {
    return typeof v === 'string' && v.startsWith(PREFIX);
  }
}

/** Where the master key came from, and what is wrong with how it is kept. */
export interface MasterKey {
  key: Buffer;
  source: 'env' | 'file';
  /** A key file other users can read, or null. */
  warning: string | null;
}

/**
 * The existing master key: TRIBUTARY_MASTER_KEY (base64 of 32 bytes) or `<dataDir>/master.key`; null
 * when neither exists. Never creates one: whether that is safe depends on the database (context.ts).
 */
export function readMasterKey(keyFile: string, env: NodeJS.ProcessEnv = process.env): MasterKey | null {
  const fromEnv = env.TRIBUTARY_MASTER_KEY;
  if (fromEnv) {
    const key = Buffer.from(fromEnv, 'base64');
    if (key.length !== 32) throw new InputError('TRIBUTARY_MASTER_KEY must be 32 bytes, base64-encoded', 'TRIBUTARY_MASTER_KEY');
    return { key, source: 'env', warning: null };
  }
  if (!existsSync(keyFile)) return null;
  const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new InputError(`the key file ${keyFile} does not hold a 32-byte base64 key`, 'TRIBUTARY_MASTER_KEY');
  const mode = statSync(keyFile).mode & 0o777;
  const warning = mode & 0o077 ? `the master key file ${keyFile} is readable by other users (mode 0${mode.toString(8)}): run chmod 600 ${keyFile}` : null;
  return { key, source: 'file', warning };
}

/** Writes a new key file (0600). Returns the key in the file: another process may have written it first. */
export function writeMasterKey(keyFile: string, key: Buffer): Buffer {
  mkdirSync(dirname(keyFile), { recursive: true });
  try {
    writeFileSync(keyFile, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readMasterKey(keyFile, {})!.key;
  }
  chmodSync(keyFile, 0o600);
  return key;
}

/** The master key, creating `<dataDir>/master.key` (0600) when there is none. Tests and tools; the app uses context.ts. */
export function loadMasterKey(keyFile: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  return readMasterKey(keyFile, env)?.key ?? writeMasterKey(keyFile, randomBytes(32));
}

// Values known to be secret in this process. Short values are not registered: scrubbing "1" or "ab"
// out of every log line would mangle output without protecting anything.
const known = new Set<string>();
const MIN_SCRUB_LENGTH = 6;

export function registerSecret(value: unknown): void {
  if (typeof value !== 'string') return;
  if (value.length >= MIN_SCRUB_LENGTH) known.add(value);
  // A URL with a password (a proxy): the password alone is a secret too.
  const password = urlPassword(value);
  if (password && password.length >= MIN_SCRUB_LENGTH) known.add(password);
}

/** The decoded password of a URL with `user:password@`, or null. */
export function urlPassword(value: string): string | null {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(value)) return null;
  try {
    const u = new URL(value);
    return u.password ? decodeURIComponent(u.password) : null;
  } catch {
    return null;
  }
}

/** A URL with its password replaced by the mask (`http://user:********@proxy:3128`); other values as they are. */
export function maskUrlPassword(value: unknown): unknown {
  if (typeof value !== 'string' || urlPassword(value) === null) return value;
  const u = new URL(value);
  u.password = MASK;
  return u.toString().replace(/\/$/, value.endsWith('/') ? '/' : '');
}

/** Replaces every registered secret value in `text` with the mask. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const s of known) {
    if (out.includes(s)) out = out.split(s).join(MASK);
  }
  return out;
}

/**
 * Replaces every registered secret in the JSON text of a value: both the value as is and its
 * JSON-escaped form (a secret holding `"` or `\` is written as `\"` or `\\` and would not match).
 */
export function scrubSerialized(text: string): string {
  let out = scrubSecrets(text);
  for (const s of known) {
    const escaped = JSON.stringify(s).slice(1, -1);
    if (escaped !== s && out.includes(escaped)) out = out.split(escaped).join(MASK);
  }
  return out;
}

// Keys whose values are secret wherever they appear in a logged object: the connectors' declared
// secret fields (registered by the connector registry) and the generic ones.
const secretFieldNames = new Set<string>(['password']);

/** Masks values under these keys in every logged object (a connector's secret field names). */
export function registerSecretFields(names: Iterable<string>): void {
  for (const n of names) secretFieldNames.add(n);
}

/**
 * A copy of `value` with registered secrets masked in every string it holds (plain objects and
 * arrays), and the value under any secret field name masked whatever it is.
 */
export function scrubDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, depth + 1));
  if (value instanceof Error) {
    const copy: Record<string, unknown> = { type: value.name, message: scrubSecrets(value.message) };
    if (value.stack) copy.stack = scrubSecrets(value.stack);
    return copy;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = secretFieldNames.has(k) && v !== undefined && v !== null && v !== '' ? MASK : scrubDeep(v, depth + 1);
  return out;
}

/** A copy of `config` with every secret key that is set replaced by the mask, and URL passwords masked. */
export function maskConfig(config: Record<string, unknown>, secretKeys: string[], urlKeys: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const k of secretKeys) {
    if (out[k] !== undefined && out[k] !== null && out[k] !== '') out[k] = MASK;
  }
  for (const k of urlKeys) out[k] = maskUrlPassword(out[k]);
  return out;
}
