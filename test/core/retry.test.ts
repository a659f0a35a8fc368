// The one retry policy: what is retried, how long it waits, and the budget it states.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UpstreamError } from '../../src/core/errors.ts';
import { backoffMs, retryBudget, retryPolicy, withRetry } from '../../src/core/retry.ts';

const transient = (retryAfter: number | null = null) => new UpstreamError('busy', { transient: true, status: 503, retryAfter });

test('the default policy and the budget it states', () => {
  const p = retryPolicy({});
  assert.deepEqual(p, { callAttempts: 6, streamAttempts: 4, baseMs: 500, maxMs: 30_000, maxRetryAfterMs: 300_000 });
  const b = retryBudget(p);
  assert.equal(b.triesPerPage, 24);
  assert.equal(b.callWaitMs, 500 + 1000 + 2000 + 4000 + 8000);
  assert.equal(b.pageWaitMs, 4 * 15_500 + (1000 + 2000 + 4000));
  assert.equal(b.pageWaitWithRetryAfterMs, (4 * 5 + 3) * 300_000);
  assert.deepEqual(retryPolicy({ TRIBUTARY_RETRY_ATTEMPTS: '2', TRIBUTARY_STREAM_ATTEMPTS: '1', TRIBUTARY_RETRY_BASE_MS: '5' }), {
    ...p,
    callAttempts: 2,
    streamAttempts: 1,
    baseMs: 5,
  });
});

test('backoff: only transient failures, within the ceiling, Retry-After honoured up to its cap', () => {
  const p = retryPolicy({});
  assert.equal(backoffMs(p, 1, new UpstreamError('refused', { status: 403 })), null);
  assert.equal(backoffMs(p, 1, new Error('bug')), null);
  for (let i = 0; i < 50; i++) {
    const w = backoffMs(p, 3, transient());
    assert.ok(w !== null && w >= 0 && w <= 2000, String(w));
    assert.ok((backoffMs(p, 20, transient()) ?? Infinity) <= 30_000);
  }
  assert.ok((backoffMs(p, 1, transient(120)) ?? 0) >= 120_000, 'waits what the upstream asked');
  assert.equal(backoffMs(p, 1, transient(301)), null, 'a Retry-After above the cap fails instead of stalling');
});

test('withRetry tries a transient failure up to the attempts, a permanent one once', async () => {
  let calls = 0;
  await assert.rejects(
    withRetry(
      async () => {
        calls++;
        throw transient();
      },
      { attempts: 3, baseMs: 1 },
    ),
    /busy/,
  );
  assert.equal(calls, 3);
  calls = 0;
  await assert.rejects(
    withRetry(
      async () => {
        calls++;
        throw new UpstreamError('refused', { status: 401 });
      },
      { attempts: 3, baseMs: 1 },
    ),
    /refused/,
  );
  assert.equal(calls, 1);
  calls = 0;
  const v = await withRetry(
    async (attempt) => {
      calls++;
      if (attempt < 2) throw transient(0);
      return 'ok';
    },
    { attempts: 3, baseMs: 1 },
  );
  assert.equal(v, 'ok');
  assert.equal(calls, 2);
});
