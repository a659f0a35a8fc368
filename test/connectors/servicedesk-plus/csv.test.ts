// ServiceDesk Plus file mode: list-view exports (requests, assets, users, services) through the file
// stream (in-memory bucket): header aliases, the API mode's keys and fields, bad rows and bad files,
// and per-kind snapshots (a new requests export is read alone).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sdpFileStreams } from '../../../src/connectors/servicedesk-plus/csv/index.ts';
import { sdpFileKinds } from '../../../src/connectors/servicedesk-plus/csv/kinds.ts';
import { detectKind } from '../../../src/filedrop/csv/columns.ts';
import { originOf } from '../../../src/filedrop/csv/stream.ts';
import { csvText, MemoryBucket, readPages, recordsOf, streamContext } from '../../filedrop/memory-bucket.ts';

const REQ_HEADER = [
  'Request ID',
  'Subject',
  'Requester',
  'Technician',
  'Request Status',
  'Priority',
  'Created Time',
  'DueBy Time',
  'Group',
  'Site',
  'Request Type',
  'Urgency',
];

test('requests export: tickets keyed request:<id> with the API mode fields; bad rows rejected with lines', async () => {
  const bucket = new MemoryBucket();
  bucket.put(
    'export.csv',
    csvText(REQ_HEADER, [
      [
        '1201',
        'VPN drops every hour',
        'Alice Example',
        'Bob Tech',
        'Open',
        'High',
        'Jun 24, 2020 03:05 PM',
        'Jun 25, 2020 03:05 PM',
        'Network',
        'HQ',
        'Incident',
        'High',
      ],
      ['1202', 'New laptop\nfor new hire', 'Carol', '', 'Resolved', 'Low', '2024-07-01 09:00:00', '', 'Hardware', 'HQ', 'Service Request', ''],
      ['', 'no id', 'x', '', 'Open', 'Low', '', '', '', '', '', ''],
      ['1204', 'bad date', 'x', '', 'Open', 'Low', 'someday', '', '', '', '', ''],
    ]),
  );
  const pages = await readPages(sdpFileStreams()[0]!, streamContext(bucket));
  const tickets = recordsOf(pages, 'tickets');
  assert.deepEqual(
    tickets.map((t) => t.key),
    ['request:1201', 'request:1202'],
  );
  const t = tickets[0]!;
  assert.equal(t.externalId, '1201');
  assert.deepEqual(t.fields, {
    displayId: '1201',
    subject: 'VPN drops every hour',
    kind: 'incident',
    status: 'Open',
    priority: 'High',
    assignee: 'Bob Tech',
    group: 'Network',
    requester: 'Alice Example',
    createdAt: '2020-06-24T15:05:00.000Z',
    updatedAt: undefined,
    dueAt: '2020-06-25T15:05:00.000Z',
    resolvedAt: undefined,
    // No Tributary marker in the subject: not a remediation ticket.
    remediationKey: null,
  });
  assert.equal(tickets[1]!.fields.kind, 'request');
  assert.equal(tickets[1]!.fields.assignee, null, 'an empty Technician clears the assignee');
  assert.equal(tickets[1]!.fields.subject, 'New laptop\nfor new hire');
  const r = bucket.last('export.csv')!;
  assert.equal(r.kind, 'requests');
  assert.equal(r.status, 'partial');
  assert.deepEqual(r.rejections, [
    { line: 5, reason: 'Request ID is empty' },
    { line: 6, reason: "Created Time 'someday' is not a date this import reads (e.g. Jun 24, 2020 03:05 PM or 2024-07-01 09:00:00)" },
  ]);
});

