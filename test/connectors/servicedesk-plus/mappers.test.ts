// Pure mappers and envelope readers on fixtures written from the fact sheet's wire examples and on every
// real recorded on-prem response of the shared corpus.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorFor } from '../../../src/connectors/servicedesk-plus/client.ts';
import { regionOfApiDomain } from '../../../src/connectors/servicedesk-plus/config.ts';
import { mapAsset, mapCi } from '../../../src/connectors/servicedesk-plus/map/assets.ts';
import { classifyError, hasMoreRows, type Json, listRows, readListPage, readStatus } from '../../../src/connectors/servicedesk-plus/map/envelope.ts';
import { mapBusinessService, mapServiceCategory } from '../../../src/connectors/servicedesk-plus/map/services.ts';
import { mapRequest } from '../../../src/connectors/servicedesk-plus/map/tickets.ts';
import { mapUser } from '../../../src/connectors/servicedesk-plus/map/users.ts';
import { epochMs, isoOf, listOf } from '../../../src/connectors/servicedesk-plus/map/values.ts';
import { corpusFiles, corpusJson, corpusPresent, fixture, SKIP } from './corpus.ts';

const iso = (ms: number) => new Date(ms).toISOString();

describe('values', () => {
  test('times come from the ms epoch value, as ISO-8601 UTC', () => {
    assert.equal(isoOf({ display_value: 'Jun 24, 2020 03:05 PM', value: '1593000300533' }), '2020-06-24T12:05:00.533Z');
    assert.equal(isoOf(null), null);
    assert.equal(epochMs({ display_value: '18hrs 0min', value: '64800000' }), null, 'durations are not timestamps');
    assert.deepEqual(listOf('10.0.0.1, 10.0.0.2', ['10.0.0.2', null], [{ ip_address: '10.0.0.3' }]), ['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  });
  test('api_domain names the data centre', () => {
    assert.equal(regionOfApiDomain('https://www.zohoapis.com'), 'us');
    assert.equal(regionOfApiDomain('https://www.zohoapis.com.au'), 'au');
    assert.equal(regionOfApiDomain('https://www.zohoapis.eu'), 'eu');
    assert.equal(regionOfApiDomain('https://example.com'), null);
  });
});

describe('fact-sheet fixtures', () => {
  test('cloud request list → tickets (incident kind, display id, blanks → null)', () => {
    const body = fixture('cloud-request-list.json');
    assert.equal(readStatus(body).ok, true);
    assert.equal(hasMoreRows(body), false);
    const [a, b] = listRows(body, 'requests').rows.map(mapRequest);
    assert.deepEqual(a, {
      key: 'request:123640000000240013',
      externalId: '123640000000240013',
      fields: {
        displayId: '102',
        subject: 'VPN drops every hour',
        kind: 'incident',
        status: 'Open',
        priority: 'High',
        assignee: 'Ana Ruiz',
        group: 'Network',
        requester: 'Bo Chen',
        createdAt: iso(1593000300533),
        updatedAt: iso(1593012464184),
        dueAt: null,
        resolvedAt: null,
        remediationKey: null,
      },
    });
    assert.equal(b!.fields.kind, 'request');
    assert.equal(b!.fields.subject, null, 'a blank subject is null, never ""');
    assert.equal(b!.fields.priority, null);
    assert.equal(b!.fields.assignee, null);
    assert.equal(b!.fields.requester, 'cy@example.com', 'a requester without a name falls back to the e-mail');
    assert.equal(b!.fields.resolvedAt, iso(1719831600000));
  });

  test('asset → cmdb-assets with configuration attributes', () => {
    const r = mapAsset(fixture('asset.json').asset as Json);
    assert.equal(r.key, 'asset:1694');
    assert.deepEqual(
      { ...r.fields, attributes: undefined },
      {
        name: 'LT-0042',
        assetTag: 'A-10042',
        serialNumber: 'FK1D9GZDN72J',
        productType: 'Laptop',
        product: 'Latitude 7440',
        state: 'In Use',
        ipAddresses: ['10.1.2.3'],
        macAddresses: undefined,
        assignedUser: 'Bo Chen',
        department: 'Finance',
        site: null,
        ciType: 'Asset',
        attributes: undefined,
      },
    );
    assert.deepEqual(r.fields.attributes, {
      manufacturer: 'Dell',
      location: 'HQ 3F',
      acquisition_date: iso(1704412800000),
      last_scan_time: iso(1719824400000),
    });
  });

  test('CI and business service', () => {
    const ci = mapCi({
      id: '7',
      name: 'ws-1',
      ci_type: { id: '1', name: 'Computer' },
      txt_ip_address: '10.0.0.9',
      txt_mac_address: 'aa:bb:cc:dd:ee:ff',
      txt_serial_number: 'S1',
      txt_os: 'Linux',
      last_updated_time: { display_value: 'x', value: '1719824400000' },
    });
    assert.equal(ci.key, 'ci:7');
    assert.deepEqual(
      [ci.fields.ciType, ci.fields.ipAddresses, ci.fields.macAddresses, ci.fields.serialNumber],
      ['Computer', ['10.0.0.9'], ['aa:bb:cc:dd:ee:ff'], 'S1'],
    );
    assert.equal((ci.fields.attributes as Json).txt_os, 'Linux');
    const bs = mapBusinessService({
      id: '9',
      name: 'Payroll',
      description: '',
      ci_type: { name: 'Business Service' },
      managed_by: { name: 'Ana' },
      status: { name: 'Active' },
    });
    assert.deepEqual(bs.fields, { name: 'Payroll', description: null, category: 'Business Service', owner: 'Ana', status: 'active' });
    assert.deepEqual(mapServiceCategory({ id: '8', name: 'User Management', description: null, deleted: false }).fields, {
      name: 'User Management',
      description: null,
      category: 'Service Category',
      owner: null,
      status: 'active',
    });
  });

  test('users: cloud requester and on-prem user spellings', () => {
    assert.deepEqual(mapUser(fixture('requester.json').requester as Json, false), {
      key: 'user:123640000000244019',
      externalId: '123640000000244019',
      fields: { name: 'Bo Chen', email: 'bo@example.com', department: 'Finance', jobTitle: 'Analyst', isTechnician: false, status: undefined },
    });
    assert.deepEqual(mapUser(fixture('onprem-user.json').user as Json).fields, {
      name: 'Dara Novak',
      email: 'dara@example.com',
      department: 'IT',
      jobTitle: null,
      isTechnician: false,
      status: 'inactive',
    });
  });

  test('error envelopes classify into the right errors', () => {
    const e = fixture('errors.json') as Record<string, Json>;
    assert.equal(classifyError(400, readStatus(e.rateLimited)), 'rate-limit');
    assert.equal(classifyError(401, readStatus(e.invalidToken)), 'auth');
    assert.equal(classifyError(401, readStatus(e.forbidden)), 'permission');
    assert.equal(classifyError(400, readStatus(e.license)), 'license');
    const rl = errorFor(400, e.rateLimited!, { path: '/requests', deployment: 'cloud', apiBase: 'x' });
    assert.equal(rl.transient, true, '4015 is retried');
    const denied = errorFor(401, e.forbidden!, { path: '/assets', deployment: 'cloud', apiBase: 'x' });
    assert.match(denied.message, /missing scope SDPOnDemand\.assets\.READ/);
    assert.equal(denied.transient, false);
    const onprem = errorFor(403, e.forbidden!, { path: '/cmdb/ci_computer', deployment: 'onprem', apiBase: 'x' });
    assert.match(onprem.message, /technician of this API key may not read the CMDB/);
    const bad = errorFor(400, e.invalidSearch!, { path: '/requests', deployment: 'onprem', apiBase: 'x' });
    assert.deepEqual([bad.kind, bad.field], ['input', 'search_criteria']);
  });
});

describe('recorded on-prem responses (rapid7 corpus)', { skip: corpusPresent ? false : SKIP }, () => {
  test('get_list_request: 10 reduced list rows → tickets', () => {
    const body = corpusJson('get_list_request.json.resp');
    assert.ok(Array.isArray(body.response_status), 'list answers carry an array response_status');
    assert.equal(readStatus(body).ok, true);
    assert.equal(hasMoreRows(body), true);
    const { key, rows } = listRows(body);
    assert.equal(key, 'requests');
    const tickets = rows.map(mapRequest);
    assert.deepEqual(
      tickets.map((t) => t.externalId),
      ['98', '97', '96', '95', '94', '93', '92', '91', '90', '89'],
    );
    assert.deepEqual(tickets[0], {
      key: 'request:98',
      externalId: '98',
      fields: {
        displayId: '98',
        subject: 'Request about monitor',
        kind: undefined,
        status: 'Open',
        priority: 'Low',
        assignee: 'administrator',
        group: null,
        requester: 'administrator',
        createdAt: iso(1660212951312),
        updatedAt: undefined,
        dueAt: iso(1660262400312),
        resolvedAt: undefined,
        description: 'Required for user',
        site: 'Test Site',
        remediationKey: null,
      },
    });
    assert.equal(tickets[9]!.fields.createdAt, '2022-08-11T09:46:08.638Z');
    for (const t of tickets) for (const v of Object.values(t.fields)) assert.notEqual(v, '', 'never ""');
  });

  test('get_request: a single request (object response_status) → ticket', () => {
    const body = corpusJson('get_request.json.resp');
    assert.ok(!Array.isArray(body.response_status));
    assert.equal(readStatus(body).ok, true);
    const t = mapRequest(body.request as Json);
    assert.deepEqual(t.fields, {
      displayId: '201',
      subject: 'Plugin action test add request 2',
      kind: 'incident',
      status: 'Open',
      priority: 'Normal',
      assignee: 'administrator',
      group: null,
      requester: 'administrator',
      createdAt: iso(1659514299775),
      updatedAt: null,
      dueAt: iso(1659556800775),
      resolvedAt: undefined,
      description: 'dessssc',
      category: 'Software',
      site: 'Test Site',
      remediationKey: null,
      // The request's associated assets, as correlation reads them first.
      associatedAssets: [{ id: '301', name: 'keyboardMC' }],
    });
    const edited = mapRequest(corpusJson('edit_request.json.resp').request as Json);
    assert.equal(edited.fields.updatedAt, iso(1660211659292));
  });

  test('error envelopes → the right errors', () => {
    const sort = corpusJson('get_list_request_invalid_sort_field.json.resp');
    const e1 = errorFor(400, sort, { path: '/requests', deployment: 'onprem', apiBase: 'http://sdp:8080/api/v3' });
    assert.deepEqual([e1.kind, e1.field, e1.codes], ['input', 'sort_field', [4000, 4001]]);
    const nf = errorFor(404, corpusJson('request_not_found.json.resp'), { path: '/requests/1', deployment: 'onprem', apiBase: 'http://sdp:8080/api/v3' });
    assert.equal(nf.kind, 'not-found');
    assert.match(nf.message, /4007 Invalid URL/);
    assert.match(nf.hint ?? '', /serverUrl/);
    const filter = corpusJson('removed/get_list_request_invalid_filter.json.resp');
    assert.equal(errorFor(400, filter, { path: '/requests', deployment: 'onprem', apiBase: 'x' }).field, 'filter_by');
  });

  test('every recorded response: success iff its envelope says 2000 without failed messages', () => {
    const files = corpusFiles();
    assert.ok(files.length >= 20);
    for (const f of files) {
      const body = corpusJson(f);
      const failed = JSON.stringify(body.response_status ?? {}).includes('"failed"');
      const s = readStatus(body);
      if (s.present) assert.equal(s.ok, !failed, f);
      for (const k of ['request', 'note', 'resolution'])
        if (k === 'request' && body.request) assert.equal(mapRequest(body.request as Json).key.startsWith('request:'), true, f);
    }
  });
});

describe('list page validation (what the streams rely on)', () => {
  test('the recorded list and the fact sheet example pass; rows are kept whatever their fields', (t) => {
    const cloud = readListPage(fixture('cloud-request-list.json'), 'requests', 'GET /requests');
    assert.ok(cloud.rows.length > 0);
    if (!corpusPresent) return t.skip(SKIP);
    const onprem = readListPage(corpusJson('get_list_request.json.resp'), 'requests', 'GET /requests');
    assert.equal(onprem.key, 'requests');
    assert.ok(onprem.rows.length > 0 && onprem.rows.every((r) => mapRequest(r).key.startsWith('request:')));
  });

  test('a missing list or a row that is not a record fails, naming the field; an empty list_info-confirmed page passes', () => {
    const ok = [{ status_code: 2000, status: 'success' }];
    assert.throws(
      () => readListPage({ response_status: ok, list_info: { row_count: 100, has_more_rows: true } }, 'requests', 'GET /requests'),
      /GET \/requests: the answer is not a page of rows: 'requests' is missing, expected a list of records/,
    );
    assert.throws(() => readListPage({ response_status: ok }, 'requests', 'GET /requests'), /'requests' is missing/);
    assert.throws(
      () => readListPage({ response_status: ok, requests: [{ id: '1' }, null] }, 'requests', 'GET /requests'),
      /'requests\[1\]' is null, expected a record \(an object\)/,
    );
    assert.throws(() => readListPage({ response_status: ok, ci_computer: ['x'] }, undefined, 'GET /cmdb/ci_computer'), /'ci_computer\[0\]' is a string/);
    assert.deepEqual(readListPage({ response_status: ok, list_info: { has_more_rows: false, row_count: 0 } }, 'requests', 'GET /requests').rows, []);
    assert.deepEqual(
      readListPage({ response_status: ok, requests: [{ subject: 'no id' }] }, 'requests', 'GET /requests').rows,
      [{ subject: 'no id' }],
      'a row without id is the stream\u2019s error row, not a bad page',
    );
  });
});
