// The write half of the SDP API v3 stand-in: add a request (POST /requests), edit it (PUT /requests/{id}),
// add and list its notes (/requests/{id}/notes), as the vendor documents them: a form-encoded
// `input_data` JSON, mandatory fields answered 4012 with the field, unknown values 4001, unknown keys
// EXTRA_KEY_FOUND_IN_JSON, missing requests 4007, single-record envelopes with an object response_status.
// Written requests live beside the generated ones (GET by id and text searches find them); a person's
// own edits (closing a request in the UI, editing its subject) come through `setStatus` and `personEdit`.
// Variants kept from the fact sheet and the vendor's pages: the note's wrapper key is `request_note` in the
// cloud documentation and `note` in the on-premises one (both accepted on both); the HTTP status of a
// created record (201 here; the fact sheet gives 200/201); whether resolving requires a resolution is a
// tenant setting (`requireResolution`, default on).
import type { ApiAnswer } from './api.ts';
import { sdpError } from './api.ts';
import { timeObj } from './generators.ts';
import type { Flavour, Json } from './kinds.ts';
import { CATEGORIES, GROUPS, IMPACTS, LEVELS, MODES, PRIORITIES, REQUEST_TYPES, SITES, STATUSES, URGENCIES } from './reference-data.ts';

export const SUBJECT_MAX = 250;

/** What a write call is, for scope and role checks. */
export type WriteOp = 'create' | 'update' | 'note' | 'notes-read';

/** Cloud scopes that grant a write operation on requests (`ALL` grants all). */
export const WRITE_SCOPES: Record<WriteOp, string[]> = {
  create: ['CREATE'],
  update: ['UPDATE'],
  // Which operation adding a note needs is not documented (UNCERTAIN): either is accepted.
  note: ['CREATE', 'UPDATE'],
  'notes-read': ['READ'],
};

/** On-prem role permissions a write needs (the technician key inherits its technician's role). */
export interface KeyRole {
  addRequests: boolean;
  editRequests: boolean;
}

export interface WriteRoute {
  op: WriteOp;
  id?: string;
}

/** A write path of requests, or null (then the read router answers). */
export function writeRoute(method: string, path: string): WriteRoute | null {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] !== 'requests') return null;
  if (method === 'POST' && parts.length === 1) return { op: 'create' };
  if (method === 'PUT' && parts.length === 2) return { op: 'update', id: parts[1] };
  if (parts.length === 3 && parts[2] === 'notes') {
    if (method === 'POST') return { op: 'note', id: parts[1] };
    if (method === 'GET') return { op: 'notes-read', id: parts[1] };
  }
  return null;
}

/** Whether a token's scopes allow a write operation on requests. */
export function scopesAllow(scopes: string[], op: WriteOp): boolean {
  return scopes.some((s) => {
    const m = /^SDPOnDemand\.requests\.([A-Z]+)$/i.exec(s.trim());
    if (!m) return false;
    const o = m[1]!.toUpperCase();
    return o === 'ALL' || WRITE_SCOPES[op].includes(o);
  });
}

export function roleAllows(role: KeyRole, op: WriteOp): boolean {
  if (op === 'create') return role.addRequests;
  if (op === 'update' || op === 'note') return role.editRequests;
  return true;
}

interface Written {
  rec: Json;
  notes: Json[];
}

const REQUEST_KEYS = new Set([
  'subject',
  'description',
  'requester',
  'technician',
  'group',
  'priority',
  'urgency',
  'impact',
  'level',
  'mode',
  'request_type',
  'category',
  'subcategory',
  'item',
  'site',
  'status',
  'template',
  'due_by_time',
  'assets',
  'udf_fields',
  'resolution',
  'update_reason',
  'impact_details',
  'email_ids_to_notify',
  'closure_info',
]);
const NOTE_KEYS = new Set(['description', 'show_to_requester', 'notify_technician', 'mark_first_response', 'add_to_linked_requests']);

const LOOKUPS: Record<string, { id: string; name: string }[]> = {
  priority: PRIORITIES,
  urgency: URGENCIES,
  impact: IMPACTS,
  level: LEVELS,
  mode: MODES,
  request_type: REQUEST_TYPES,
  category: CATEGORIES,
  group: GROUPS,
  site: SITES,
  status: STATUSES,
};

