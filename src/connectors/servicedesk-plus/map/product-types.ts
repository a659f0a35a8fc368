// Product types (`/api/v3/product_types`) → the asset list endpoint of each type. Builds from 15100 on
// (and current cloud tenants) list assets per product type, `asset_<plural of the type>` (Access Point →
// `asset_access_points`, Switch → `asset_switches`), the generic list being `asset_assets`. Pure.
import type { Json } from './envelope.ts';
import { refName, text } from './values.ts';

export interface AssetProductType {
  id: string | null;
  /** Display name, kept as the asset's product type. */
  name: string;
  /** List endpoint under /api/v3 (also the collection key of its answers). */
  path: string;
}

/** The generic list of every asset whatever its type (the old `/assets`, renamed). */
export const GENERIC_ASSET_PATH = 'asset_assets';

/** `Access Point` → `access_points`, `Switch` → `switches`, `Battery` → `batteries`. */
export function pluralSnake(name: string): string {
  const snake = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!snake) return '';
  if (/(s|x|z|ch|sh)$/.test(snake)) return `${snake}es`;
  if (/[^aeiou]y$/.test(snake)) return `${snake.slice(0, -1)}ies`;
  return `${snake}s`;
}

/** Product types that are not assets (components, software, consumables) have no asset list. */
function isAssetType(row: Json): boolean {
  const type = refName(row.type);
  return type === null || /^(it |non-it )?assets?$/i.test(type);
}

/**
 * The endpoint of one product type, or null when it is not an asset type. An API name the server
 * gives (`api_plural_name`, UNCERTAIN whether any build sends it) wins over the derived one.
 */
export function assetProductType(row: Json): AssetProductType | null {
  if (!row || typeof row !== 'object' || !isAssetType(row)) return null;
  const name = text(row.display_name) ?? text(row.name) ?? text(row.internal_name);
  if (!name) return null;
  const given = text(row.api_plural_name);
  if (given && /^asset_[a-z0-9_]+$/.test(given)) return { id: text(row.id), name, path: given };
  const plural = pluralSnake(text(row.internal_name) ?? text(row.name) ?? name);
  if (!plural) return null;
  return { id: text(row.id), name, path: `asset_${plural}` };
}

/** Asset product types of a `product_types` list, one per endpoint, in the order listed. */
export function assetProductTypes(rows: Json[]): AssetProductType[] {
  const out: AssetProductType[] = [];
  for (const row of rows) {
    const t = assetProductType(row);
    if (t && t.path !== GENERIC_ASSET_PATH && !out.some((o) => o.path === t.path)) out.push(t);
  }
  return out;
}

/**
 * Lists of ServiceDesk Plus's default product types, tried only when the server neither lists its
 * product types nor has the generic list (a server's own and renamed types cannot be found then).
 */
export const DEFAULT_ASSET_PRODUCT_TYPES: AssetProductType[] = [
  'Workstation',
  'Server',
  'Virtual Machine',
  'Virtual Host',
  'Access Point',
  'Router',
  'Switch',
  'Firewall',
  'Printer',
  'Scanner',
  'Projector',
  'Mobile Device',
].map((name) => ({ id: null, name, path: `asset_${pluralSnake(name)}` }));
