// The asset API of build 15100 and later: one list per product type (`asset_laptops`, `asset_servers`…),
// the generic `asset_assets`, and `product_types`. `--asset-api` chooses what the simulator serves: the old
// `/assets` only (builds before 15100), the new lists only (the old ones were kept only until April
// 2026), or both (15100 until then). Rows of the new lists differ from the old ones: no product_type
// (the endpoint is the type), `module` on the generic list, computers carry network_adapters[].
import type { SdpDataset } from './data.ts';
import { assetRecord, productTypeOf } from './assets.ts';
import type { Flavour, Json } from './kinds.ts';
import { PRODUCT_TYPES, refId } from './reference-data.ts';

export const ASSET_API_MODES = ['legacy', 'product-type', 'both'] as const;
export type AssetApiMode = (typeof ASSET_API_MODES)[number];

/** Product types that are not assets: listed by `product_types`, without an asset list of their own. */
const OTHER_PRODUCT_TYPES = [{ id: '30', name: 'Hard Disk', type: { id: '2', name: 'Component' } }];

const COMPUTERS = new Set(['Laptop', 'Workstation', 'Server']);

/** `Laptop` → `asset_laptops`, `Switch` → `asset_switches`. */
export function assetPathOf(name: string): string {
  const snake = name.toLowerCase().replace(/[^a-z0-9]+/g, '_');
  return `asset_${/(s|x|ch|sh)$/.test(snake) ? `${snake}es` : /[^aeiou]y$/.test(snake) ? `${snake.slice(0, -1)}ies` : `${snake}s`}`;
}

export const GENERIC_ASSET_PATH = 'asset_assets';

/** The product type whose list `path` is, or null. */
export function productTypeOfPath(path: string): (typeof PRODUCT_TYPES)[number] | null {
  return PRODUCT_TYPES.find((t) => assetPathOf(t.name) === path) ?? null;
}

/** `/api/v3/product_types` rows (the attributes of the cloud product-type page: no API name). */
export function productTypeRows(flavour: Flavour): Json[] {
  const asset = { id: refId(flavour, '1'), name: 'Asset' };
  return [
    ...PRODUCT_TYPES.map((t) => ({
      id: refId(flavour, t.id),
      name: t.name,
      display_name: t.name,
      description: null,
      type: asset,
      category: { id: refId(flavour, '1'), name: 'IT' },
    })),
    ...OTHER_PRODUCT_TYPES.map((t) => ({
      id: refId(flavour, t.id),
      name: t.name,
      display_name: t.name,
      description: null,
      type: { ...t.type, id: refId(flavour, t.type.id) },
      category: { id: refId(flavour, '1'), name: 'IT' },
    })),
  ];
}

/** Asset `i` as the new lists give it (`generic`: as `asset_assets` lists it, with `module`). */
export function productTypeAssetRecord(data: SdpDataset, i: number, flavour: Flavour, generic: boolean): Json {
  const old = assetRecord(data, i, flavour);
  const pt = productTypeOf(data.seed, i, data.estate);
  const { product_type: _pt, type: _type, ip_addresses: ips, mac_addresses: macs, product, ...rest } = old;
  const p = product as Json;
  const row: Json = { ...rest, product: { id: p.id, name: p.name }, retain_user_site: true, is_loanable: false };
  if (generic) row.module = { id: refId(flavour, String(60 + Number(pt.id))), name: pt.name };
  if (COMPUTERS.has(pt.name)) {
    row.network_adapters = ips ? [{ name: 'Ethernet', ip_address: ips, mac_address: macs, dhcp_enabled: true, default_gateway: null }] : [];
    row.computer_system = { system_manufacturer: p.manufacturer, model: p.name, service_tag: old.serial_number };
    row.operating_system = { os: pt.name === 'Server' ? 'Windows Server 2022' : 'Windows 11 Enterprise', version: null };
  } else {
    row.ip_address = ips;
    row.mac_address = macs;
  }
  return row;
}
