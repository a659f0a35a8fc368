// The simulator's data set: every record is a pure function of (seed, kind, index, revision), so nothing
// is materialised up front. Mutations between syncs (updates, creations, deletions) live in small
// overlays; sort orders are typed arrays rebuilt only after a mutation.

export type Flavour = 'cloud' | 'onprem';

export const KINDS = [
  'requests',
  'assets',
  'technicians',
  'requesters',
  'service_categories',
  'ci_computer',
  'ci_database',
  'ci_business_service',
] as const;
export type KindName = (typeof KINDS)[number];

export function isKind(s: string): s is KindName {
  return (KINDS as readonly string[]).includes(s);
}

export interface DataOptions {
  seed: number;
  /** Epoch ms the generated history ends at. */
  now: number;
  counts: Record<KindName, number>;
}

// ---------- deterministic randomness ----------

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function hashOf(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  const s = parts.join('\u0001');
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix(h);
}

const unit = (...parts: (string | number)[]): number => hashOf(...parts) / 4294967296;
const pick = <T>(list: readonly T[], ...parts: (string | number)[]): T => list[Math.floor(unit(...parts) * list.length)]!;

// ---------- ids ----------

const KIND_CODE: Record<KindName, number> = {
  requests: 10,
  assets: 20,
  technicians: 30,
  requesters: 31,
  service_categories: 40,
  ci_computer: 51,
  ci_database: 52,
  ci_business_service: 53,
};
/** On-prem ids are small integers; users and technicians share one id space like the real users table. */
const ONPREM_BASE: Record<KindName, number> = {
  requests: 1,
  assets: 301,
  technicians: 4,
  requesters: 1004,
  service_categories: 1,
  ci_computer: 10001,
  ci_database: 20001,
  ci_business_service: 30001,
};

export function idOf(kind: KindName, i: number, flavour: Flavour): string {
  if (flavour === 'onprem') return String(ONPREM_BASE[kind] + i);
  return `12364000${KIND_CODE[kind]}${String(i).padStart(8, '0')}`;
}

/** Index of an id in either flavour, or -1. */
export function indexOf(kind: KindName, id: string): number {
  const cloud = /^12364000(\d\d)(\d{8})$/.exec(id);
  if (cloud) return Number(cloud[1]) === KIND_CODE[kind] ? Number(cloud[2]) : -1;
  if (!/^\d{1,9}$/.test(id)) return -1;
  return Number(id) - ONPREM_BASE[kind];
}

/** Ids of reference data (statuses, priorities…): small on-prem, long on cloud. */
function refId(flavour: Flavour, id: string): string {
  return flavour === 'onprem' ? id : `1236400000000${id.padStart(5, '0')}`;
}

// ---------- reference data ----------

