// ServiceDesk Plus CSV exports (list-view exports and Setup > Data Administration > Export Data):
// requests, assets, users and services. Each row becomes the JSON shape the API returns, then goes
// through the API mode's mappers, so keys (`request:<id>`, `asset:<id>`, …) and fields are the same.
// A key column missing, the record is keyed by name or e-mail instead (documented in docs/csv-import.md).
import { yesNo } from '../../../core/values.ts';
import type { ColumnDef, CsvRow, FileKind, RowMapper } from '../../../filedrop/csv/columns.ts';
import { ipAddressesOf, RowError } from '../../../filedrop/csv/columns.ts';
import { parseDate } from '../../../filedrop/csv/dates.ts';
import { assetFields } from '../map/assets.ts';
import type { Json } from '../map/envelope.ts';
import { businessServiceFields } from '../map/services.ts';
import { mapRequest } from '../map/tickets.ts';
import { userFields } from '../map/users.ts';

export const REQUEST_COLUMNS: ColumnDef[] = [
  { field: 'id', headers: ['Request ID', 'RequestID', 'Request Id', 'Ticket ID', 'Display ID', 'ID'] },
  { field: 'subject', headers: ['Subject', 'Title', 'Request Subject'] },
  { field: 'requester', headers: ['Requester', 'Requester Name', 'Requested By'] },
  { field: 'technician', headers: ['Technician', 'Assigned To', 'Technician Name', 'Assignee'] },
  { field: 'status', headers: ['Request Status', 'Status'] },
  { field: 'priority', headers: ['Priority'] },
  { field: 'group', headers: ['Group', 'Support Group', 'Technician Group'] },
  { field: 'site', headers: ['Site'] },
  { field: 'requestType', headers: ['Request Type', 'Type'] },
  { field: 'createdTime', headers: ['Created Time', 'Created Date', 'Created On', 'Creation Time'] },
  { field: 'dueByTime', headers: ['DueBy Time', 'Due By Time', 'Due By Date', 'Due Date', 'DueBy Date'] },
  { field: 'resolvedTime', headers: ['Resolved Time', 'Resolved Date'] },
  { field: 'completedTime', headers: ['Completed Time', 'Completed Date', 'Closed Time', 'Closed Date'] },
  { field: 'updatedTime', headers: ['Last Update Time', 'Last Updated Time', 'Updated Time', 'Last Updated', 'Last Modified Time'] },
  { field: 'urgency', headers: ['Urgency'] },
  { field: 'impact', headers: ['Impact'] },
  { field: 'category', headers: ['Category'] },
  { field: 'mode', headers: ['Request Mode', 'Mode'] },
];

export const ASSET_COLUMNS: ColumnDef[] = [
  { field: 'id', headers: ['Asset ID', 'Workstation ID', 'Resource ID', 'CI ID', 'ID'] },
  { field: 'name', headers: ['Asset Name', 'Workstation Name', 'Resource Name', 'CI Name', 'Name'] },
  { field: 'assetTag', headers: ['Asset Tag', 'Tag'] },
  { field: 'serial', headers: ['Serial Number (Service Tag)', 'Serial Number', 'Serial No', 'Service Tag'] },
  { field: 'product', headers: ['Product', 'Product Name', 'Model'] },
  { field: 'productType', headers: ['Product Type', 'Asset Type', 'Type'] },
  { field: 'ciType', headers: ['CI Type'] },
  { field: 'state', headers: ['Asset State', 'State', 'Status'] },
  { field: 'ip', headers: ['IP Address', 'IP Addresses', 'IP'] },
  { field: 'mac', headers: ['MAC Address', 'MAC Addresses', 'MAC'] },
  { field: 'user', headers: ['User', 'Assigned User', 'Used By', 'Owner', 'Associated To'] },
  { field: 'department', headers: ['Department'] },
  { field: 'site', headers: ['Site'] },
];

export const USER_COLUMNS: ColumnDef[] = [
  { field: 'id', headers: ['User ID', 'Requester ID', 'Technician ID', 'ID'] },
  { field: 'name', headers: ['Name', 'Full Name', 'Display Name', 'User Name', 'Requester Name', 'Technician Name'] },
  { field: 'firstName', headers: ['First Name'] },
  { field: 'lastName', headers: ['Last Name'] },
  { field: 'email', headers: ['Email', 'Email ID', 'E-Mail', 'Email Address', 'Primary Email'] },
  { field: 'department', headers: ['Department', 'Department Name'] },
  { field: 'jobTitle', headers: ['Job Title', 'Designation', 'Title'] },
  { field: 'isTechnician', headers: ['Is Technician', 'Technician'] },
  { field: 'userType', headers: ['User Type', 'Type', 'Role'] },
  { field: 'status', headers: ['Status', 'User Status', 'Login Status'] },
  { field: 'phone', headers: ['Phone', 'Phone Number'] },
  { field: 'mobile', headers: ['Mobile', 'Mobile Number'] },
  { field: 'employeeId', headers: ['Employee ID'] },
  { field: 'loginName', headers: ['Login Name', 'Login'] },
];