const fail = (code: number, message: string, field?: string, status = 400): ApiAnswer => sdpError(status, code, message, field);

/** Parses the form body's `input_data`: the JSON object under `wrapper` (one of them), or an error answer. */
function readInput(body: string, contentType: string, wrappers: string[], allowed: Set<string>): { key: string; doc: Json } | ApiAnswer {
  if (!/application\/x-www-form-urlencoded/i.test(contentType)) return fail(4000, 'input_data must be sent form-encoded', 'input_data');
  const raw = new URLSearchParams(body).get('input_data');
  if (raw === null || raw.trim() === '') return fail(4012, 'Mandatory field value not provided', 'input_data');
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch {
    return fail(4001, 'Invalid Input', 'input_data');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return fail(4001, 'Invalid Input', 'input_data');
  const keys = Object.keys(doc as Json);
  const extra = keys.find((k) => !wrappers.includes(k));
  if (extra) return fail(4000, 'EXTRA_KEY_FOUND_IN_JSON', extra);
  const key = keys[0];
  if (!key) return fail(4012, 'Mandatory field value not provided', wrappers[0]);
  const inner = (doc as Json)[key];
  if (!inner || typeof inner !== 'object' || Array.isArray(inner)) return fail(4021, 'Data type mismatch', key);
  const unknown = Object.keys(inner as Json).find((k) => !allowed.has(k));
  if (unknown) return fail(4000, 'EXTRA_KEY_FOUND_IN_JSON', unknown);
  return { key, doc: inner as Json };
}

/** A reference field given by id or name, resolved against the tenant's values, or an error. */
function lookup(field: string, v: unknown, flavour: Flavour): { value: Json | null } | { error: ApiAnswer } {
  if (v === null) return { value: null };
  const list = LOOKUPS[field];
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: fail(4021, 'Data type mismatch', field) };
  const o = v as Json;
  if (!list) return { value: o };
  const hit = list.find(
    (x) => (o.name !== undefined && String(o.name).toLowerCase() === x.name.toLowerCase()) || (o.id !== undefined && refOf(x.id, flavour) === String(o.id)),
  );
  if (!hit) return { error: fail(4001, 'Invalid Input', `${field}${o.name !== undefined ? '.name' : '.id'}`) };
  return { value: { ...hit, id: refOf(hit.id, flavour) } };
}

const refOf = (id: string, flavour: Flavour) => (flavour === 'cloud' ? `123640000000${id.padStart(6, '0')}` : id);

export interface WriteOptions {
  /** Resolving needs a resolution text (a common tenant rule; default true). */
  requireResolution?: boolean;
}

/** The requests written through the API, their notes, and the writes counted by operation. */
export class WrittenRequests {
  readonly #byId = new Map<string, Written>();
  readonly counts = { create: 0, update: 0, note: 0, refused: 0 };
  #seq = 0;
  readonly #now: () => number;
  readonly #opts: WriteOptions;

  constructor(opts: WriteOptions = {}, now: () => number = Date.now) {
    this.#opts = opts;
    this.#now = now;
  }

  #newId(flavour: Flavour): string {
    this.#seq++;
    return flavour === 'cloud' ? `1236400099${String(this.#seq).padStart(8, '0')}` : String(5_000_000 + this.#seq);
  }

  get size(): number {
    return this.#byId.size;
  }