test('asset, user and service exports; unknown asset columns become attributes', async () => {
  const bucket = new MemoryBucket();
  bucket.put(
    'assets.csv',
    csvText(
      [
        'Asset Name',
        'Asset Tag',
        'Product',
        'Product Type',
        'Asset State',
        'Serial Number (Service Tag)',
        'Vendor',
        'User',
        'Department',
        'Site',
        'IP Address',
        'MAC Address',
        'Last Scan Time',
      ],
      [
        [
          'WS-0042',
          'AT-42',
          'Dell Latitude 7440',
          'Workstation',
          'In Use',
          'SN123',
          'Dell',
          'Alice Example',
          'Finance',
          'HQ',
          '10.0.0.42',
          '00:11:22:33:44:55',
          'Jan 2, 2025 10:00 AM',
        ],
      ],
    ),
  );
  bucket.put(
    'users.csv',
    csvText(
      ['User ID', 'Name', 'Email ID', 'Department', 'Job Title', 'User Type', 'Status'],
      [
        ['501', 'Alice Example', 'alice@example.com', 'Finance', 'Analyst', 'Requester', 'Active'],
        ['', 'Bob', 'BOB@example.com', '', '', 'Technician', 'Inactive'],
      ],
    ),
  );
  bucket.put('services.csv', csvText(['Service Name', 'Description', 'Owner', 'Status'], [['Email', 'Corporate mail', 'Bob Tech', 'Active']]));
  const pages = await readPages(sdpFileStreams()[0]!, streamContext(bucket));
  const [asset] = recordsOf(pages, 'cmdb-assets');
  assert.equal(asset!.key, 'asset-name:ws-0042', 'no id column: keyed by name');
  assert.deepEqual(
    { ...asset!.fields },
    {
      name: 'WS-0042',
      assetTag: 'AT-42',
      serialNumber: 'SN123',
      productType: 'Workstation',
      product: 'Dell Latitude 7440',
      state: 'In Use',
      ipAddresses: ['10.0.0.42'],
      macAddresses: ['00:11:22:33:44:55'],
      assignedUser: 'Alice Example',
      department: 'Finance',
      site: 'HQ',
      ciType: 'Asset',
      attributes: { Vendor: 'Dell', 'Last Scan Time': 'Jan 2, 2025 10:00 AM' },
    },
  );
  const users = recordsOf(pages, 'users');
  assert.deepEqual(
    users.map((u) => [u.key, u.fields.name, u.fields.email, u.fields.isTechnician, u.fields.status]),
    [
      ['user:501', 'Alice Example', 'alice@example.com', false, 'active'],
      ['user-email:bob@example.com', 'Bob', 'BOB@example.com', true, 'inactive'],
    ],
  );
  const [svc] = recordsOf(pages, 'services');
  assert.equal(svc!.key, 'service-name:email');
  assert.deepEqual(svc!.fields, { name: 'Email', description: 'Corporate mail', category: 'Business Service', owner: 'Bob Tech', status: 'active' });
  assert.deepEqual(bucket.imports.map((i) => [i.key, i.kind, i.status]).sort(), [
    ['assets.csv', 'assets', 'imported'],
    ['services.csv', 'services', 'imported'],
    ['users.csv', 'users', 'imported'],
  ]);
  const swept = pages.at(-1)!.sweep as { models: string[]; scope: { origins: string[]; originKeys: string[] } }[];
  assert.deepEqual(
    swept.map((x) => [x.models, x.scope.originKeys]).sort(),
    [
      [['cmdb-assets'], ['assets.csv']],
      [['services'], ['services.csv']],
      [['users'], ['users.csv']],
    ],
    'each export sweeps its own model within its file name',
  );
});

test('detection by header; a new requests export is read alone and (incremental too) sweeps tickets within its file name; a non-export is rejected whole', async () => {
  const kinds = sdpFileKinds();
  const d = detectKind(['request id', 'SUBJECT', 'Status', 'Due By Time'], kinds, 'ServiceDesk Plus');
  assert.ok(d.ok && d.match.kind.name === 'requests' && d.match.index.get('dueByTime') === 3);
  const noId = detectKind(['Subject', 'Requester', 'Technician', 'Priority'], kinds, 'ServiceDesk Plus');
  assert.ok(!noId.ok && /Requests export but lacks the required column: Request ID/.test(noId.reason), JSON.stringify(noId));
  const bucket = new MemoryBucket();
  bucket.put('users.csv', csvText(['User ID', 'Name', 'Email'], [['1', 'A', 'a@example.com']]));
  await readPages(sdpFileStreams()[0]!, streamContext(bucket));
  bucket.put('export.csv', csvText(REQ_HEADER.slice(0, 6), [['7', 's', 'r', 't', 'Open', 'Low']]));
  bucket.put('notes.txt', 'just some notes\nnothing tabular here\n');
  const pages = await readPages(sdpFileStreams()[0]!, streamContext(bucket, { mode: 'incremental' }));
  assert.deepEqual(pages.at(-1)!.sweep, [{ models: ['tickets'], scope: { origins: [originOf('export.csv')], originKeys: ['export.csv'] } }]);
  assert.equal(recordsOf(pages, 'tickets').length, 1);
  assert.equal(recordsOf(pages, 'users').length, 0, 'the users export is not read again');
  const notes = bucket.last('notes.txt')!;
  assert.equal(notes.status, 'rejected');
  assert.match(notes.error!, /not a ServiceDesk Plus export/);
});