export const SERVICE_COLUMNS: ColumnDef[] = [
  { field: 'id', headers: ['Service ID', 'Business Service ID', 'ID'] },
  { field: 'serviceName', headers: ['Service Name', 'Business Service', 'Service', 'Service Category Name', 'Name'] },
  { field: 'description', headers: ['Description'] },
  { field: 'category', headers: ['Service Category', 'Category', 'Service Type', 'CI Type'] },
  { field: 'owner', headers: ['Owner', 'Service Owner', 'Managed By', 'Owned By'] },
  { field: 'status', headers: ['Status', 'State', 'Service Status'] },
];

/** A present column as the API's `{name}` reference (null when blank); absent → key left out. */
function ref(row: CsvRow, field: string, out: Json, key: string): void {
  if (!row.has(field)) return;
  const v = row.get(field);
  out[key] = v ? { name: v } : null;
}

function plain(row: CsvRow, field: string, out: Json, key: string): void {
  if (row.has(field)) out[key] = row.get(field) ?? null;
}

/** A present date column as the API's time object; a text that is no date rejects the row. */
function time(row: CsvRow, field: string, out: Json, key: string, label: string): void {
  if (!row.has(field)) return;
  const raw = row.get(field);
  const iso = parseDate(raw);
  if (iso === undefined) throw new RowError(`${label} '${raw}' is not a date this import reads (e.g. Jun 24, 2020 03:05 PM or 2024-07-01 09:00:00)`, label);
  out[key] = iso === null ? null : { value: String(Date.parse(iso)), display_value: raw };
}