  all(): Json[] {
    return [...this.#byId.values()].map((w) => w.rec);
  }

  get(id: string): Json | null {
    return this.#byId.get(id)?.rec ?? null;
  }

  notes(id: string): Json[] {
    return this.#byId.get(id)?.notes ?? [];
  }

  /** A person changing the status in the UI (closing, reopening): no API write is counted. */
  setStatus(id: string, name: string): boolean {
    const w = this.#byId.get(id);
    const st = STATUSES.find((s) => s.name.toLowerCase() === name.toLowerCase());
    if (!w || !st) return false;
    const now = this.#now();
    w.rec.status = { ...st };
    w.rec.last_updated_time = timeObj(now);
    if (st.name === 'Resolved' || st.name === 'Closed') w.rec.resolved_time = timeObj(now);
    return true;
  }

  /** A person editing a request's subject or description in the UI: no API write is counted. */
  personEdit(id: string, patch: { subject?: string; description?: string }): boolean {
    const w = this.#byId.get(id);
    if (!w) return false;
    if (patch.subject !== undefined) {
      w.rec.subject = patch.subject;
      w.rec.short_description = patch.subject.slice(0, 100);
    }
    if (patch.description !== undefined) w.rec.description = patch.description;
    w.rec.last_updated_time = timeObj(this.#now());
    return true;
  }

  #apply(rec: Json, doc: Json, flavour: Flavour): ApiAnswer | null {
    for (const [k, v] of Object.entries(doc)) {
      if (k === 'subject') {
        if (typeof v !== 'string') return fail(4021, 'Data type mismatch', 'subject');
        if (v.trim() === '') return fail(4012, 'Mandatory field value not provided', 'subject');
        if (v.length > SUBJECT_MAX || /[\r\n]/.test(v)) return fail(4001, 'Invalid Input', 'subject');
        rec.subject = v;
        rec.short_description = v.slice(0, 100);
      } else if (k === 'description' || k === 'impact_details' || k === 'update_reason') {
        if (v !== null && typeof v !== 'string') return fail(4021, 'Data type mismatch', k);
        if (k === 'description') rec.description = v;
        if (k === 'impact_details') rec.impact_details = v;
      } else if (k === 'udf_fields') {
        if (!v || typeof v !== 'object') return fail(4021, 'Data type mismatch', k);
        const bad = Object.keys(v as Json).find((u) => !/^udf_[a-z]+_?\d+$/.test(u));
        if (bad) return fail(4001, 'Invalid Input', `udf_fields.${bad}`);
        rec.udf_fields = { ...(rec.udf_fields as Json), ...(v as Json) };
      } else if (k === 'resolution') {
        if (!v || typeof v !== 'object' || typeof (v as Json).content !== 'string') return fail(4021, 'Data type mismatch', 'resolution');
        rec.resolution = { resolution_attachments: [], content: (v as Json).content };
      } else if (k === 'assets') {
        if (!Array.isArray(v)) return fail(4021, 'Data type mismatch', 'assets');
        rec.assets = v.map((a) => ({ id: String((a as Json).id ?? ''), name: (a as Json).name ?? null }));
      } else if (k === 'due_by_time') {
        const ms = v && typeof v === 'object' ? Number((v as Json).value) : Number.NaN;
        if (v !== null && !Number.isFinite(ms)) return fail(4021, 'Data type mismatch', 'due_by_time');
        rec.due_by_time = v === null ? null : timeObj(ms);
      } else if (k === 'email_ids_to_notify' || k === 'closure_info' || k === 'template' || k === 'requester' || k === 'technician') {
        rec[k] = v;
      } else {
        const r = lookup(k, v, flavour);
        if ('error' in r) return r.error;
        rec[k] = r.value;
      }
    }
    return null;
  }

  #resolvingWithout(rec: Json, doc: Json): boolean {
    const st = (rec.status as Json | null)?.name;
    const resolving = doc.status !== undefined && (st === 'Resolved' || st === 'Closed');
    const content = (rec.resolution as Json | null)?.content;
    return resolving && this.#opts.requireResolution !== false && (typeof content !== 'string' || content.trim() === '');
  }