const STATUSES = [
  { id: '2', name: 'Open', color: '#0066ff', internal_name: 'Open', in_progress: true, stop_timer: false },
  { id: '1', name: 'On Hold', color: '#ff9900', internal_name: 'Onhold', in_progress: true, stop_timer: true },
  { id: '3', name: 'Resolved', color: '#00cc66', internal_name: 'Resolved', in_progress: false, stop_timer: true },
  { id: '4', name: 'Closed', color: '#006600', internal_name: 'Closed', in_progress: false, stop_timer: true },
  { id: '5', name: 'Canceled', color: '#999999', internal_name: 'Canceled', in_progress: false, stop_timer: true },
];
const PRIORITIES = [
  { id: '1', name: 'Low', color: '#666666' },
  { id: '2', name: 'Normal', color: '#006600' },
  { id: '3', name: 'Medium', color: '#ff9900' },
  { id: '4', name: 'High', color: '#ff0000' },
];
const REQUEST_TYPES = [
  { id: '1', name: 'Incident' },
  { id: '2', name: 'Request For Information' },
  { id: '3', name: 'Service Request' },
];
const MODES = [
  { id: '1', name: 'E-Mail' },
  { id: '2', name: 'Web Form' },
  { id: '3', name: 'Phone Call' },
];
const LEVELS = [1, 2, 3, 4].map((n) => ({ id: String(n), name: `Tier ${n}` }));
const URGENCIES = [
  { id: '1', name: 'Urgent' },
  { id: '2', name: 'High' },
  { id: '3', name: 'Normal' },
  { id: '4', name: 'Low' },
];
const IMPACTS = [
  { id: '1', name: 'High' },
  { id: '2', name: 'Medium' },
  { id: '3', name: 'Low' },
  { id: '4', name: 'Affects Group' },
];
const CATEGORIES = [
  { id: '1', name: 'Hardware', subs: ['Monitor', 'Keyboard', 'Laptop'] },
  { id: '2', name: 'Network', subs: ['VPN', 'Wi-Fi', 'Firewall'] },
  { id: '3', name: 'Software', subs: ['MS Office', 'Browser', 'ERP'] },
  { id: '4', name: 'Access', subs: ['Password Reset', 'New Account'] },
];
const GROUPS = [
  { id: '1', name: 'Network' },
  { id: '2', name: 'Hardware Problems' },
  { id: '3', name: 'Service Desk' },
];
const SITES = [
  { id: '301', name: 'Test Site' },
  { id: '302', name: 'HQ' },
  { id: '303', name: 'Branch Office' },
];
const DEPARTMENTS = ['Finance', 'Engineering', 'Sales', 'IT', 'Human Resources'];
const SERVICE_CATEGORY_NAMES = [
  'User Management',
  'Communication',
  'Data Management',
  'Hardware',
  'Software',
  'Facilities',
  'Access Management',
  'Network Services',
];
const SUBJECTS = [
  'VPN drops every hour',
  'Request about monitor',
  'Cannot print to 3F printer',
  'Outlook keeps asking for password',
  'New laptop for onboarding',
  'Wi-Fi slow in meeting room',
  'ERP report fails',
  'Access to shared drive',
  'Server disk almost full',
  'Phone headset broken',
];
const FIRST = ['Ana', 'Bo', 'Chen', 'Dara', 'Eli', 'Farah', 'Gus', 'Hana', 'Ivo', 'Jun', 'Kai', 'Lena', 'Mo', 'Nia', 'Omar', 'Pia'];
const LAST = ['Ruiz', 'Chen', 'Okafor', 'Smith', 'Novak', 'Haddad', 'Kim', 'Berg', 'Rossi', 'Tanaka', 'Silva', 'Moreau'];
const PRODUCT_TYPES = [
  { id: '14', name: 'Laptop', internal_name: 'Laptop', products: ['Latitude 7440', 'ThinkPad T14', 'MacBook Pro 14'], makers: ['Dell', 'Lenovo', 'Apple'] },
  { id: '15', name: 'Workstation', internal_name: 'Workstation', products: ['OptiPlex 7010', 'ThinkCentre M90'], makers: ['Dell', 'Lenovo'] },
  { id: '16', name: 'Server', internal_name: 'Server', products: ['PowerEdge R650', 'ProLiant DL380'], makers: ['Dell', 'HPE'] },
  { id: '17', name: 'Monitor', internal_name: 'Monitor', products: ['U2723QE', 'P27h'], makers: ['Dell', 'Lenovo'] },
  { id: '18', name: 'Keyboard', internal_name: 'Keyboard', products: ['keyboardMC', 'K120'], makers: ['Microsoft', 'Logitech'] },
];
const ASSET_STATES = [
  { id: '2', name: 'In Use' },
  { id: '1', name: 'In Store' },
  { id: '3', name: 'In Repair' },
  { id: '5', name: 'Disposed' },
];

export const CI_TYPES: { kind: KindName; id: string; name: string; api_name: string; api_plural_name: string }[] = [
  { kind: 'ci_computer', id: '101', name: 'Computer', api_name: 'ci_computer', api_plural_name: 'ci_computers' },
  { kind: 'ci_database', id: '102', name: 'Database', api_name: 'ci_database', api_plural_name: 'ci_databases' },
  { kind: 'ci_business_service', id: '103', name: 'Business Service', api_name: 'ci_business_service', api_plural_name: 'ci_business_services' },
];

// ---------- time ----------

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `{display_value, value}` with the value as epoch ms in a string, display like "Aug 3, 2022 01:11 AM" (UTC). */
export function timeObj(ms: number | null): { display_value: string; value: string } | null {
  if (ms === null) return null;
  const d = new Date(ms);
  const h = d.getUTCHours();
  const hh = String(h % 12 === 0 ? 12 : h % 12).padStart(2, '0');
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return { display_value: `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${hh}:${mm} ${h < 12 ? 'AM' : 'PM'}`, value: String(ms) };
}

