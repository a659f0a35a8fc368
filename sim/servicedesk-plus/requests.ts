// Requests (incidents and service requests) as the v3 API returns them.
import type { Estate } from '../shared/estate.ts';
import type { SdpDataset } from './data.ts';
import { pick, timeObj, unit } from './generators.ts';
import { type Flavour, idOf, type Json } from './kinds.ts';
import {
  CATEGORIES,
  GROUPS,
  IMPACTS,
  LEVELS,
  MODES,
  PRIORITIES,
  REQUEST_TYPES,
  ref,
  refId,
  SERVICE_CATEGORY_NAMES,
  SITES,
  STATUSES,
  SUBJECTS,
  URGENCIES,
} from './reference-data.ts';
import { userRef } from './users.ts';

function technicianIndex(data: SdpDataset, i: number, salt: string): number | null {
  const t = data.count('technicians');
  if (t === 0 || unit(data.seed, 'requests', i, salt, 'null') < 0.15) return null;
  return Math.floor(unit(data.seed, 'requests', i, salt) * t);
}

function requesterRef(data: SdpDataset, i: number, flavour: Flavour): Json | null {
  const r = data.count('requesters');
  if (r === 0) return null;
  return userRef(data, 'requesters', Math.floor(unit(data.seed, 'requests', i, 'requester') * r), flavour);
}

export function requestRecord(data: SdpDataset, i: number, flavour: Flavour): Json {
  const s = data.seed;
  const rev = data.rev('requests', i);
  const created = data.createdAt('requests', i);
  const lut = data.updatedAt('requests', i);
  const status = pick(STATUSES, s, 'requests', i, 'status', rev);
  const type = pick(REQUEST_TYPES, s, 'requests', i, 'type');
  const cat = pick(CATEGORIES, s, 'requests', i, 'cat');
  const sub =
    unit(s, 'requests', i, 'sub?') < 0.3 ? null : { id: refId(flavour, String(Number(cat.id) * 10 + 1)), name: pick(cat.subs, s, 'requests', i, 'sub') };
  const techIdx = technicianIndex(data, i, `tech${rev}`);
  const tech = techIdx === null ? null : userRef(data, 'technicians', techIdx, flavour);
  const requester = requesterRef(data, i, flavour);
  const creator = data.count('technicians') > 0 ? userRef(data, 'technicians', 0, flavour) : requester;
  const group =
    unit(s, 'requests', i, 'group?', rev) < 0.3 ? null : { ...ref(flavour, pick(GROUPS, s, 'requests', i, 'group', rev)), site: null, deleted: false };
  const site = unit(s, 'requests', i, 'site?') < 0.2 ? null : ref(flavour, pick(SITES, s, 'requests', i, 'site'));
  const closed = status.name === 'Resolved' || status.name === 'Closed';
  const resolved = closed ? Math.min(lut ?? data.now - 1, created + Math.floor(unit(s, 'requests', i, 'resolved') * 5 * 24 * 3600_000)) : null;
  const due = unit(s, 'requests', i, 'due?') < 0.25 ? null : created + 8 * 3600_000 + Math.floor(unit(s, 'requests', i, 'due') * 48 * 3600_000);
  const serviceReq = type.name === 'Service Request';
  const svcCount = data.count('service_categories');
  const svc = serviceReq && svcCount > 0 ? Math.floor(unit(s, 'requests', i, 'svc') * svcCount) : null;
  const subject = `${pick(SUBJECTS, s, 'requests', i, 'subject')}${rev ? ` (update ${rev})` : ''}`;
  const statusRef: Json = flavour === 'cloud' ? { ...status, id: refId(flavour, status.id) } : { color: status.color, name: status.name, id: status.id };
  const rec: Json = {
    ola_due_by_time: null,
    subject,
    resolution: { resolution_attachments: [], content: closed ? 'Fixed.' : null },
    linked_to_request: null,
    onhold_time: null,
    mode: ref(flavour, pick(MODES, s, 'requests', i, 'mode')),
    is_read: true,
    lifecycle: null,
    reason_for_cancel: null,
    assets: [],
    is_trashed: false,
    id: idOf('requests', i, flavour),
    assigned_time: tech ? timeObj(created + 60_000) : null,
    group,
    requester,
    cancel_requested_by: null,
    email_to: [],
    created_time: timeObj(created),
    item: null,
    level: ref(flavour, pick(LEVELS, s, 'requests', i, 'level')),
    has_resolution_attachments: false,
    approval_status: null,
    impact: ref(flavour, pick(IMPACTS, s, 'requests', i, 'impact')),
    service_category: svc === null ? null : { name: SERVICE_CATEGORY_NAMES[svc % SERVICE_CATEGORY_NAMES.length], id: idOf('service_categories', svc, flavour) },
    sla: { name: 'Normal SLA', id: refId(flavour, '2') },
    priority: unit(s, 'requests', i, 'prio?') < 0.1 ? null : ref(flavour, pick(PRIORITIES, s, 'requests', i, 'prio', rev), ['color']),
    created_by: creator,
    scheduled_end_time: null,
    tags: [],
    first_response_due_by_time: null,
    last_updated_time: timeObj(lut),
    has_notes: false,
    udf_fields: flavour === 'cloud' ? { udf_char1: null } : {},
    impact_details: null,
    subcategory: sub,
    email_cc: [],
    status: statusRef,
    scheduled_start_time: null,
    template: serviceReq
      ? { is_service_template: true, service_category: null, name: 'New Hardware Request', id: refId(flavour, '7') }
      : { is_service_template: false, service_category: null, name: 'Default Request', id: refId(flavour, '1') },
    email_ids_to_notify: [],
    request_type: ref(flavour, type),
    description: `<div>${subject}</div>`,
    is_service_request: serviceReq,
    urgency: ref(flavour, pick(URGENCIES, s, 'requests', i, 'urgency')),
    cancel_requested: false,
    department: requester ? (requester.department ?? null) : null,
    is_reopened: false,
    has_attachments: false,
    is_overdue: due !== null && !closed && due < data.now,
    technician: tech,
    due_by_time: timeObj(due),
    resolved_time: timeObj(resolved),
    completed_time: status.name === 'Closed' ? timeObj(resolved) : null,
    site,
    is_first_response_overdue: false,
    cancel_requested_is_pending: false,
    short_description: subject.slice(0, 100),
    time_elapsed: null,
    response_time_elapsed: null,
    category: ref(flavour, cat),
  };
  if (flavour === 'cloud') rec.display_id = String(1000 + i);
  return data.estate ? estateRequest(data, data.estate, rec, i, flavour) : rec;
}