  create(body: string, contentType: string, flavour: Flavour): ApiAnswer {
    const input = readInput(body, contentType, ['request'], REQUEST_KEYS);
    if ('status' in input) return this.#refuse(input);
    const doc = input.doc;
    if (doc.subject === undefined) return this.#refuse(fail(4012, 'Mandatory field value not provided', 'subject'));
    const now = this.#now();
    const id = this.#newId(flavour);
    const rec: Json = {
      id,
      ...(flavour === 'cloud' ? { display_id: String(900000 + this.#seq) } : {}),
      subject: '',
      description: null,
      status: { ...STATUSES[0]!, id: refOf(STATUSES[0]!.id, flavour) },
      priority: null,
      group: null,
      technician: null,
      category: null,
      site: null,
      assets: [],
      udf_fields: {},
      resolution: { resolution_attachments: [], content: null },
      created_time: timeObj(now),
      last_updated_time: timeObj(now),
      resolved_time: null,
      due_by_time: null,
      has_notes: false,
      is_trashed: false,
    };
    const err = this.#apply(rec, doc, flavour);
    if (err) return this.#refuse(err);
    if (this.#resolvingWithout(rec, doc)) return this.#refuse(fail(4012, 'Mandatory field value not provided', 'resolution'));
    this.#byId.set(id, { rec, notes: [] });
    this.counts.create++;
    return { status: 201, body: { request: rec, response_status: { status_code: 2000, status: 'success' } } };
  }

  update(id: string, body: string, contentType: string, flavour: Flavour): ApiAnswer {
    const w = this.#byId.get(id);
    if (!w) return this.#refuse(fail(4007, 'Invalid URL', undefined, 404));
    const input = readInput(body, contentType, ['request'], REQUEST_KEYS);
    if ('status' in input) return this.#refuse(input);
    const next: Json = structuredClone(w.rec);
    const err = this.#apply(next, input.doc, flavour);
    if (err) return this.#refuse(err);
    if (this.#resolvingWithout(next, input.doc)) return this.#refuse(fail(4012, 'Mandatory field value not provided', 'resolution'));
    const now = this.#now();
    next.last_updated_time = timeObj(now);
    const st = (next.status as Json | null)?.name;
    next.resolved_time = st === 'Resolved' || st === 'Closed' ? timeObj(now) : null;
    w.rec = next;
    this.counts.update++;
    return { status: 200, body: { request: next, response_status: { status_code: 2000, status: 'success' } } };
  }

  addNote(id: string, body: string, contentType: string): ApiAnswer {
    const w = this.#byId.get(id);
    if (!w) return this.#refuse(fail(4007, 'Invalid URL', undefined, 404));
    const input = readInput(body, contentType, ['request_note', 'note'], NOTE_KEYS);
    if ('status' in input) return this.#refuse(input);
    const d = input.doc.description;
    if (typeof d !== 'string' || d.trim() === '') return this.#refuse(fail(4012, 'Mandatory field value not provided', 'description'));
    const now = this.#now();
    const note: Json = {
      id: String(w.notes.length + 1),
      description: d,
      show_to_requester: input.doc.show_to_requester === true,
      added_time: timeObj(now),
      last_updated_time: timeObj(now),
    };
    w.notes.push(note);
    w.rec.has_notes = true;
    this.counts.note++;
    return { status: 201, body: { [input.key]: note, response_status: { status_code: 2000, status: 'success' } } };
  }

  listNotes(id: string): ApiAnswer {
    const w = this.#byId.get(id);
    if (!w) return fail(4007, 'Invalid URL', undefined, 404);
    return {
      status: 200,
      body: {
        response_status: [{ status_code: 2000, status: 'success' }],
        list_info: { has_more_rows: false, start_index: 1, row_count: w.notes.length },
        notes: w.notes,
      },
    };
  }

  #refuse(a: ApiAnswer): ApiAnswer {
    this.counts.refused++;
    return a;
  }
}

/** Text conditions a search on the subject, the description (or a UDF) understands. */
const TEXT_OPS = new Set(['contains', 'is', 'eq', '=', 'starts with', 'ends with']);

export function isTextCriterion(c: unknown): boolean {
  const o = (c ?? {}) as Json;
  const f = String(o.field ?? '');
  return (f === 'subject' || f === 'description' || /^udf_fields\.udf_[a-z]+_?\d+$/.test(f)) && TEXT_OPS.has(String(o.condition ?? '').toLowerCase());
}

/**
 * Whether a request matches text criteria (case-insensitive, as the service desk compares), combined left
 * to right by each later criterion's `logical_operator` (AND unless OR).
 */
export function matchesText(rec: Json, criteria: Json[]): boolean {
  const one = (c: Json) => {
    const f = String(c.field);
    const raw = f === 'subject' || f === 'description' ? rec[f] : (rec.udf_fields as Json | undefined)?.[f.slice('udf_fields.'.length)];
    const v = String(raw ?? '').toLowerCase();
    const want = String(c.value ?? '').toLowerCase();
    switch (String(c.condition).toLowerCase()) {
      case 'contains':
        return v.includes(want);
      case 'starts with':
        return v.startsWith(want);
      case 'ends with':
        return v.endsWith(want);
      default:
        return v === want;
    }
  };
  return criteria.reduce<boolean>(
    (acc, c, i) => (i === 0 ? one(c) : String(c.logical_operator ?? 'AND').toUpperCase() === 'OR' ? acc || one(c) : acc && one(c)),
    true,
  );
}
