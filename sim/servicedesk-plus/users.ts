// Technicians and requesters: one user generator, as full user records and as the reference embedded
// in requests, assets and CIs.
import type { SdpDataset } from './data.ts';
import { pick, timeObj, unit } from './generators.ts';
import { type Flavour, idOf, type Json } from './kinds.ts';
import { DEPARTMENTS, FIRST, LAST, refId, SITES } from './reference-data.ts';

function user(data: SdpDataset, kind: 'technicians' | 'requesters', i: number, flavour: Flavour): Json {
  const first = pick(FIRST, data.seed, kind, i, 'first');
  const last = pick(LAST, data.seed, kind, i, 'last');
  const name = kind === 'technicians' && i === 0 ? 'administrator' : `${first} ${last}`;
  const email = kind === 'technicians' && i === 0 ? null : `${first}.${last}${i}@example.com`.toLowerCase();
  const dept = department(data, kind, i, flavour);
  const vip = unit(data.seed, kind, i, 'vip') < 0.05;
  return {
    email_id: email,
    phone: unit(data.seed, kind, i, 'phone') < 0.7 ? `+1 555 ${String(1000 + (i % 9000))}` : null,
    name,
    mobile: unit(data.seed, kind, i, 'mobile') < 0.4 ? `+1 555 ${String(2000 + (i % 7000))}` : null,
    ...(flavour === 'onprem' ? { is_vipuser: vip } : { is_vip_user: vip, is_technician: kind === 'technicians' }),
    id: idOf(kind, i, flavour),
    department: dept,
    first_name: kind === 'technicians' && i === 0 ? 'administrator' : first,
    last_name: kind === 'technicians' && i === 0 ? null : last,
  };
}

function department(data: SdpDataset, kind: string, i: number, flavour: Flavour): Json | null {
  if (unit(data.seed, kind, i, 'dept?') < 0.2) return null;
  const d = Math.floor(unit(data.seed, kind, i, 'dept') * DEPARTMENTS.length);
  const site = SITES[d % SITES.length]!;
  return { id: refId(flavour, String(13 + d)), name: DEPARTMENTS[d], site: { id: refId(flavour, site.id), name: site.name } };
}

/** A user reference as embedded in requests and assets. */
export function userRef(data: SdpDataset, kind: 'technicians' | 'requesters', i: number, flavour: Flavour): Json {
  const u = user(data, kind, i, flavour);
  const { first_name: _f, last_name: _l, ...ref } = u;
  if (flavour === 'cloud') ref.photo_url = `https://contacts.zoho.com/file?ID=${u.id}&fs=thumb`;
  return ref;
}

export function userRecord(data: SdpDataset, kind: 'technicians' | 'requesters', i: number, flavour: Flavour): Json {
  const u = user(data, kind, i, flavour);
  const rev = data.rev(kind, i);
  const disabled = unit(data.seed, kind, i, 'disabled', rev) < 0.06;
  const job = pick(['Analyst', 'Engineer', 'Manager', 'Accountant', 'Technician', null], data.seed, kind, i, 'job');
  const base: Json = {
    ...u,
    employee_id: `E-${1000 + i}`,
    description: null,
    reporting_to: null,
    created_time: timeObj(data.createdAt(kind, i)),
    last_updated_time: timeObj(data.updatedAt(kind, i)),
  };
  if (flavour === 'onprem') {
    return {
      ...base,
      jobtitle: job,
      type: kind === 'technicians' ? 'Technician' : 'User',
      citype: { name: 'User', id: '3' },
      cost_per_hour: '0',
      org_user_status: disabled ? 'DISABLED' : 'ACTIVE',
      is_technician: kind === 'technicians',
      purchase_approver: false,
      service_request_approver: false,
      profile_pic_url: null,
      ci_default_fields: {},
    };
  }
  return {
    ...base,
    job_title: job,
    site: u.department ? (u.department as Json).site : null,
    udf_fields: {},
    status: disabled ? 'INACTIVE' : 'ACTIVE',
    ...(kind === 'technicians' ? { cost_per_hour: '0', sms_mail_id: null } : {}),
  };
}
