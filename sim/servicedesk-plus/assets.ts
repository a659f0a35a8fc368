// Assets and CMDB configuration items (computers, databases, business services).
import type { Estate } from '../shared/estate.ts';
import type { SdpDataset } from './data.ts';
import { hashOf, pick, timeObj, unit } from './generators.ts';
import { type Flavour, idOf, type Json, type KindName } from './kinds.ts';
import { ASSET_STATES, CI_TYPES, PRODUCT_TYPES, ref, refId, SITES } from './reference-data.ts';
import { userRef } from './users.ts';

/** The product type of asset `i` (fixed for its lifetime). */
export function productTypeOf(seed: number, i: number, estate: Estate | null = null): (typeof PRODUCT_TYPES)[number] {
  if (estate) {
    const name = estate.cmdb()[i]?.productType;
    const pt = PRODUCT_TYPES.find((p) => p.name === name);
    if (pt) return pt;
  }
  return pick(PRODUCT_TYPES, seed, 'assets', i, 'pt');
}

export function assetRecord(data: SdpDataset, i: number, flavour: Flavour): Json {
  const s = data.seed;
  const rev = data.rev('assets', i);
  const pt = productTypeOf(s, i, data.estate);
  const pIdx = Math.floor(unit(s, 'assets', i, 'product') * pt.products.length);
  const maker = pt.makers[pIdx % pt.makers.length]!;
  const state = pick(ASSET_STATES, s, 'assets', i, 'state', rev);
  const userCount = data.count('requesters');
  const assigned =
    state.name === 'In Use' && userCount > 0 ? userRef(data, 'requesters', Math.floor(unit(s, 'assets', i, 'user', rev) * userCount), flavour) : null;
  const networked = pt.name !== 'Monitor' && pt.name !== 'Keyboard';
  const ip = networked ? `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${(i & 255) + 1}` : null;
  const serial = unit(s, 'assets', i, 'serial?') < 0.1 ? null : hashOf(s, 'assets', i, 'serial').toString(36).toUpperCase().padStart(7, 'X');
  const site = unit(s, 'assets', i, 'site?') < 0.3 ? null : ref(flavour, pick(SITES, s, 'assets', i, 'site'));
  const rec: Json = {
    id: idOf('assets', i, flavour),
    name: `${pt.name === 'Laptop' ? 'LT' : pt.name === 'Server' ? 'SRV' : pt.name.slice(0, 3).toUpperCase()}-${String(i).padStart(4, '0')}`,
    asset_tag: unit(s, 'assets', i, 'tag?') < 0.15 ? null : `A-${10000 + i}`,
    org_serial_number: serial,
    serial_number: serial,
    barcode: null,
    product: {
      id: refId(flavour, String(Number(pt.id) * 10 + pIdx)),
      name: pt.products[pIdx],
      manufacturer: maker,
      product_type: { id: refId(flavour, pt.id) },
      part_no: null,
    },
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
    mac_addresses: networked
      ? [0, 1, 2, 3, 4, 5].map((b) => ((hashOf(s, 'mac', i, b) & 255) | (b === 0 ? 2 : 0)).toString(16).padStart(2, '0')).join(':')
      : null,
    location: unit(s, 'assets', i, 'loc?') < 0.5 ? null : `Floor ${1 + (i % 5)}`,
    acquisition_date: timeObj(data.createdAt('assets', i) - 30 * 24 * 3600_000),
    warranty_expiry: unit(s, 'assets', i, 'warranty?') < 0.4 ? null : timeObj(data.createdAt('assets', i) + 3 * 365 * 24 * 3600_000),
    expiry_date: null,
    last_scan_time: networked ? timeObj(data.updatedAt('assets', i)) : null,
    last_success_audit: null,
    created_time: timeObj(data.createdAt('assets', i)),
    last_updated_time: timeObj(data.updatedAt('assets', i)),
    purchase_cost: 1200,
    current_cost: 800,
    total_cost: 1200,
    is_loaned: false,
    loan_end: null,
    is_personal: false,
    description: null,
    udf_fields: flavour === 'cloud' ? { udf_char1: null } : {},
  };
  return data.estate ? estateAsset(rec, data.estate, i, flavour) : rec;
}

/** An asset of a shared estate: the CMDB's view of its machine (names, serial, NICs, address as drifted). */
function estateAsset(rec: Json, estate: Estate, i: number, flavour: Flavour): Json {
  const e = estate.cmdb()[i];
  if (!e) return rec;
  const inUse = !e.stale;
  return {
    ...rec,
    name: e.name,
    org_serial_number: e.serial,
    serial_number: e.serial,
    ip_addresses: e.ip,
    primary_ip: e.ip,
    mac_addresses: e.macs.length ? e.macs.join(', ') : null,
    state: inUse ? rec.state : { id: refId(flavour, '5'), name: 'Disposed', is_scan_required: false, is_ownership_mandatory: false },
    site: { id: refId(flavour, String(100 + e.site.length)), name: e.site },
    department: rec.user ? rec.department : { id: refId(flavour, String(200 + e.department.length)), name: e.department, site: null },
  };
}

export function ciRecord(data: SdpDataset, kind: KindName, i: number, flavour: Flavour): Json {
  const s = data.seed;
  const type = CI_TYPES.find((t) => t.kind === kind)!;
  const rev = data.rev(kind, i);
  const owner = data.count('technicians') > 0 ? userRef(data, 'technicians', Math.floor(unit(s, kind, i, 'owner') * data.count('technicians')), flavour) : null;
  const base: Json = {
    id: idOf(kind, i, flavour),
    name: '',
    description: null,
    ci_type: { id: refId(flavour, type.id), name: type.name, api_name: type.api_name },
    site: unit(s, kind, i, 'site?') < 0.4 ? null : ref(flavour, pick(SITES, s, kind, i, 'site')),
    created_by: owner,
    created_time: timeObj(data.createdAt(kind, i)),
    last_updated_by: owner,
    last_updated_time: timeObj(data.updatedAt(kind, i)),
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
      date_last_audit: timeObj(data.updatedAt(kind, i)),
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
