// Each client's response classifier (success / transient / permanent) and the one retry policy that acts
// on its verdicts: transient answers are tried again, permanent ones fail at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyAnswer as sdpAnswer, type SdpApiError } from '../../src/connectors/servicedesk-plus/client.ts';
import { classifyAnswer as scAnswer } from '../../src/connectors/tenable-sc/client.ts';
import { UpstreamError } from '../../src/core/errors.ts';
import type { HttpResponse } from '../../src/core/http.ts';
import { callWithRetry, type Verdict } from '../../src/core/retry.ts';

const answer = (status: number, body: unknown, contentType = 'application/json'): HttpResponse => ({
  status,
  headers: { 'content-type': contentType },
  text: typeof body === 'string' ? body : JSON.stringify(body),
});
const envelope = (over: Record<string, unknown> = {}) => ({
  type: 'regular',
  response: { ok: 1 },
  error_code: 0,
  error_msg: '',
  warnings: [],
  timestamp: 5,
  ...over,
});

test('Tenable.sc: an envelope is a success; a busy console is transient; refused keys and non-API answers are permanent', () => {
  const sc = scAnswer('GET /rest/system');
  const ok = sc(answer(200, envelope()));
  assert.equal(ok.kind, 'success');
  assert.deepEqual(ok.kind === 'success' && ok.value.response, { ok: 1 });
  assert.equal(sc(answer(503, envelope({ error_code: 1, error_msg: 'Service Unavailable' }))).kind, 'transient');
  assert.equal(sc(answer(200, envelope({ error_code: 1, error_msg: 'database is locked' }))).kind, 'transient');
  assert.equal(sc(answer(429, 'slow down', 'text/plain')).kind, 'transient');
  const refused = sc(answer(403, envelope({ error_code: 0, error_msg: 'Invalid login credentials' })));
  assert.equal(refused.kind, 'permanent');
  assert.match(refused.kind === 'permanent' ? refused.error.message : '', /rejected the API keys/);
  assert.equal(sc(answer(200, '<html><title>Login</title></html>', 'text/html')).kind, 'permanent');
  assert.equal(sc(answer(200, envelope({ error_code: 146, error_msg: "filter 'lastMitigated' is invalid" }))).kind, 'permanent');
});

test('ServiceDesk Plus: a success status is a success; rate limits and server errors are transient; auth, scope and not-JSON are permanent', () => {
  const o = { path: '/requests', deployment: 'onprem' as const, apiBase: 'https://sdp.example/api/v3' };
  const ok = sdpAnswer(answer(200, { response_status: [{ status_code: 2000, status: 'success' }], requests: [] }), o);
  assert.equal(ok.kind, 'success');
  const limited = sdpAnswer(
    answer(400, { response_status: { status_code: 4000, status: 'failed', messages: [{ status_code: 4015, message: 'rate limit' }] } }),
    o,
  );
  assert.equal(limited.kind, 'transient');
  assert.equal(sdpAnswer(answer(502, 'Bad Gateway', 'text/plain'), o).kind, 'transient');
  const refused = sdpAnswer(
    answer(401, { response_status: { status_code: 4000, status: 'failed', messages: [{ status_code: 4022, message: 'Invalid key' }] } }),
    o,
  );
  assert.equal(refused.kind, 'permanent');
  assert.equal(refused.kind === 'permanent' && (refused.error as SdpApiError).kind, 'auth');
  assert.equal(sdpAnswer(answer(403, { response_status: { status_code: 4000, status: 'failed', messages: [{ status_code: 4002 }] } }), o).kind, 'permanent');
  const html = sdpAnswer(answer(200, '<html>login</html>', 'text/html'), o);
  assert.equal(html.kind, 'permanent');
  assert.match(html.kind === 'permanent' ? html.error.message : '', /not JSON/);
});

test('the retry policy acts on verdicts: transient ones are tried again, a permanent one fails at once', async () => {
  const busy = new UpstreamError('busy', { transient: true, status: 503 }) as UpstreamError & { transient: true };
  const refused = new UpstreamError('refused', { status: 401 });
  /** Runs the policy over scripted verdicts (the last one repeats); answers the outcome and the calls made. */
  const run = async (script: Verdict<string>[], attempts: number) => {
    let calls = 0;
    const outcome = await callWithRetry(async () => script[Math.min(calls++, script.length - 1)]!, { baseMs: 1, attempts }).catch((e: unknown) => e);
    return { outcome, calls };
  };
  assert.deepEqual(
    await run(
      [
        { kind: 'transient', error: busy },
        { kind: 'transient', error: busy },
        { kind: 'success', value: 'page' },
      ],
      5,
    ),
    {
      outcome: 'page',
      calls: 3,
    },
  );
  assert.deepEqual(await run([{ kind: 'permanent', error: refused }], 5), { outcome: refused, calls: 1 });
  // A transient verdict still failing when the attempts are spent fails with its error.
  assert.deepEqual(await run([{ kind: 'transient', error: busy }], 3), { outcome: busy, calls: 3 });
});