/** An id column: digits (SDP ids and display ids are numbers). */
function idOf(row: CsvRow, label: string): string | null {
  const id = row.get('id');
  if (id === undefined || id === null) return null;
  const clean = id.replace(/^#/, '');
  if (!/^[\w.-]+$/.test(clean)) throw new RowError(`${label} '${id}' is not an id`, label);
  return clean;
}

const requestMapper = (): RowMapper => ({
  map(row, add) {
    const id = idOf(row, 'Request ID');
    if (!id) throw new RowError('Request ID is empty', 'Request ID');
    const r: Json = { id, display_id: id };
    plain(row, 'subject', r, 'subject');
    ref(row, 'status', r, 'status');
    ref(row, 'priority', r, 'priority');
    ref(row, 'technician', r, 'technician');
    ref(row, 'group', r, 'group');
    ref(row, 'requester', r, 'requester');
    ref(row, 'requestType', r, 'request_type');
    time(row, 'createdTime', r, 'created_time', 'Created Time');
    time(row, 'updatedTime', r, 'last_updated_time', 'Last Update Time');
    time(row, 'dueByTime', r, 'due_by_time', 'DueBy Time');
    time(row, 'resolvedTime', r, 'resolved_time', 'Resolved Time');
    if (!row.has('resolvedTime')) time(row, 'completedTime', r, 'completed_time', 'Completed Time');
    add('tickets', mapRequest(r));
  },
});

/** Columns of an asset export that no model field takes become `attributes`, keyed by their header. */
function assetMapper(headerOf: (i: number) => string, mapped: Set<number>): RowMapper {
  return {
    map(row, add) {
      const id = idOf(row, 'Asset ID');
      const name = row.get('name');
      if (!id && !name) throw new RowError('Asset Name is empty (an asset needs a name or an id)', 'Asset Name');
      const r: Json = {};
      plain(row, 'name', r, 'name');
      plain(row, 'assetTag', r, 'asset_tag');
      plain(row, 'serial', r, 'serial_number');
      ref(row, 'product', r, 'product');
      ref(row, 'productType', r, 'product_type');
      ref(row, 'state', r, 'state');
      ref(row, 'user', r, 'user');
      ref(row, 'department', r, 'department');
      ref(row, 'site', r, 'site');
      if (row.has('ciType')) r.type = row.get('ciType') ? { name: row.get('ciType') } : null;
      if (row.has('ip')) {
        ipAddressesOf(row.get('ip'), 'IP Address');
        r.ip_addresses = row.get('ip') ?? null;
      }
      if (row.has('mac')) r.mac_addresses = row.get('mac') ?? null;
      const fields = assetFields(r);
      const attrs: Record<string, unknown> = {};
      row.fields.forEach((v, i) => {
        const h = headerOf(i);
        const t = v.trim();
        if (!mapped.has(i) && h && t !== '' && t !== 'N/A') attrs[h] = t;
      });
      fields.attributes = attrs;
      if (!row.has('ciType') && !row.has('productType')) fields.ciType = 'Asset';
      add('cmdb-assets', id ? { key: `asset:${id}`, externalId: id, fields } : { key: `asset-name:${name!.toLowerCase()}`, fields });
    },
  };
}

const userMapper = (): RowMapper => ({
  map(row, add) {
    const id = idOf(row, 'User ID');
    const email = row.get('email');
    if (!id && !email) throw new RowError('Email is empty (a user needs an id or an e-mail address)', 'Email');
    const r: Json = {};
    plain(row, 'name', r, 'name');
    plain(row, 'firstName', r, 'first_name');
    plain(row, 'lastName', r, 'last_name');
    plain(row, 'email', r, 'email_id');
    ref(row, 'department', r, 'department');
    plain(row, 'jobTitle', r, 'job_title');
    plain(row, 'status', r, 'status');
    let tech: boolean | undefined;
    const t = row.get('isTechnician');
    if (t) tech = yesNo(t) ?? undefined;
    if (tech === undefined) {
      const type = row.get('userType');
      if (type) tech = /technician/i.test(type);
    }
    const fields = userFields(r, tech);
    add('users', id ? { key: `user:${id}`, externalId: id, fields } : { key: `user-email:${email!.toLowerCase()}`, fields });
  },
});

const serviceMapper = (): RowMapper => ({
  map(row, add) {
    const id = idOf(row, 'Service ID');
    const name = row.get('serviceName');
    if (!id && !name) throw new RowError('Service Name is empty', 'Service Name');
    const r: Json = { name: name ?? null };
    plain(row, 'description', r, 'description');
    ref(row, 'category', r, 'ci_type');
    ref(row, 'owner', r, 'owner');
    ref(row, 'status', r, 'status');
    const fields = businessServiceFields(r);
    if (!row.has('description')) delete fields.description;
    if (!row.has('owner')) delete fields.owner;
    if (!row.has('status')) delete fields.status;
    add('services', id ? { key: `business_service:${id}`, externalId: id, fields } : { key: `service-name:${name!.toLowerCase()}`, fields });
  },
});

const NOT_REQUESTS = ['Asset Tag', 'Asset Name', 'Email', 'Email ID', 'Service Name'];

export function sdpFileKinds(): FileKind[] {
  return [
    {
      name: 'requests',
      label: 'Requests',
      columns: REQUEST_COLUMNS,
      required: ['id'],
      signature: ['id', 'subject', 'requester', 'technician', 'status', 'priority', 'createdTime', 'dueByTime', 'requestType', 'group'],
      minSignature: 3,
      excludes: NOT_REQUESTS,
      writes: ['tickets'],
      group: 'requests',
      sweeps: ['tickets'],
      mapper: () => requestMapper(),
    },
    {
      name: 'assets',
      label: 'Assets',
      columns: ASSET_COLUMNS,
      required: ['id|name'],
      signature: ['name', 'assetTag', 'serial', 'product', 'productType', 'state', 'ip', 'mac', 'ciType'],
      minSignature: 3,
      excludes: ['Request ID', 'Subject', 'Email', 'Email ID'],
      writes: ['cmdb-assets'],
      group: 'assets',
      sweeps: ['cmdb-assets'],
      mapper: (_shared, header) => assetMapper((i) => header.names[i]?.trim() ?? '', new Set(header.index.values())),
    },
    {
      name: 'users',
      label: 'Users',
      columns: USER_COLUMNS,
      required: ['id|email'],
      signature: ['email', 'firstName', 'lastName', 'jobTitle', 'phone', 'mobile', 'employeeId', 'loginName', 'userType', 'isTechnician'],
      minSignature: 2,
      excludes: ['Request ID', 'Asset Tag', 'Subject', 'Service Name'],
      writes: ['users'],
      group: 'users',
      sweeps: ['users'],
      mapper: () => userMapper(),
    },
    {
      name: 'services',
      label: 'Services',
      columns: SERVICE_COLUMNS,
      required: ['id|serviceName'],
      signature: ['serviceName', 'description', 'category', 'owner', 'status'],
      minSignature: 3,
      excludes: ['Request ID', 'Asset Tag', 'Email', 'Email ID', 'Subject'],
      writes: ['services'],
      group: 'services',
      sweeps: ['services'],
      mapper: () => serviceMapper(),
    },
  ];
}