/** A request about an estate: associated with one of its assets, naming a host and a CVE in the text. */
function estateRequest(data: SdpDataset, estate: Estate, rec: Json, i: number, flavour: Flavour): Json {
  const about = estate.request(i, data.estateCves);
  const cmdb = estate.cmdb();
  const assets =
    about.asset !== null && data.exists('assets', about.asset) ? [{ id: idOf('assets', about.asset, flavour), name: cmdb[about.asset]!.name }] : [];
  let subject = String(rec.subject);
  const notes: string[] = [];
  if (about.cve) subject = `Patch ${about.cve}${about.namesHost !== null ? ` on ${estate.scannerName(about.namesHost)}` : ''}`;
  else if (about.namesHost !== null) notes.push(`Seen on ${estate.scannerName(about.namesHost)} (${estate.machine(about.namesHost).ip}).`);
  return {
    ...rec,
    subject,
    short_description: subject.slice(0, 100),
    description: `<div>${subject}</div>${notes.map((n) => `<div>${n}</div>`).join('')}`,
    assets,
  };
}

/** The reduced field set list rows carry by default (as the recorded on-prem list shows). */
export const REQUEST_LIST_FIELDS = [
  'requester',
  'template',
  'short_description',
  'created_time',
  'subject',
  'time_elapsed',
  'is_overdue',
  'technician',
  'priority',
  'created_by',
  'due_by_time',
  'response_time_elapsed',
  'site',
  'is_service_request',
  'cancel_requested_is_pending',
  'cancel_requested',
  'id',
  'status',
  'group',
];
