// SDP assets and CMDB configuration items → `cmdb-assets` fields. Pure: reused by the CSV import.
import type { IncomingRecord } from '../../../core/models.ts';
import type { Json } from './envelope.ts';
import { attributeValue, listOf, personField, personName, refField, refName, text, textField } from './values.ts';

/** Keys mapped to model fields (or pure noise); everything else goes to `attributes`. */
const ASSET_MAPPED = new Set([
  'id',
  'name',
  'asset_tag',
  'serial_number',
  'org_serial_number',
  'product',
  'product_type',
  'state',
  'ip_addresses',
  'primary_ip',
  'mac_addresses',
  'mac_address',
  'user',
  'department',
  'site',
  'type',
  'udf_fields',
  'ci_default_fields',
]);

function firstText(row: Json, keys: string[]): string | null | undefined {
  let seen = false;
  for (const k of keys) {
    if (!(k in row)) continue;
    seen = true;
    const t = text(row[k]);
    if (t) return t;
  }
  return seen ? null : undefined;
}

function attributes(row: Json, mapped: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (mapped.has(k)) continue;
    const x = attributeValue(v);
    if (x !== null) out[k] = x;
  }
  for (const field of ['udf_fields', 'ci_default_fields']) {
    const extra = row[field];
    if (extra && typeof extra === 'object') {
      for (const [k, v] of Object.entries(extra as Json)) {
        const x = attributeValue(v);
        if (x !== null) out[k] = x;
      }
    }
  }
  return out;
}

export function assetFields(row: Json): Record<string, unknown> {
  const product = row.product as Json | null | undefined;
  const productType = row.product_type as Json | null | undefined;
  const hasIps = 'ip_addresses' in row || 'primary_ip' in row;
  const hasMacs = 'mac_addresses' in row || 'mac_address' in row;
  const dept = row.department as Json | null | undefined;
  return {
    name: textField(row, 'name'),
    assetTag: textField(row, 'asset_tag'),
    serialNumber: firstText(row, ['serial_number', 'org_serial_number', 'discovered_serial_number', 'service_tag']),
    productType: 'product_type' in row ? refName(productType) : product ? refName(product.product_type) : undefined,
    product: refField(row, 'product'),
    state: refField(row, 'state'),
    ipAddresses: hasIps ? listOf(row.ip_addresses, row.primary_ip) : undefined,
    macAddresses: hasMacs ? listOf(row.mac_addresses, row.mac_address) : undefined,
    assignedUser: personField(row, 'user'),
    department: refField(row, 'department'),
    site: 'site' in row ? (refName(row.site) ?? (dept ? refName(dept.site) : null)) : undefined,
    ciType: refName(row.type) ?? refName(productType?.type) ?? 'Asset',
    attributes: attributes(row, ASSET_MAPPED),
  };
}

export function mapAsset(row: Json): IncomingRecord {
  const id = text(row.id);
  if (!id) throw new Error('asset without id');
  return { key: `asset:${id}`, externalId: id, fields: assetFields(row) };
}

const CI_MAPPED = new Set(['id', 'name', 'ci_type', 'site', 'department', 'udf_fields', 'ci_default_fields']);

/** Type-specific CI fields are named per tenant (`txt_ip_address`, `ip_address`…): match by suffix. */
function bySuffix(row: Json, pattern: RegExp): unknown[] {
  return Object.entries(row)
    .filter(([k]) => pattern.test(k))
    .map(([, v]) => v);
}

export function ciFields(row: Json, ciTypeName: string | null): Record<string, unknown> {
  const serial = bySuffix(row, /(^|_)serial_?(number|no)$/i).map(text).find((s) => s);
  const owner = row.user ?? row.owned_by ?? row.managed_by ?? null;
  return {
    name: textField(row, 'name'),
    assetTag: text(bySuffix(row, /(^|_)asset_tag$/i)[0]) ?? null,
    serialNumber: serial ?? null,
    productType: null,
    product: text(bySuffix(row, /(^|_)(product|model)$/i).map((v) => refName(v))[0]) ?? null,
    state: refName(row.state ?? row.status ?? null),
    ipAddresses: listOf(...bySuffix(row, /(^|_)ip_address(es)?$/i)),
    macAddresses: listOf(...bySuffix(row, /(^|_)mac_address(es)?$/i)),
    assignedUser: personName(owner),
    department: refName(row.department ?? null),
    site: refName(row.site ?? null),
    ciType: refName(row.ci_type) ?? ciTypeName,
    attributes: attributes(row, CI_MAPPED),
  };
}

export function mapCi(row: Json, ciTypeName: string | null = null): IncomingRecord {
  const id = text(row.id);
  if (!id) throw new Error('configuration item without id');
  return { key: `ci:${id}`, externalId: id, fields: ciFields(row, ciTypeName) };
}
