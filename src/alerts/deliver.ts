// Sending a logged message: POST the body with its HMAC signature, retrying a failure that may pass
// (no answer, a timeout, HTTP 5xx, 408, 429) with exponential backoff, a bounded number of times
// (TRIBUTARY_ALERT_ATTEMPTS, default 5; first wait TRIBUTARY_ALERT_RETRY_MS, default 2000 ms, doubled each
// time up to 60 s; TRIBUTARY_ALERT_TIMEOUT_MS per attempt, default 10 s). Deliveries run in the
// background: a sync or feed import never waits for them; app.close() does (drainAlerts). Each attempt
// is written to the delivery log. Redirects are not followed. The URL and secret are opened only here
// and never logged: errors name the rule, and the box registered both with the log scrubber.
import { SIGNATURE_HEADER } from '../core/alerts.ts';
import { errorMessage } from '../core/errors.ts';
import { scrubSecrets } from '../core/secrets.ts';
import type { DeliveryRecord } from '../store/index.ts';
import type { AlertContext } from './context.ts';
import { signBody } from './payload.ts';

const MAX_DELAY_MS = 60_000;

function setting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const v = env[name]?.trim();
  if (!v) return fallback;
  const n = Number(v);
  return Number.isInteger(n) && n >= min && n <= max ? n : fallback;
}

export function retryPolicy(env: NodeJS.ProcessEnv = process.env) {
  return {
    attempts: setting(env, 'TRIBUTARY_ALERT_ATTEMPTS', 5, 1, 10),
    baseMs: setting(env, 'TRIBUTARY_ALERT_RETRY_MS', 2000, 1, MAX_DELAY_MS),
    timeoutMs: setting(env, 'TRIBUTARY_ALERT_TIMEOUT_MS', 10_000, 100, 120_000),
  };
}

/** The wait before attempt `attempt + 1`: base × 2^(attempt-1), at most 60 s; a 429's Retry-After (seconds) when longer and within that. */
export function backoffMs(baseMs: number, attempt: number, retryAfter: string | null = null): number {
  const exp = Math.min(MAX_DELAY_MS, baseMs * 2 ** (attempt - 1));
  const after = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) * 1000 : 0;
  return Math.min(MAX_DELAY_MS, Math.max(exp, after));
}

interface Outcome {
  ok: boolean;
  retry: boolean;
  httpStatus: number | null;
  error: string | null;
  retryAfter: string | null;
}

/** The first bytes of an answer (what an error quotes); the rest is not read, so a receiver cannot make us hold a large answer. */
async function headOf(res: Response, max = 4096): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.length;
    }
  } catch {
    // An answer cut off is still an answer: its status decides.
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(parts).subarray(0, max).toString('utf8');
}

async function attemptOnce(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<Outcome> {
  try {
    const res = await fetch(url, { method: 'POST', body, headers, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    const text = await headOf(res);
    if (res.status >= 200 && res.status < 300) return { ok: true, retry: false, httpStatus: res.status, error: null, retryAfter: null };
    const snippet = text.trim().replace(/\s+/g, ' ').slice(0, 200);
    const why =
      res.status >= 300 && res.status < 400
        ? `HTTP ${res.status}: the receiver redirects, and alerts follow no redirect (give its final URL)`
        : `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${snippet ? `: ${snippet}` : ''}`;
    const retry = res.status >= 500 || res.status === 408 || res.status === 429;
    return { ok: false, retry, httpStatus: res.status, error: why, retryAfter: res.headers.get('retry-after') };
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    return {
      ok: false,
      retry: true,
      httpStatus: null,
      error: timedOut ? `no answer within ${timeoutMs} ms` : `${errorMessage(err)}${detail}`,
      retryAfter: null,
    };
  }
}

/**
 * Sends one logged delivery until it is delivered, fails for good or runs out of attempts (`maxAttempts`
 * overrides the policy: `alerts test` tries once). Never throws; returns the delivery as logged at the end.
 */
export async function deliver(app: AlertContext, deliveryId: string, opts: { maxAttempts?: number } = {}): Promise<DeliveryRecord | null> {
  const policy = retryPolicy(app.env ?? process.env);
  const max = opts.maxAttempts ?? policy.attempts;
  try {
    let rec = await app.store.alerts.getDelivery(deliveryId);
    if (rec?.status !== 'pending') return rec;
    const body = await app.store.alerts.deliveryBody(deliveryId);
    // The last failure stays in the log once a later attempt delivers ("delivered after 3 attempts; HTTP 500").
    let lastError = rec.lastError;
    for (let attempt = rec.attempts + 1; ; attempt++) {
      const target = await app.store.alerts.target(rec.ruleId);
      if (!target || body === null) {
        await app.store.alerts.recordAttempt(deliveryId, {
          status: 'failed',
          attempts: attempt - 1,
          httpStatus: null,
          error: 'the alert was removed',
          nextAttemptAt: null,
        });
        break;
      }
      const headers = {
        'content-type': 'application/json; charset=utf-8',
        'user-agent': 'tributary-alerts',
        [SIGNATURE_HEADER.toLowerCase()]: signBody(target.secret, body),
        'x-tributary-delivery': deliveryId,
        'x-tributary-event': rec.kind,
      };
      const o = await attemptOnce(target.url, body, headers, policy.timeoutMs);
      const error = o.error === null ? null : scrubSecrets(o.error);
      if (o.ok) {
        await app.store.alerts.recordAttempt(deliveryId, {
          status: 'delivered',
          attempts: attempt,
          httpStatus: o.httpStatus,
          error: lastError,
          nextAttemptAt: null,
        });
        app.log.info({ alert: rec.rule, kind: rec.kind, delivery: deliveryId, attempts: attempt, items: rec.items, total: rec.total }, 'alert delivered');
        break;
      }
      lastError = error;
      const again = o.retry && attempt < max;
      const wait = again ? backoffMs(policy.baseMs, attempt, o.retryAfter) : 0;
      await app.store.alerts.recordAttempt(deliveryId, {
        status: again ? 'pending' : 'failed',
        attempts: attempt,
        httpStatus: o.httpStatus,
        error,
        nextAttemptAt: again ? new Date(Date.now() + wait).toISOString() : null,
      });
      app.log.warn(
        { alert: rec.rule, kind: rec.kind, delivery: deliveryId, attempt, err: error },
        again ? 'alert delivery failed; retrying' : 'alert delivery failed',
      );
      if (!again) break;
      await new Promise((r) => setTimeout(r, wait));
      rec = (await app.store.alerts.getDelivery(deliveryId)) ?? rec;
    }
    return await app.store.alerts.getDelivery(deliveryId);
  } catch (err) {
    app.log.error({ delivery: deliveryId, err: scrubSecrets(errorMessage(err)) }, 'alert delivery could not be recorded');
    return null;
  }
}
