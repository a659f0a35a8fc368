// SDP assets and CMDB configuration items → `cmdb-assets` fields. Pure: reused by the CSV import.
// Assets come in two shapes: the old `/assets` rows (product_type, ip_addresses, mac_addresses) and the
// per-product-type rows of build 15100+ (`asset_workstations`…: the type is the endpoint's, `module` on
// the generic list, addresses also as ip_address / mac_address / network_adapters[], type-specific
// additional fields under `<type>_udf_fields`).
import { FieldError } from '../../../core/map-rows.ts';
import type { FieldsOf, RecordOf } from '../../../core/models.ts';
import type { Json } from './envelope.ts';
import { attributeValue, known, listOf, personField, personName, refField, refName, text, textField } from './values.ts';

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
  'ip_address',
  'network_adapters',
  'module',
  'user',
  'department',
  'site',
  'type',
  'udf_fields',
  'ci_default_fields',
  'bios_uuid',
  'fqdn',
  'dns_name',
  'owner',
  'owned_by',
  'managed_by',
  'business_impact',
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
  for (const field of Object.keys(row).filter((k) => k === 'udf_fields' || k.endsWith('_udf_fields') || k === 'ci_default_fields')) {
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

/** Where an asset row came from: the product type of its per-type endpoint, when known. */
export interface AssetContext {
  productType?: string | null;
}

const adapterValues = (row: Json, key: string): unknown[] =>
  Array.isArray(row.network_adapters) ? (row.network_adapters as Json[]).map((a) => (a && typeof a === 'object' ? a[key] : null)) : [];

export function assetFields(row: Json, context: AssetContext = {}): FieldsOf<'cmdb-assets'> {
  const product = row.product as Json | null | undefined;
  const productType = row.product_type as Json | null | undefined;
  const system = (row.computer_system && typeof row.computer_system === 'object' ? row.computer_system : {}) as Json;
  const hasIps = 'ip_addresses' in row || 'primary_ip' in row || 'ip_address' in row || 'network_adapters' in row;
  const hasMacs = 'mac_addresses' in row || 'mac_address' in row || 'network_adapters' in row;
  const dept = row.department as Json | null | undefined;
  const typeName =
    refName(productType) ?? (product && typeof product === 'object' ? refName(product.product_type) : null) ?? context.productType ?? refName(row.module);
  const listed = firstText(row, ['serial_number', 'org_serial_number', 'discovered_serial_number', 'service_tag']);
  const serial = listed ?? text(system.service_tag) ?? listed;
  return {
    name: textField(row, 'name'),
    assetTag: textField(row, 'asset_tag'),
    serialNumber: serial,
    productType: typeName ?? ('product_type' in row || 'module' in row || product ? null : undefined),
    product: refField(row, 'product'),
    state: refField(row, 'state'),
    ipAddresses: hasIps ? listOf(row.ip_addresses, row.primary_ip, row.ip_address, ...adapterValues(row, 'ip_address')) : undefined,
    macAddresses: hasMacs ? listOf(row.mac_addresses, row.mac_address, ...adapterValues(row, 'mac_address')) : undefined,
    assignedUser: personField(row, 'user'),
    department: refField(row, 'department'),
    site: 'site' in row ? (refName(row.site) ?? (dept ? refName(dept.site) : null)) : undefined,
    ciType: refName(row.type) ?? refName(productType?.type) ?? 'Asset',
    attributes: attributes(row, ASSET_MAPPED),
    // Not in every tenant's asset rows: left out where the row does not carry them.
    ...known<FieldsOf<'cmdb-assets'>>({
      biosUuid:
        'bios_uuid' in row || 'uuid' in system || 'bios_uuid' in system ? (text(row.bios_uuid) ?? text(system.uuid) ?? text(system.bios_uuid)) : undefined,
      fqdn: 'fqdn' in row || 'dns_name' in row ? (text(row.fqdn) ?? text(row.dns_name)) : undefined,
      owner: 'owner' in row || 'owned_by' in row || 'managed_by' in row ? personName(row.owner ?? row.owned_by ?? row.managed_by ?? null) : undefined,
      businessImpact: 'business_impact' in row ? refName(row.business_impact) : undefined,
    }),
  };
}

export function mapAsset(row: Json, context: AssetContext = {}): RecordOf<'cmdb-assets'> {
  const id = text(row.id);
  if (!id) throw new FieldError('id', 'asset without id');
  return { key: `asset:${id}`, externalId: id, fields: assetFields(row, context) };
}

const CI_MAPPED = new Set(['id', 'name', 'ci_type', 'site', 'department', 'udf_fields', 'ci_default_fields']);

/** Type-specific CI fields are named per tenant (`txt_ip_address`, `ip_address`…): match by suffix. */
function bySuffix(row: Json, pattern: RegExp): unknown[] {
  return Object.entries(row)
    .filter(([k]) => pattern.test(k))
    .map(([, v]) => v);
}

export function ciFields(row: Json, ciTypeName: string | null): FieldsOf<'cmdb-assets'> {
  const serial = bySuffix(row, /(^|_)serial_?(number|no)$/i)
    .map(text)
    .find((s) => s);
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
    ...known<FieldsOf<'cmdb-assets'>>({
      biosUuid: text(bySuffix(row, /(^|_)bios_?uuid$/i)[0]) ?? undefined,
      fqdn: text(bySuffix(row, /(^|_)(fqdn|dns_name)$/i)[0]) ?? undefined,
      owner: personName(owner) ?? undefined,
      businessImpact: refName(bySuffix(row, /(^|_)business_impact$/i)[0] ?? null) ?? undefined,
    }),
  };
}

export function mapCi(row: Json, ciTypeName: string | null = null): RecordOf<'cmdb-assets'> {
  const id = text(row.id);
  if (!id) throw new FieldError('id', 'configuration item without id');
  return { key: `ci:${id}`, externalId: id, fields: ciFields(row, ciTypeName) };
}
