// Capped exponential backoff with full jitter, honouring an upstream's Retry-After.
import { setTimeout as sleep } from 'node:timers/promises';
import { UpstreamError } from './errors.ts';
import type { Logger } from './log.ts';

export interface RetryOptions {
  /** Attempts in all, including the first. */
  attempts?: number;
  baseMs?: number;
  maxMs?: number;
  /** Longest Retry-After we honour; a longer one fails the call rather than stall a run for hours. */
  maxRetryAfterMs?: number;
  signal?: AbortSignal;
  log?: Logger;
  what?: string;
}

const envNumber = (name: string, dflt: number): number => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v >= 0 ? v : dflt;
};

export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? envNumber('TRIBUTARY_RETRY_ATTEMPTS', 6);
  const baseMs = opts.baseMs ?? envNumber('TRIBUTARY_RETRY_BASE_MS', 500);
  const maxMs = opts.maxMs ?? 30_000;
  const maxRetryAfterMs = opts.maxRetryAfterMs ?? 300_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (!(err instanceof UpstreamError) || !err.transient || attempt >= attempts || opts.signal?.aborted) throw err;
      let waitMs = Math.random() * Math.min(maxMs, baseMs * 2 ** (attempt - 1));
      if (err.retryAfter !== null) {
        const asked = err.retryAfter * 1000;
        if (asked > maxRetryAfterMs) throw err;
        waitMs = Math.max(waitMs, asked);
      }
      opts.log?.warn({ attempt, waitMs: Math.round(waitMs), status: err.status, err: err.message }, `retrying ${opts.what ?? 'upstream call'}`);
      await sleep(waitMs, undefined, opts.signal ? { signal: opts.signal } : undefined);
    }
  }
}

/** Parses a Retry-After header: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, (t - now) / 1000);
}
