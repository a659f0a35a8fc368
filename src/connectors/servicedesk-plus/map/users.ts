// SDP users / requesters / technicians → `users` fields. Pure: reused by the CSV import.
import { FieldError } from '../../../core/map-rows.ts';
import type { FieldsOf, RecordOf } from '../../../core/models.ts';
import type { Json } from './envelope.ts';
import { bool, refField, text, textField } from './values.ts';

/** `active` / `inactive` (or the upstream word, lower-cased) from the status spellings seen. */
export function userStatus(row: Json): string | null | undefined {
  const keys = ['org_user_status', 'status', 'user_status', 'login_status'];
  if (!keys.some((k) => k in row)) return undefined;
  for (const k of keys) {
    const v = row[k];
    const s = text(v && typeof v === 'object' ? (v as Json).name : v);
    if (!s) continue;
    const l = s.toLowerCase();
    if (l === 'active' || l === 'enabled') return 'active';
    if (l === 'inactive' || l === 'disabled' || l === 'deactivated') return 'inactive';
    return l;
  }
  return null;
}

/**
 * `isTechnician`: known from the endpoint (`/technicians` → true, `/requesters` → false), else from
 * `is_technician` or a `type` such as "Technician"; undefined when nothing says.
 */
export function userFields(row: Json, isTechnician?: boolean): FieldsOf<'users'> {
  const first = text(row.first_name);
  const last = text(row.last_name);
  const typeText = text(row.type);
  const tech = isTechnician ?? bool(row.is_technician) ?? (typeText ? /technician/i.test(typeText) : undefined);
  return {
    name: text(row.name) ?? ([first, last].filter(Boolean).join(' ') || null),
    email: textField(row, 'email_id') ?? null,
    department: refField(row, 'department'),
    jobTitle: 'job_title' in row ? text(row.job_title) : 'jobtitle' in row ? text(row.jobtitle) : undefined,
    isTechnician: tech,
    status: userStatus(row),
  };
}

export function mapUser(row: Json, isTechnician?: boolean): RecordOf<'users'> {
  const id = text(row.id);
  if (!id) throw new FieldError('id', 'user without id');
  return { key: `user:${id}`, externalId: id, fields: userFields(row, isTechnician) };
}
