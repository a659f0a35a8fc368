// Helpers for connector config schemas: values arrive as JSON from the API and as strings from
// `--set key=value`, so booleans and numbers accept both forms.
import { z } from 'zod';
import type { ConfigFieldInfo } from './connector.ts';
import { InputError } from './errors.ts';

export const boolish = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  const s = v.trim().toLowerCase();
  if (['true', 'yes', 'on', '1', 'enabled'].includes(s)) return true;
  if (['false', 'no', 'off', '0', 'disabled', ''].includes(s)) return false;
  return v;
}, z.boolean());

export const intish = (min: number, max: number) =>
  z.preprocess((v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v), z.number().int().min(min).max(max));

/** An optional string where "" means unset. */
export const optionalText = z.preprocess((v) => (v === '' || v === null ? undefined : v), z.string().optional());

export function httpUrl(field: string) {
  return z
    .string()
    .refine(
      (s) => {
        try {
          const u = new URL(s);
          return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
        } catch {
          return false;
        }
      },
      { message: `${field} must be an http:// or https:// URL` },
    )
    .refine((s) => !/[?#]/.test(s), {
      // The connector appends its own API paths: a query or fragment would let the URL choose what is
      // actually requested (and what the check reads back).
      message: `${field} must not contain a query (?…) or a fragment (#…): enter the server's address only`,
    });
}

/** A bucket name by S3's rules, so the same name works on a local folder and on object storage. */
export const BUCKET_NAME_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** A connector's `bucket` setting: a bucket name, `defaultBucket` when unset. */
export const bucketName = (defaultBucket: string) =>
  z.string().regex(BUCKET_NAME_RE, 'bucket must be 3-63 lowercase letters, digits, dots or hyphens').default(defaultBucket);

/** Turns a zod error into an InputError naming the first offending field. */
export function configError(err: z.ZodError, prefix = ''): InputError {
  const issue = err.issues[0];
  if (!issue) return new InputError('invalid configuration');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '?';
    return new InputError(`${prefix}unknown configuration key '${key}'`, key);
  }
  const field = issue.path.map(String).join('.') || null;
  const msg = issue.message;
  if (field && issue.code === 'invalid_type' && /received undefined/.test(msg)) {
    return new InputError(`${prefix}${field} is required`, field);
  }
  return new InputError(field ? `${prefix}${field}: ${msg}` : `${prefix}${msg}`, field);
}

/** Parses `key=value` pairs from `--set`. */
export function parseSetPairs(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const i = p.indexOf('=');
    if (i <= 0) throw new InputError(`--set expects key=value, got '${p}'`, p);
    out[p.slice(0, i).trim()] = p.slice(i + 1);
  }
  return out;
}

/** `showWhen` of the form fields that matter in API mode only. */
export const API_MODE_ONLY: Record<string, string[]> = { inputMode: ['api'] };

/** The Input Mode field of a connector with an API mode (recommended) and a file-import mode. */
export function inputModeField(fileLabel: string, help: string): ConfigFieldInfo {
  return {
    label: 'Input Mode',
    input: 'select',
    options: [
      { value: 'api', label: 'API' },
      { value: 'file', label: fileLabel },
    ],
    help,
  };
}
