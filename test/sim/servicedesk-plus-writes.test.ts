// The SDP simulator's write API on the wire: form-encoded input_data, mandatory fields, error bodies,
// scopes per call (cloud) and the technician key's role (on-prem), the write rate limit, notes, and the
// text search that finds a request by a marker in its subject.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type RunningSdpSim, startSdpSim } from '../../sim/servicedesk-plus/index.ts';

// biome-ignore lint/suspicious/noExplicitAny: wire JSON read loosely in assertions
type Json = Record<string, any>;

const form = (doc: unknown) => ({
  body: new URLSearchParams({ input_data: JSON.stringify(doc) }).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});
const post = (url: string, key: string, doc: unknown) => {
  const f = form(doc);
  return fetch(url, { method: 'POST', body: f.body, headers: { ...f.headers, authtoken: key } });
};

describe('servicedesk-plus simulator: writes', () => {
  let sim: RunningSdpSim;
  const call = async (method: string, path: string, doc?: unknown, o: { key?: string; token?: string; raw?: RequestInit } = {}) => {
    const auth: Record<string, string> = o.token ? { authorization: `Zoho-oauthtoken ${o.token}` } : { authtoken: o.key ?? sim.apiKey };
    const base = o.token ? `${sim.url}/app/${sim.portal}/api/v3/` : `${sim.url}/api/v3/`;
    const f = doc === undefined ? { body: undefined, headers: {} } : form(doc);
    const r = await fetch(base + path, { method, body: f.body, headers: { ...f.headers, ...auth }, ...o.raw });
    return { status: r.status, body: (await r.json()) as Json };
  };
  const tokenWith = async (scopes: string[]) => {
    const code = sim.mintAuthorizationCode(scopes);
    const r = await fetch(`${sim.accountsUrl}/oauth/v2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: sim.clientId, client_secret: sim.clientSecret, code }),
    });
    return ((await r.json()) as Json).access_token as string;
  };
  before(async () => {
    sim = await startSdpSim({ seed: 5, requests: 40 });
  });
  after(() => sim?.close());

  test('create: 201 with the record in a single-record envelope; GET by id and a subject search find it', async () => {
    const created = await call('POST', 'requests', {
      request: { subject: 'Patch openssl [TRB-abc123]', description: '<div>hosts</div>', priority: { name: 'High' }, udf_fields: { udf_char1: 'TRB-abc123' } },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.response_status, { status_code: 2000, status: 'success' });
    const rec = created.body.request;
    assert.equal(rec.subject, 'Patch openssl [TRB-abc123]');
    assert.equal(rec.status.name, 'Open');
    assert.equal(rec.priority.name, 'High');
    const got = await call('GET', `requests/${rec.id}`);
    assert.equal(got.body.request.id, rec.id);
    const li = { list_info: { row_count: 10, search_criteria: [{ field: 'subject', condition: 'contains', value: '[trb-abc123]' }] } };
    const found = await fetch(`${sim.url}/api/v3/requests?input_data=${encodeURIComponent(JSON.stringify(li))}`, { headers: { authtoken: sim.apiKey } });
    const fb = (await found.json()) as Json;
    assert.deepEqual(
      fb.requests.map((r: Json) => r.id),
      [rec.id],
    );
    const none = { list_info: { search_criteria: { field: 'subject', condition: 'contains', value: '[TRB-none]' } } };
    const nb = (await (
      await fetch(`${sim.url}/api/v3/requests?input_data=${encodeURIComponent(JSON.stringify(none))}`, { headers: { authtoken: sim.apiKey } })
    ).json()) as Json;
    assert.equal(nb.requests.length, 0);
  });

  test('create refuses: no subject (4012), unknown priority (4001 with field), extra keys, JSON body, too long subject', async () => {
    const before = sim.stats().writes.create;
    const noSubject = await call('POST', 'requests', { request: { description: 'x' } });
    assert.equal(noSubject.status, 400);
    assert.deepEqual(noSubject.body.response_status, {
      status_code: 4000,
      status: 'failed',
      messages: [{ status_code: 4012, field: 'subject', type: 'failed', message: 'Mandatory field value not provided' }],
    });
    const badPrio = await call('POST', 'requests', { request: { subject: 's', priority: { name: 'Galactic' } } });
    assert.equal(badPrio.body.response_status.messages[0].status_code, 4001);
    assert.equal(badPrio.body.response_status.messages[0].field, 'priority.name');
    const extra = await call('POST', 'requests', { request: { subject: 's' }, list_info: {} });
    assert.equal(extra.body.response_status.messages[0].message, 'EXTRA_KEY_FOUND_IN_JSON');
    const json = await fetch(`${sim.url}/api/v3/requests`, {
      method: 'POST',
      headers: { authtoken: sim.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ request: { subject: 's' } }),
    });
    assert.equal(json.status, 400);
    const long = await call('POST', 'requests', { request: { subject: 'x'.repeat(251) } });
    assert.equal(long.body.response_status.messages[0].field, 'subject');
    const missing = await call('POST', 'requests', undefined);
    assert.equal(missing.body.response_status.messages[0].field, 'input_data');
    assert.equal(sim.stats().writes.create, before, 'nothing refused was created');
  });

  test('update and notes: resolve needs a resolution; unknown id 4007; notes under either wrapper key', async () => {
    const { body } = await call('POST', 'requests', { request: { subject: 'to resolve' } });
    const id = body.request.id;
    const noRes = await call('PUT', `requests/${id}`, { request: { status: { name: 'Resolved' } } });
    assert.equal(noRes.status, 400);
    assert.equal(noRes.body.response_status.messages[0].field, 'resolution');
    const res = await call('PUT', `requests/${id}`, { request: { status: { name: 'Resolved' }, resolution: { content: 'all fixed' } } });
    assert.equal(res.status, 200);
    assert.equal(res.body.request.status.name, 'Resolved');
    assert.ok(res.body.request.resolved_time);
    assert.equal((await call('PUT', 'requests/4999999', { request: { subject: 'x' } })).body.response_status.messages[0].status_code, 4007);
    const n1 = await call('POST', `requests/${id}/notes`, { request_note: { description: 'two hosts fixed' } });
    assert.equal(n1.status, 201);
    assert.equal(n1.body.request_note.description, 'two hosts fixed');
    const n2 = await call('POST', `requests/${id}/notes`, { note: { description: 'on-prem wrapper', show_to_requester: false } });
    assert.equal(n2.status, 201);
    const noDesc = await call('POST', `requests/${id}/notes`, { request_note: { show_to_requester: true } });
    assert.equal(noDesc.body.response_status.messages[0].field, 'description');
    const notes = await call('GET', `requests/${id}/notes`);
    assert.deepEqual(
      notes.body.notes.map((n: Json) => n.description),
      ['two hosts fixed', 'on-prem wrapper'],
    );
    assert.ok(sim.written.setStatus(id, 'Closed'));
    assert.equal((await call('GET', `requests/${id}`)).body.request.status.name, 'Closed');
  });

  test('cloud scopes per call: READ cannot write, CREATE creates but cannot update, UPDATE updates, ALL does both', async () => {
    const read = await tokenWith(['SDPOnDemand.requests.READ']);
    const denied = await call('POST', 'requests', { request: { subject: 'x' } }, { token: read });
    assert.equal(denied.status, 401);
    assert.equal(denied.body.response_status.messages[0].status_code, 4002);
    const create = await tokenWith(['SDPOnDemand.requests.READ', 'SDPOnDemand.requests.CREATE']);
    const made = await call('POST', 'requests', { request: { subject: 'cloud one' } }, { token: create });
    assert.equal(made.status, 201);
    assert.match(made.body.request.id, /^1236400099\d{8}$/);
    const id = made.body.request.id;
    assert.equal((await call('PUT', `requests/${id}`, { request: { subject: 'renamed' } }, { token: create })).status, 401);
    const update = await tokenWith(['SDPOnDemand.requests.UPDATE']);
    assert.equal((await call('PUT', `requests/${id}`, { request: { subject: 'renamed' } }, { token: update })).status, 200);
    assert.equal((await call('POST', 'requests', { request: { subject: 'x' } }, { token: update })).status, 401);
    const all = await tokenWith(['SDPOnDemand.requests.ALL']);
    assert.equal((await call('POST', `requests/${id}/notes`, { request_note: { description: 'n' } }, { token: all })).status, 201);
  });
});

describe('servicedesk-plus simulator: the technician role and the write limit', () => {
  test('a read-only role answers 403/4002 to every write; a write limit answers 429/4015', async () => {
    const sim = await startSdpSim({ seed: 6, requests: 5, apiKeyRole: { addRequests: false, editRequests: false } });
    try {
      const r = await post(`${sim.url}/api/v3/requests`, sim.apiKey, { request: { subject: 'x' } });
      assert.equal(r.status, 403);
      assert.equal(((await r.json()) as Json).response_status.messages[0].status_code, 4002);
      assert.equal(sim.written.size, 0);
    } finally {
      await sim.close();
    }
    const lim = await startSdpSim({ seed: 6, requests: 5, writesPerMinute: 2 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await post(`${lim.url}/api/v3/requests`, lim.apiKey, { request: { subject: `n${i}` } });
        statuses.push(r.status);
        if (r.status === 429) assert.equal(((await r.json()) as Json).response_status.messages[0].status_code, 4015);
        else await r.json();
      }
      assert.deepEqual(statuses, [201, 201, 429]);
      assert.equal(lim.written.size, 2);
    } finally {
      await lim.close();
    }
  });
});