const SPAN_MS = 180 * 24 * 3600_000;

// ---------- the data set ----------

interface KindState {
  baseCount: number;
  /** created time of records appended after start, by index - baseCount. */
  appended: number[];
  updates: Map<number, { lut: number; rev: number }>;
  deleted: Set<number>;
  orders: Map<string, Int32Array>;
}

export type Json = Record<string, unknown>;

export class SdpDataset {
  readonly seed: number;
  readonly now: number;
  readonly #kinds = new Map<KindName, KindState>();
  #clock = 0;

  constructor(opts: DataOptions) {
    this.seed = opts.seed;
    this.now = opts.now;
    for (const k of KINDS) this.#kinds.set(k, { baseCount: opts.counts[k], appended: [], updates: new Map(), deleted: new Set(), orders: new Map() });
  }

  #k(kind: KindName): KindState {
    return this.#kinds.get(kind)!;
  }

  count(kind: KindName): number {
    const k = this.#k(kind);
    return k.baseCount + k.appended.length;
  }

  exists(kind: KindName, i: number): boolean {
    return i >= 0 && i < this.count(kind) && !this.#k(kind).deleted.has(i);
  }

  /** A mutation time strictly after every timestamp handed out so far. */
  #tick(): number {
    this.#clock = Math.max(Date.now(), this.#clock + 1, this.now + 1);
    return this.#clock;
  }

  createdAt(kind: KindName, i: number): number {
    const k = this.#k(kind);
    if (i >= k.baseCount) return k.appended[i - k.baseCount]!;
    const step = SPAN_MS / Math.max(1, k.baseCount);
    return Math.floor(this.now - SPAN_MS + step * (i + 0.9 * unit(this.seed, kind, i, 'created')));
  }

  /** last_updated_time (ms) or null for never-edited requests (as on-prem shows). */
  updatedAt(kind: KindName, i: number): number | null {
    const k = this.#k(kind);
    const u = k.updates.get(i);
    if (u) return u.lut;
    const created = this.createdAt(kind, i);
    if (i >= k.baseCount) return created;
    if (kind === 'service_categories') return null;
    if (kind === 'requests' && unit(this.seed, kind, i, 'never-edited') < 0.08) return null;
    return created + Math.floor(unit(this.seed, kind, i, 'edited') * Math.min(20 * 24 * 3600_000, Math.max(0, this.now - 1 - created)));
  }

  rev(kind: KindName, i: number): number {
    return this.#k(kind).updates.get(i)?.rev ?? 0;
  }

  update(kind: KindName, indexes: number[]): number[] {
    const k = this.#k(kind);
    const done: number[] = [];
    for (const i of indexes) {
      if (!this.exists(kind, i)) continue;
      k.updates.set(i, { lut: this.#tick(), rev: (k.updates.get(i)?.rev ?? 0) + 1 });
      done.push(i);
    }
    k.orders.clear();
    return done;
  }

  /** Picks `n` existing records deterministically (for "update N records"). */
  sample(kind: KindName, n: number, salt: number): number[] {
    const total = this.count(kind);
    const out: number[] = [];
    for (let j = 0; out.length < Math.min(n, total - this.#k(kind).deleted.size) && j < total * 4; j++) {
      const i = Math.floor(unit(this.seed, kind, 'sample', salt, j) * total);
      if (this.exists(kind, i) && !out.includes(i)) out.push(i);
    }
    return out;
  }

  create(kind: KindName, n: number): number[] {
    const k = this.#k(kind);
    const out: number[] = [];
    for (let j = 0; j < n; j++) {
      k.appended.push(this.#tick());
      out.push(k.baseCount + k.appended.length - 1);
    }
    k.orders.clear();
    return out;
  }

  delete(kind: KindName, indexes: number[]): number[] {
    const k = this.#k(kind);
    const done = indexes.filter((i) => this.exists(kind, i));
    for (const i of done) k.deleted.add(i);
    k.orders.clear();
    return done;
  }

  /** Existing indexes sorted by a field (nulls first when ascending, like SQL), ties by index. */
  order(kind: KindName, field: string, dir: 'asc' | 'desc'): Int32Array {
    const k = this.#k(kind);
    const key = `${field}:${dir}`;
    const cached = k.orders.get(key);
    if (cached) return cached;
    const total = this.count(kind);
    const idx = new Int32Array(total - k.deleted.size);
    let n = 0;
    for (let i = 0; i < total; i++) if (!k.deleted.has(i)) idx[n++] = i;
    if (field !== 'id') {
      const vals = new Float64Array(total);
      for (let i = 0; i < total; i++) {
        if (k.deleted.has(i)) continue;
        const v = this.sortValue(kind, i, field);
        vals[i] = v === null ? Number.NEGATIVE_INFINITY : v;
      }
      idx.sort((a, b) => vals[a]! - vals[b]! || a - b);
    }
    if (dir === 'desc') idx.reverse();
    k.orders.set(key, idx);
    return idx;
  }

  sortValue(kind: KindName, i: number, field: string): number | null {
    if (field === 'last_updated_time') return this.updatedAt(kind, i);
    if (field === 'created_time') return this.createdAt(kind, i);
    return i;
  }

  // ---------- record builders ----------

  #user(kind: 'technicians' | 'requesters', i: number, flavour: Flavour): Json {
    const first = pick(FIRST, this.seed, kind, i, 'first');
    const last = pick(LAST, this.seed, kind, i, 'last');
    const name = kind === 'technicians' && i === 0 ? 'administrator' : `${first} ${last}`;
    const email = kind === 'technicians' && i === 0 ? null : `${first}.${last}${i}@example.com`.toLowerCase();
    const dept = this.#department(kind, i, flavour);
    const vip = unit(this.seed, kind, i, 'vip') < 0.05;
    return {
      email_id: email,
      phone: unit(this.seed, kind, i, 'phone') < 0.7 ? `+1 555 ${String(1000 + (i % 9000))}` : null,
      name,
      mobile: unit(this.seed, kind, i, 'mobile') < 0.4 ? `+1 555 ${String(2000 + (i % 7000))}` : null,
      ...(flavour === 'onprem' ? { is_vipuser: vip } : { is_vip_user: vip, is_technician: kind === 'technicians' }),
      id: idOf(kind, i, flavour),
      department: dept,
      first_name: kind === 'technicians' && i === 0 ? 'administrator' : first,
      last_name: kind === 'technicians' && i === 0 ? null : last,
    };
  }

  #department(kind: string, i: number, flavour: Flavour): Json | null {
    if (unit(this.seed, kind, i, 'dept?') < 0.2) return null;
    const d = Math.floor(unit(this.seed, kind, i, 'dept') * DEPARTMENTS.length);
    const site = SITES[d % SITES.length]!;
    return { id: refId(flavour, String(13 + d)), name: DEPARTMENTS[d], site: { id: refId(flavour, site.id), name: site.name } };
  }

  /** A user reference as embedded in requests and assets. */
  userRef(kind: 'technicians' | 'requesters', i: number, flavour: Flavour): Json {
    const u = this.#user(kind, i, flavour);
    const { first_name: _f, last_name: _l, ...ref } = u;
    if (flavour === 'cloud') ref.photo_url = `https://contacts.zoho.com/file?ID=${u.id}&fs=thumb`;
    return ref;
  }

  #ref<T extends { id: string; name: string }>(flavour: Flavour, r: T, extra: (keyof T)[] = []): Json {
    const out: Json = { name: r.name, id: refId(flavour, r.id) };
    for (const k of extra) out[k as string] = r[k];
    return out;
  }

  userRecord(kind: 'technicians' | 'requesters', i: number, flavour: Flavour): Json {
    const u = this.#user(kind, i, flavour);
    const rev = this.rev(kind, i);
    const disabled = unit(this.seed, kind, i, 'disabled', rev) < 0.06;
    const job = pick(['Analyst', 'Engineer', 'Manager', 'Accountant', 'Technician', null], this.seed, kind, i, 'job');
    const base: Json = {
      ...u,
      employee_id: `E-${1000 + i}`,
      description: null,
      reporting_to: null,
      created_time: timeObj(this.createdAt(kind, i)),
      last_updated_time: timeObj(this.updatedAt(kind, i)),
    };
    if (flavour === 'onprem') {
      return { ...base, jobtitle: job, type: kind === 'technicians' ? 'Technician' : 'User', citype: { name: 'User', id: '3' }, cost_per_hour: '0', org_user_status: disabled ? 'DISABLED' : 'ACTIVE', is_technician: kind === 'technicians', purchase_approver: false, service_request_approver: false, profile_pic_url: null, ci_default_fields: {} };
    }
    return { ...base, job_title: job, site: u.department ? (u.department as Json).site : null, udf_fields: {}, status: disabled ? 'INACTIVE' : 'ACTIVE', ...(kind === 'technicians' ? { cost_per_hour: '0', sms_mail_id: null } : {}) };
  }

  #technicianIndex(i: number, salt: string): number | null {
    const t = this.count('technicians');
    if (t === 0 || unit(this.seed, 'requests', i, salt, 'null') < 0.15) return null;
    return Math.floor(unit(this.seed, 'requests', i, salt) * t);
  }

  #requesterRef(i: number, flavour: Flavour): Json | null {
    const r = this.count('requesters');
    if (r === 0) return null;
    return this.userRef('requesters', Math.floor(unit(this.seed, 'requests', i, 'requester') * r), flavour);
  }

  requestRecord(i: number, flavour: Flavour): Json {
    const s = this.seed;
    const rev = this.rev('requests', i);
    const created = this.createdAt('requests', i);
    const lut = this.updatedAt('requests', i);
    const status = pick(STATUSES, s, 'requests', i, 'status', rev);
    const type = pick(REQUEST_TYPES, s, 'requests', i, 'type');
    const cat = pick(CATEGORIES, s, 'requests', i, 'cat');
    const sub = unit(s, 'requests', i, 'sub?') < 0.3 ? null : { id: refId(flavour, String(Number(cat.id) * 10 + 1)), name: pick(cat.subs, s, 'requests', i, 'sub') };
    const techIdx = this.#technicianIndex(i, `tech${rev}`);
    const tech = techIdx === null ? null : this.userRef('technicians', techIdx, flavour);
    const requester = this.#requesterRef(i, flavour);
    const creator = this.count('technicians') > 0 ? this.userRef('technicians', 0, flavour) : requester;
    const group = unit(s, 'requests', i, 'group?', rev) < 0.3 ? null : { ...this.#ref(flavour, pick(GROUPS, s, 'requests', i, 'group', rev)), site: null, deleted: false };
    const site = unit(s, 'requests', i, 'site?') < 0.2 ? null : this.#ref(flavour, pick(SITES, s, 'requests', i, 'site'));
    const closed = status.name === 'Resolved' || status.name === 'Closed';
    const resolved = closed ? Math.min(lut ?? this.now - 1, created + Math.floor(unit(s, 'requests', i, 'resolved') * 5 * 24 * 3600_000)) : null;
    const due = unit(s, 'requests', i, 'due?') < 0.25 ? null : created + 8 * 3600_000 + Math.floor(unit(s, 'requests', i, 'due') * 48 * 3600_000);
    const serviceReq = type.name === 'Service Request';
    const svcCount = this.count('service_categories');
    const svc = serviceReq && svcCount > 0 ? Math.floor(unit(s, 'requests', i, 'svc') * svcCount) : null;
    const subject = `${pick(SUBJECTS, s, 'requests', i, 'subject')}${rev ? ` (update ${rev})` : ''}`;
    const statusRef: Json = flavour === 'cloud' ? { ...status, id: refId(flavour, status.id) } : { color: status.color, name: status.name, id: status.id };
    const rec: Json = {
      ola_due_by_time: null,
      subject,
      resolution: { resolution_attachments: [], content: closed ? 'Fixed.' : null },
      linked_to_request: null,
      onhold_time: null,
      mode: this.#ref(flavour, pick(MODES, s, 'requests', i, 'mode')),
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
      level: this.#ref(flavour, pick(LEVELS, s, 'requests', i, 'level')),
      has_resolution_attachments: false,
      approval_status: null,
      impact: this.#ref(flavour, pick(IMPACTS, s, 'requests', i, 'impact')),
      service_category: svc === null ? null : { name: SERVICE_CATEGORY_NAMES[svc % SERVICE_CATEGORY_NAMES.length], id: idOf('service_categories', svc, flavour) },
      sla: { name: 'Normal SLA', id: refId(flavour, '2') },
      priority: unit(s, 'requests', i, 'prio?') < 0.1 ? null : this.#ref(flavour, pick(PRIORITIES, s, 'requests', i, 'prio', rev), ['color']),
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
      request_type: this.#ref(flavour, type),
      description: `<div>${subject}</div>`,
      is_service_request: serviceReq,
      urgency: this.#ref(flavour, pick(URGENCIES, s, 'requests', i, 'urgency')),
      cancel_requested: false,
      department: requester ? (requester.department ?? null) : null,
      is_reopened: false,
      has_attachments: false,
      is_overdue: due !== null && !closed && due < this.now,
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
      category: this.#ref(flavour, cat),
    };
    if (flavour === 'cloud') rec.display_id = String(1000 + i);
    return rec;
  }

  /** The reduced field set list rows carry by default (as the recorded on-prem list shows). */
  static readonly REQUEST_LIST_FIELDS = [
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

  assetRecord(i: number, flavour: Flavour): Json {
    const s = this.seed;
    const rev = this.rev('assets', i);
    const pt = pick(PRODUCT_TYPES, s, 'assets', i, 'pt');
    const pIdx = Math.floor(unit(s, 'assets', i, 'product') * pt.products.length);
    const maker = pt.makers[pIdx % pt.makers.length]!;
    const state = pick(ASSET_STATES, s, 'assets', i, 'state', rev);
    const userCount = this.count('requesters');
    const assigned = state.name === 'In Use' && userCount > 0 ? this.userRef('requesters', Math.floor(unit(s, 'assets', i, 'user', rev) * userCount), flavour) : null;
    const networked = pt.name !== 'Monitor' && pt.name !== 'Keyboard';
    const ip = networked ? `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${(i & 255) + 1}` : null;
    const serial = unit(s, 'assets', i, 'serial?') < 0.1 ? null : hashOf(s, 'assets', i, 'serial').toString(36).toUpperCase().padStart(7, 'X');
    const site = unit(s, 'assets', i, 'site?') < 0.3 ? null : this.#ref(flavour, pick(SITES, s, 'assets', i, 'site'));
    return {
      id: idOf('assets', i, flavour),
      name: `${pt.name === 'Laptop' ? 'LT' : pt.name === 'Server' ? 'SRV' : pt.name.slice(0, 3).toUpperCase()}-${String(i).padStart(4, '0')}`,
      asset_tag: unit(s, 'assets', i, 'tag?') < 0.15 ? null : `A-${10000 + i}`,
      org_serial_number: serial,
      serial_number: serial,
      barcode: null,
      product: { id: refId(flavour, String(Number(pt.id) * 10 + pIdx)), name: pt.products[pIdx], manufacturer: maker, product_type: { id: refId(flavour, pt.id) }, part_no: null },
      product_type: { id: refId(flavour, pt.id), name: pt.name, internal_name: pt.internal_name, type: { id: refId(flavour, '1'), name: 'Asset' } },
      type: { id: refId(flavour, '1'), name: 'Asset' },
      state: { id: refId(flavour, state.id), name: state.name, is_scan_required: networked, is_ownership_mandatory: false },
      user: assigned,
      department: assigned ? (assigned.department ?? null) : null,
      site,
      vendor: unit(s, 'assets', i, 'vendor?') < 0.5 ? null : { id: refId(flavour, '3'), name: `${maker} Direct` },
      manufacturer: maker,
      ip_addresses: ip,
      primary_ip: ip,
      mac_addresses: networked ? [0, 1, 2, 3, 4, 5].map((b) => ((hashOf(s, 'mac', i, b) & 255) | (b === 0 ? 2 : 0)).toString(16).padStart(2, '0')).join(':') : null,
      location: unit(s, 'assets', i, 'loc?') < 0.5 ? null : `Floor ${1 + (i % 5)}`,
      acquisition_date: timeObj(this.createdAt('assets', i) - 30 * 24 * 3600_000),
      warranty_expiry: unit(s, 'assets', i, 'warranty?') < 0.4 ? null : timeObj(this.createdAt('assets', i) + 3 * 365 * 24 * 3600_000),
      expiry_date: null,
      last_scan_time: networked ? timeObj(this.updatedAt('assets', i)) : null,
      last_success_audit: null,
      created_time: timeObj(this.createdAt('assets', i)),
      last_updated_time: timeObj(this.updatedAt('assets', i)),
      purchase_cost: 1200,
      current_cost: 800,
      total_cost: 1200,
      is_loaned: false,
      loan_end: null,
      is_personal: false,
      description: null,
      udf_fields: flavour === 'cloud' ? { udf_char1: null } : {},
    };
  }

  ciRecord(kind: KindName, i: number, flavour: Flavour): Json {
    const s = this.seed;
    const type = CI_TYPES.find((t) => t.kind === kind)!;
    const rev = this.rev(kind, i);
    const owner = this.count('technicians') > 0 ? this.userRef('technicians', Math.floor(unit(s, kind, i, 'owner') * this.count('technicians')), flavour) : null;
    const base: Json = {
      id: idOf(kind, i, flavour),
      name: '',
      description: null,
      ci_type: { id: refId(flavour, type.id), name: type.name, api_name: type.api_name },
      site: unit(s, kind, i, 'site?') < 0.4 ? null : this.#ref(flavour, pick(SITES, s, kind, i, 'site')),
      created_by: owner,
      created_time: timeObj(this.createdAt(kind, i)),
      last_updated_by: owner,
      last_updated_time: timeObj(this.updatedAt(kind, i)),
    };
    if (kind === 'ci_computer') {
      return {
        ...base,
        name: `ws-${String(i).padStart(4, '0')}.corp.example`,
        txt_ip_address: `10.20.${(i >> 8) & 255}.${(i & 255) + 1}`,
        txt_mac_address: [0, 1, 2, 3, 4, 5].map((b) => (hashOf(s, 'cimac', i, b) & 254).toString(16).padStart(2, '0')).join(':'),
        txt_os: pick(['Windows 11 Enterprise', 'Ubuntu 24.04', 'macOS 15'], s, kind, i, 'os', rev),
        txt_serial_number: hashOf(s, kind, i, 'serial').toString(36).toUpperCase(),
        txt_manufacturer: pick(['Dell', 'Lenovo', 'HP'], s, kind, i, 'maker'),
        num_processor_count: 1 + (i % 4),
        date_last_audit: timeObj(this.updatedAt(kind, i)),
      };
    }
    if (kind === 'ci_database') {
      return {
        ...base,
        name: `db-${pick(['erp', 'crm', 'hr', 'billing'], s, kind, i, 'db')}-${i}`,
        txt_version: pick(['PostgreSQL 16', 'SQL Server 2022', 'Oracle 19c'], s, kind, i, 'ver', rev),
        txt_port: String(5432 + (i % 3)),
        txt_ip_address: `10.30.${(i >> 8) & 255}.${(i & 255) + 1}`,
      };
    }
    return {
      ...base,
      name: `${pick(['Email', 'Payroll', 'VPN', 'Intranet', 'CRM', 'Backup'], s, kind, i, 'svc')} Service ${i}`,
      description: 'Business service',
      managed_by: owner,
      ref_business_impact: { id: refId(flavour, '1'), name: pick(['High', 'Medium', 'Low'], s, kind, i, 'impact') },
      txt_availability: pick(['99.9%', '99.5%'], s, kind, i, 'sla'),
      status: { id: refId(flavour, '1'), name: pick(['Active', 'Active', 'Retired'], s, kind, i, 'status', rev) },
    };
  }

  serviceCategoryRecord(i: number, flavour: Flavour): Json {
    const name = SERVICE_CATEGORY_NAMES[i % SERVICE_CATEGORY_NAMES.length]!;
    return {
      id: idOf('service_categories', i, flavour),
      name: i < SERVICE_CATEGORY_NAMES.length ? name : `${name} ${Math.floor(i / SERVICE_CATEGORY_NAMES.length) + 1}`,
      description: unit(this.seed, 'svc', i, 'desc?') < 0.3 ? null : `Requests about ${name.toLowerCase()}`,
      deleted: this.rev('service_categories', i) % 2 === 1,
    };
  }

  record(kind: KindName, i: number, flavour: Flavour): Json {
    switch (kind) {
      case 'requests':
        return this.requestRecord(i, flavour);
      case 'assets':
        return this.assetRecord(i, flavour);
      case 'technicians':
      case 'requesters':
        return this.userRecord(kind, i, flavour);
      case 'service_categories':
        return this.serviceCategoryRecord(i, flavour);
      default:
        return this.ciRecord(kind, i, flavour);
    }
  }
}
