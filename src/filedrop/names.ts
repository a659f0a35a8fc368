// Names in the file drop: bucket names (S3 rules, so the same name works on a local folder and on
// object storage), object keys, the sanitizing of uploaded file names, and `--expires` durations.
import { BUCKET_NAME_RE } from '../core/config.ts';
import { InputError } from '../core/errors.ts';

export function validateBucketName(name: string): string {
  if (!BUCKET_NAME_RE.test(name) || name.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(name)) {
    throw new InputError(
      `bucket '${name}' is not a valid bucket name: use 3-63 lowercase letters, digits, dots or hyphens, starting and ending with a letter or digit`,
      'bucket',
    );
  }
  return name;
}

/**
 * The bucket a source reads from: its `bucket` key, else the default its connector declares
 * (`files.defaultBucket`, looked up by the caller), else its name.
 */
export function bucketOf(source: { name: string; config: Record<string, unknown> }, defaultBucket?: string): string {
  const configured = source.config.bucket;
  if (typeof configured === 'string' && configured.trim() !== '') return validateBucketName(configured.trim());
  if (defaultBucket) return defaultBucket;
  const derived = source.name
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '')
    .slice(0, 63);
  return validateBucketName(derived.length >= 3 ? derived : `${derived}-files`.replace(/^-/, ''));
}

const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_NAME_BYTES = 255;

/**
 * Turns a user-supplied file name into a safe object key: a plain basename. Refuses what could
 * address something outside the bucket (`..`, absolute paths, NUL and control characters) and
 * hidden names; keeps letters, digits and `._-+=@,()` and spaces, replacing anything else by `_`.
 */
export function sanitizeFileName(input: string): string {
  if (typeof input !== 'string' || input.trim() === '') throw new InputError('a file name is required', 'file');
  if (CONTROL_RE.test(input)) throw new InputError('file name contains NUL or control characters', 'file');
  if (/^[/\\]/.test(input) || /^[A-Za-z]:/.test(input)) throw new InputError(`file name '${input}' is an absolute path; give a plain file name`, 'file');
  const segments = input.split(/[/\\]/);
  if (segments.some((s) => s === '..')) throw new InputError(`file name '${input}' contains '..'; give a plain file name`, 'file');
  const base = (segments[segments.length - 1] ?? '').normalize('NFC').trim();
  if (base === '' || base === '.') throw new InputError(`file name '${input}' has no file part`, 'file');
  if (base.startsWith('.')) throw new InputError(`file name '${base}' is hidden (starts with '.'); rename it`, 'file');
  const safe = base.replace(/[^\p{L}\p{N}._\-+=@,() ]/gu, '_');
  if (Buffer.byteLength(safe) > MAX_NAME_BYTES) throw new InputError(`file name '${base.slice(0, 40)}…' is longer than ${MAX_NAME_BYTES} bytes`, 'file');
  return safe;
}

/**
 * Checks an object key read back from a bucket or named by a caller (open, delete): relative, no
 * empty, `.` or `..` segments, no backslashes, NUL or control characters.
 */
export function validateKey(key: string): string {
  if (typeof key !== 'string' || key === '') throw new InputError('an object key is required', 'file');
  if (CONTROL_RE.test(key) || key.includes('\\')) throw new InputError('object key contains control characters or backslashes', 'file');
  if (key.startsWith('/')) throw new InputError(`object key '${key}' is absolute`, 'file');
  if (key.split('/').some((s) => s === '' || s === '.' || s === '..')) throw new InputError(`object key '${key}' has an empty, '.' or '..' segment`, 'file');
  if (Buffer.byteLength(key) > 1024) throw new InputError('object key is longer than 1024 bytes', 'file');
  return key;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
export const MAX_EXPIRES_SECONDS = 7 * 86400;

/** `90s`, `30m`, `1h`, `7d` or plain seconds → seconds; between one minute and seven days. */
export function parseExpires(value: string | number | undefined, fallback = 3600): number {
  if (value === undefined || value === '') return fallback;
  let seconds: number;
  if (typeof value === 'number') seconds = value;
  else {
    const m = /^\s*(\d+)\s*([smhd]?)\s*$/i.exec(value);
    if (!m) throw new InputError(`expires '${value}' is not a duration such as 30m, 1h or 7d`, 'expires');
    seconds = Number(m[1]) * UNITS[(m[2] || 's').toLowerCase()];
  }
  if (!Number.isInteger(seconds) || seconds < 60 || seconds > MAX_EXPIRES_SECONDS) {
    throw new InputError('expires must be between 1m and 7d (presigned URLs cannot live longer)', 'expires');
  }
  return seconds;
}
