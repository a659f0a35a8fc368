// The one retry policy: which failures are retried, how long to wait, and the total budget, stated
// once (retryPolicy below). Capped exponential backoff with full jitter, honouring an upstream's Retry-After.
import { setTimeout as sleep } from 'node:timers/promises';
import { UpstreamError } from './errors.ts';
import type { Logger } from './log.ts';

/**
 * The retry budget. Only transient upstream failures are retried (UpstreamError.transient: timeouts,
 * resets, HTTP 429 and 5xx, and what a connector's client classifies as transient); anything else
 * fails at once. Two levels, one rule:
 * - a connector's client tries one call `callAttempts` times in all (withRetry);
 * - when a call still fails, the runner restarts the stream from its last stored page, `streamAttempts`
 *   times in all (each restart's calls get their own `callAttempts`).
 * So one page is asked for at most callAttempts × streamAttempts times (6 × 4 = 24 by default). Retry n
 * waits a random time up to min(maxMs, baseMs · 2^(n-1)), or the upstream's Retry-After when longer;
 * a Retry-After above maxRetryAfterMs fails the call (and the run) rather than stall it for hours.
 * retryBudget() adds up the longest waits this allows.
 */
export interface RetryPolicy {
  /** Tries of one upstream call in all, including the first (TRIBUTARY_RETRY_ATTEMPTS). */
  callAttempts: number;
  /** Runs of one stream in all after transient failures that outlasted its calls' tries (TRIBUTARY_STREAM_ATTEMPTS). */
  streamAttempts: number;
  /** First backoff ceiling (TRIBUTARY_RETRY_BASE_MS); doubles per retry. */
  baseMs: number;
  /** Largest backoff ceiling. */
  maxMs: number;
  /** Longest Retry-After honoured. */
  maxRetryAfterMs: number;
}

const envNumber = (env: NodeJS.ProcessEnv, name: string, dflt: number): number => {
  const raw = env[name];
  const v = Number(raw);
  return raw !== undefined && raw !== '' && Number.isFinite(v) && v >= 0 ? v : dflt;
};

/** The policy in force (read each time: tests and operators set the environment). */
export function retryPolicy(env: NodeJS.ProcessEnv = process.env): RetryPolicy {
  return {
    callAttempts: envNumber(env, 'TRIBUTARY_RETRY_ATTEMPTS', 6),
    streamAttempts: envNumber(env, 'TRIBUTARY_STREAM_ATTEMPTS', 4),
    baseMs: envNumber(env, 'TRIBUTARY_RETRY_BASE_MS', 500),
    maxMs: 30_000,
    maxRetryAfterMs: 300_000,
  };
}

/** The longest a policy can make one page wait in all, backoff only and with Retry-After at its cap. */
export function retryBudget(p: RetryPolicy = retryPolicy()): {
  triesPerPage: number;
  callWaitMs: number;
  pageWaitMs: number;
  pageWaitWithRetryAfterMs: number;
} {
  let callWaitMs = 0;
  for (let n = 1; n < p.callAttempts; n++) callWaitMs += Math.min(p.maxMs, p.baseMs * 2 ** (n - 1));
  let restartWaitMs = 0;
  for (let n = 1; n < p.streamAttempts; n++) restartWaitMs += Math.min(p.maxMs, p.baseMs * 2 ** n);
  const waits = p.streamAttempts * (p.callAttempts - 1) + (p.streamAttempts - 1);
  return {
    triesPerPage: p.callAttempts * p.streamAttempts,
    callWaitMs,
    pageWaitMs: p.streamAttempts * callWaitMs + restartWaitMs,
    pageWaitWithRetryAfterMs: waits * Math.max(p.maxMs, p.maxRetryAfterMs),
  };
}

/**
 * How long to wait before retry `retry` (1 = the first retry) after `err`, or null when it is not to
 * be retried: not transient, or a Retry-After longer than the policy honours.
 */
export function backoffMs(p: Pick<RetryPolicy, 'baseMs' | 'maxMs' | 'maxRetryAfterMs'>, retry: number, err: unknown): number | null {
  if (!(err instanceof UpstreamError) || !err.transient) return null;
  let waitMs = Math.random() * Math.min(p.maxMs, p.baseMs * 2 ** (retry - 1));
  if (err.retryAfter !== null) {
    const asked = err.retryAfter * 1000;
    if (asked > p.maxRetryAfterMs) return null;
    waitMs = Math.max(waitMs, asked);
  }
  return waitMs;
}

/** Per-client overrides of the policy (a credential check tries twice, quickly) and what to log. */
export interface RetryOptions {
  /** Attempts in all, including the first (default: the policy's callAttempts). */
  attempts?: number;
  baseMs?: number;
  maxMs?: number;
  maxRetryAfterMs?: number;
  signal?: AbortSignal;
  log?: Logger;
  what?: string;
}

/** Runs one upstream call under the policy: transient failures are tried again after a backoff. */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const policy = retryPolicy();
  const p = { baseMs: opts.baseMs ?? policy.baseMs, maxMs: opts.maxMs ?? policy.maxMs, maxRetryAfterMs: opts.maxRetryAfterMs ?? policy.maxRetryAfterMs };
  const attempts = opts.attempts ?? policy.callAttempts;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const waitMs = attempt >= attempts || opts.signal?.aborted ? null : backoffMs(p, attempt, err);
      if (waitMs === null) throw err;
      const e = err as UpstreamError;
      opts.log?.warn({ attempt, waitMs: Math.round(waitMs), status: e.status, err: e.message }, `retrying ${opts.what ?? 'upstream call'}`);
      await sleep(waitMs, undefined, opts.signal ? { signal: opts.signal } : undefined);
    }
  }
}

/** An upstream failure the policy retries (UpstreamError.transient is true). */
export type TransientError = UpstreamError & { readonly transient: true };

/**
 * What a client's response classifier makes of one answer: its value, a failure worth another try
 * (transient: busy, rate-limited, a server error), or one that no retry mends (permanent: refused
 * credentials, a missing permission, an answer that is not the API).
 */
export type Verdict<T> = { kind: 'success'; value: T } | { kind: 'transient'; error: TransientError } | { kind: 'permanent'; error: Error };

/** A client's classifier: one upstream answer → success, transient or permanent. */
export type ResponseClassifier<R, T> = (response: R) => Verdict<T>;

/** The verdict of a failure: transient when it is an UpstreamError marked so, else permanent. */
export function failureVerdict(error: Error): Verdict<never> {
  return error instanceof UpstreamError && error.transient ? { kind: 'transient', error: error as TransientError } : { kind: 'permanent', error };
}

/**
 * One upstream call under the policy, judged by the client's classifier: `attempt` sends once and
 * classifies the answer; a transient verdict (or a transient transport failure thrown by the send) is
 * tried again within the budget, a permanent one fails at once, a success returns its value.
 */
export async function callWithRetry<T>(attempt: (n: number) => Promise<Verdict<T>>, opts: RetryOptions = {}): Promise<T> {
  return withRetry(async (n) => {
    const v = await attempt(n);
    if (v.kind === 'success') return v.value;
    throw v.error;
  }, opts);
}

/** Parses a Retry-After header: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, (t - now) / 1000);
}
