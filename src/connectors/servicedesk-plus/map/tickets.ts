// SDP request → `tickets` fields. Pure: reused by the CSV import.
import { FieldError } from '../../../core/map-rows.ts';
import type { FieldsOf, RecordOf } from '../../../core/models.ts';
import type { Json } from './envelope.ts';
import { htmlText, known, personField, refField, refName, text, textField, timeField } from './values.ts';

/** Fields asked for with `fields_required` so list rows carry what the model and the cursor need. */
export const TICKET_FIELDS = [
  'id',
  'display_id',
  'subject',
  'status',
  'priority',
  'technician',
  'group',
  'requester',
  'request_type',
  'is_service_request',
  'created_time',
  'last_updated_time',
  'due_by_time',
  'resolved_time',
  'completed_time',
  'description',
  'category',
  'site',
  'assets',
];

/** `incident` when the request type says so; `request` for other types and service requests. */
export function ticketKind(row: Json): 'incident' | 'request' | null | undefined {
  if ('request_type' in row) {
    const name = refField(row, 'request_type');
    if (name) return /incident/i.test(name) ? 'incident' : 'request';
    if (row.is_service_request === true) return 'request';
    return null;
  }
  if (row.is_service_request === true) return 'request';
  return undefined;
}

/** The request's associated assets (`assets[{id, name}]`, and `primary_asset`) as `{id, name}`. */
export function associatedAssets(row: Json): { id: string | null; name: string | null }[] | undefined {
  if (!('assets' in row) && !('primary_asset' in row)) return undefined;
  const out: { id: string | null; name: string | null }[] = [];
  for (const a of [...(Array.isArray(row.assets) ? row.assets : []), row.primary_asset]) {
    if (!a || typeof a !== 'object') continue;
    const ref = { id: text((a as Json).id), name: refName(a) };
    if ((ref.id || ref.name) && !out.some((x) => (x.id ?? x.name) === (ref.id ?? ref.name))) out.push(ref);
  }
  return out;
}

/** A remediation marker as the planner writes it (src/tickets/plan.ts markerOf). */
const MARKER = /^TRB-[0-9a-f]{12}$/;
const MARKER_IN_SUBJECT = /\[(TRB-[0-9a-f]{12})\]/;

/**
 * The remediation key of a request remediation tickets wrote: a single-line UDF holding the marker when
 * the request has one, else the `[TRB-…]` marker in its subject. Null when it carries none; undefined
 * when the row has neither field (a partial row keeps what is stored).
 */
export function remediationKeyOf(row: Json): string | null | undefined {
  const udf = row.udf_fields;
  if (udf && typeof udf === 'object') {
    for (const v of Object.values(udf as Json)) if (typeof v === 'string' && MARKER.test(v.trim())) return v.trim();
  }
  if (typeof row.subject === 'string') return MARKER_IN_SUBJECT.exec(row.subject)?.[1] ?? null;
  return 'subject' in row || 'udf_fields' in row ? null : undefined;
}

export function ticketFields(row: Json): FieldsOf<'tickets'> {
  return {
    displayId: textField(row, 'display_id') ?? textField(row, 'id') ?? null,
    subject: textField(row, 'subject'),
    kind: ticketKind(row),
    status: refField(row, 'status'),
    priority: refField(row, 'priority'),
    assignee: personField(row, 'technician'),
    group: refField(row, 'group'),
    requester: personField(row, 'requester'),
    createdAt: timeField(row, 'created_time'),
    updatedAt: timeField(row, 'last_updated_time'),
    dueAt: timeField(row, 'due_by_time'),
    resolvedAt: 'resolved_time' in row ? timeField(row, 'resolved_time') : timeField(row, 'completed_time'),
    ...known<FieldsOf<'tickets'>>({
      description: 'description' in row ? htmlText(row.description) : 'short_description' in row ? text(row.short_description) : undefined,
      category: refField(row, 'category'),
      site: refField(row, 'site'),
      associatedAssets: associatedAssets(row),
      remediationKey: remediationKeyOf(row),
    }),
  };
}

export function mapRequest(row: Json): RecordOf<'tickets'> {
  const id = text(row.id);
  if (!id) throw new FieldError('id', 'request without id');
  return { key: `request:${id}`, externalId: id, fields: ticketFields(row) };
}
