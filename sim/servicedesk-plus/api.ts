// SDP API v3 stand-in: module routing per flavour (cloud: /app/<portal>/api/v3, OAuth scopes; on-prem:
// /api/v3, technician key), `input_data` → `list_info` (row_count ≤ 100, start_index, sort, search
// criteria on time fields, fields_required, filter_by), envelopes as the recorded responses show them.
// Assets through the old `/assets`, the per-product-type lists of build 15100+, or both (`AssetApiMode`).
import { productTypeOf } from './assets.ts';
import { CI_TYPES, type Flavour, indexOf, type Json, type KindName, SdpDataset } from './data.ts';
import { type AssetApiMode, GENERIC_ASSET_PATH, productTypeAssetRecord, productTypeOfPath, productTypeRows } from './product-types.ts';

export interface ApiAnswer {
  status: number;
  body: Json;
}

export const ok = (): Json => ({ status_code: 2000, status: 'success' });

export function sdpError(status: number, code: number, message: string, field?: string): ApiAnswer {
  return {
    status,
    body: { response_status: { status_code: 4000, messages: [{ status_code: code, ...(field ? { field } : {}), type: 'failed', message }], status: 'failed' } },
  };
}

export const invalidUrl = (): ApiAnswer => sdpError(404, 4007, 'Invalid URL');

interface Route {
  kinds: KindName[];
  /** Collection key and singular key in the response. */
  key: string;
  single: string;
  /** Scope names any one of which grants read (cloud). */
  scopes: string[];
  /** Module name used in permission denials (on-prem). */
  module: string;
  id?: string;
  ciTypes?: boolean;
  productTypes?: boolean;
  /** Per-product-type asset rows: of this product type (by PRODUCT_TYPES id), or every type ('*'). */
  assetType?: string;
}

/** Resolves the module path (after /api/v3/) for a flavour. */
export function route(path: string, flavour: Flavour, assetApi: AssetApiMode = 'both'): Route | null {
  const parts = path.split('/').filter(Boolean);
  const [a, b, c] = parts;
  if (!a) return null;
  const simple = (kinds: KindName[], key: string, single: string, scopes: string[], module: string, id?: string): Route => ({
    kinds,
    key,
    single,
    scopes,
    module,
    id,
  });
  if (a === 'requests' && parts.length <= 2) return simple(['requests'], 'requests', 'request', ['requests'], 'requests', b);
  if (a === 'product_types' && parts.length === 1)
    return { kinds: [], key: 'product_types', single: 'product_type', scopes: ['assets'], module: 'assets', productTypes: true };
  if (a === 'assets' && parts.length <= 2 && assetApi !== 'product-type') return simple(['assets'], 'assets', 'asset', ['assets'], 'assets', b);
  if (a.startsWith('asset_') && parts.length <= 2 && assetApi !== 'legacy') {
    const t = a === GENERIC_ASSET_PATH ? '*' : productTypeOfPath(a)?.id;
    if (t) return { ...simple(['assets'], a, a.replace(/s$/, ''), ['assets'], 'assets', b), assetType: t };
  }
  if (a === 'technicians' && parts.length <= 2) return simple(['technicians'], 'technicians', 'technician', ['technicians', 'users'], 'technicians', b);
  if (a === 'requesters' && parts.length <= 2) return simple(['requesters'], 'requesters', 'requester', ['users'], 'users', b);
  if (a === 'service_categories' && parts.length <= 2)
    return simple(['service_categories'], 'service_categories', 'service_category', ['setup'], 'service_categories', b);
  if (flavour === 'onprem') {
    if (a === 'users' && parts.length <= 2) return simple(['technicians', 'requesters'], 'users', 'user', ['users'], 'users', b);
    if (a === 'ci_types' && parts.length === 1) return { kinds: [], key: 'ci_types', single: 'ci_type', scopes: ['cmdb'], module: 'cmdb', ciTypes: true };
    const t = CI_TYPES.find((x) => x.api_plural_name === a);
    if (t && parts.length <= 2) return simple([t.kind], t.api_plural_name, t.api_name, ['cmdb'], 'cmdb', b);
    return null;
  }
  if (a === 'cmdb') {
    if (b === 'ci_types' && parts.length === 2) return { kinds: [], key: 'ci_types', single: 'ci_type', scopes: ['cmdb'], module: 'cmdb', ciTypes: true };
    const t = CI_TYPES.find((x) => x.api_name === b);
    if (t && parts.length <= 3) return simple([t.kind], t.api_name, t.api_name, ['cmdb'], 'cmdb', c);
  }
  return null;
}

interface Criterion {
  field: string;
  op: 'gt' | 'gte' | 'lt' | 'lte' | 'eq' | 'between';
  values: number[];
  or: boolean;
}

const OPS: Record<string, Criterion['op']> = {
  'greater than': 'gt',
  gt: 'gt',
  'greater or equal': 'gte',
  gte: 'gte',
  'lesser than': 'lt',
  lt: 'lt',
  'lesser or equal': 'lte',
  lte: 'lte',
  is: 'eq',
  eq: 'eq',
  '=': 'eq',
  between: 'between',
};

const SEARCHABLE = new Set(['last_updated_time', 'created_time', 'id']);
const FILTERS = new Set(['All_Requests', 'Open_System', 'Open_User', 'Overdue_System', 'Completed_System']);

interface ListInfo {
  rowCount: number;
  startIndex: number;
  sortField: string;
  sortOrder: 'asc' | 'desc';
  criteria: Criterion[];
  rawCriteria: unknown;
  totalCount: boolean;
  fieldsRequired: string[] | null;
}

function parseListInfo(input: string | null, r: Route): ListInfo | ApiAnswer {
  let doc: Json = {};
  if (input) {
    try {
      doc = JSON.parse(input) as Json;
    } catch {
      return sdpError(400, 4001, 'Invalid Input', 'input_data');
    }
  }
  const li = (doc.list_info ?? {}) as Json;
  const num = (v: unknown, d: number) => (v === undefined ? d : typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN);
  const rowCount = num(li.row_count, 10);
  const startIndex = num(li.start_index, 1);
  if (!Number.isInteger(rowCount) || rowCount < 1) return sdpError(400, 4001, 'Invalid Input', 'row_count');
  if (!Number.isInteger(startIndex) || startIndex < 1) return sdpError(400, 4001, 'Invalid Input', 'start_index');
  const defaultSort = r.key === 'requests' ? 'created_time' : 'id';
  const sortField = li.sort_field === undefined ? defaultSort : String(li.sort_field);
  const sortable = r.key === 'requests' ? ['created_time', 'last_updated_time', 'id', 'due_by_time'] : ['created_time', 'last_updated_time', 'id', 'name'];
  if (!sortable.includes(sortField) || (r.key === 'service_categories' && sortField !== 'id' && sortField !== 'name'))
    return sdpError(400, 4001, 'Invalid Input', 'sort_field');
  const sortOrder = li.sort_order === undefined ? (r.key === 'requests' ? 'desc' : 'asc') : String(li.sort_order).toLowerCase();
  if (sortOrder !== 'asc' && sortOrder !== 'desc') return sdpError(400, 4001, 'Invalid Input', 'sort_order');
  const criteria: Criterion[] = [];
  if (li.search_criteria !== undefined) {
    const list = Array.isArray(li.search_criteria) ? li.search_criteria : [li.search_criteria];
    for (const [n, raw] of list.entries()) {
      const c = (raw ?? {}) as Json;
      const field = String(c.field ?? '');
      const op = OPS[String(c.condition ?? '').toLowerCase()];
      const vals = (Array.isArray(c.values) ? c.values : [c.value]).map((v) => Number(v));
      if (!SEARCHABLE.has(field) || !op || vals.some((v) => !Number.isFinite(v)) || (op === 'between' && vals.length !== 2)) {
        return sdpError(400, 4001, 'Invalid Input', 'search_criteria');
      }
      if (r.key === 'service_categories' && field !== 'id') return sdpError(400, 4001, 'Invalid Input', 'search_criteria');
      criteria.push({ field, op, values: vals, or: n > 0 && String(c.logical_operator ?? 'AND').toUpperCase() === 'OR' });
    }
  }
  if (li.filter_by !== undefined && r.key === 'requests') {
    const name = (li.filter_by as Json | null)?.name;
    if (typeof name !== 'string' || !FILTERS.has(name)) return sdpError(400, 4001, 'Invalid Input', 'filter_by');
  }
  const fr = li.fields_required;
  return {
    rowCount: Math.min(100, rowCount),
    startIndex,
    sortField,
    sortOrder,
    criteria,
    rawCriteria: li.search_criteria,
    totalCount: li.get_total_count === true || li.get_total_count === 'true',
    fieldsRequired: Array.isArray(fr) ? fr.map(String) : null,
  };
}

function test(c: Criterion, v: number | null): boolean {
  if (v === null) return false;
  const [a, b] = c.values as [number, number];
  switch (c.op) {
    case 'gt':
      return v > a;
    case 'gte':
      return v >= a;
    case 'lt':
      return v < a;
    case 'lte':
      return v <= a;
    case 'eq':
      return v === a;
    case 'between':
      return v >= a && v <= b;
  }
}

interface Selection {
  total: number;
  at(j: number): { kind: KindName; i: number };
}

/** Matching records in order; a single kind with AND-ed range criteria on the sort field is a binary search. */
function select(data: SdpDataset, kinds: KindName[], li: ListInfo, only?: (i: number) => boolean): Selection {
  const value = (kind: KindName, i: number, f: string) => data.sortValue(kind, i, f);
  const pass = (kind: KindName, i: number) => {
    if (only && !only(i)) return false;
    let r = true;
    for (const [n, c] of li.criteria.entries()) {
      const t = test(c, value(kind, i, c.field));
      r = n === 0 ? t : c.or ? r || t : r && t;
    }
    return r;
  };
  const onSortField = li.criteria.every((c) => c.field === li.sortField && !c.or);
  if (kinds.length === 1 && onSortField && !only) {
    const kind = kinds[0]!;
    const asc = data.order(kind, li.sortField, 'asc');
    const v = (p: number) => value(kind, asc[p]!, li.sortField) ?? Number.NEGATIVE_INFINITY;
    const firstWhere = (ok: (x: number) => boolean) => {
      let lo = 0;
      let hi = asc.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (ok(v(mid))) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    };
    let p0 = 0;
    let p1 = asc.length;
    for (const c of li.criteria) {
      const [a, b] = c.values as [number, number];
      p0 = Math.max(
        p0,
        firstWhere((x) => x > Number.NEGATIVE_INFINITY),
      );
      if (c.op === 'gt')
        p0 = Math.max(
          p0,
          firstWhere((x) => x > a),
        );
      if (c.op === 'gte' || c.op === 'eq' || c.op === 'between')
        p0 = Math.max(
          p0,
          firstWhere((x) => x >= a),
        );
      if (c.op === 'lt')
        p1 = Math.min(
          p1,
          firstWhere((x) => x >= a),
        );
      if (c.op === 'lte')
        p1 = Math.min(
          p1,
          firstWhere((x) => x > a),
        );
      if (c.op === 'eq')
        p1 = Math.min(
          p1,
          firstWhere((x) => x > a),
        );
      if (c.op === 'between')
        p1 = Math.min(
          p1,
          firstWhere((x) => x > b),
        );
    }
    const total = Math.max(0, p1 - p0);
    return { total, at: (j) => ({ kind, i: asc[li.sortOrder === 'asc' ? p0 + j : p1 - 1 - j]! }) };
  }
  const all: { kind: KindName; i: number; v: number }[] = [];
  for (const kind of kinds) {
    for (const i of data.order(kind, 'id', 'asc')) if (pass(kind, i)) all.push({ kind, i, v: value(kind, i, li.sortField) ?? Number.NEGATIVE_INFINITY });
  }
  all.sort((x, y) => x.v - y.v || x.kind.localeCompare(y.kind) || x.i - y.i);
  if (li.sortOrder === 'desc') all.reverse();
  return { total: all.length, at: (j) => all[j]! };
}

function listRow(data: SdpDataset, kind: KindName, i: number, flavour: Flavour, li: ListInfo, r: Route): Json {
  if (r.assetType) return productTypeAssetRecord(data, i, flavour, r.assetType === '*');
  const rec = data.record(kind, i, flavour);
  if (kind !== 'requests') return rec;
  const keep = new Set([...SdpDataset.REQUEST_LIST_FIELDS, ...(flavour === 'cloud' ? ['display_id'] : []), ...(li.fieldsRequired ?? [])]);
  const out: Json = {};
  for (const [k, v] of Object.entries(rec)) if (keep.has(k)) out[k] = v;
  return out;
}

export function handleModule(data: SdpDataset, r: Route, flavour: Flavour, inputData: string | null): ApiAnswer {
  if (r.ciTypes) {
    const types = CI_TYPES.map((t) => ({
      id: flavour === 'cloud' ? `12364000000${t.id.padStart(7, '0')}` : t.id,
      name: t.name,
      api_name: t.api_name,
      api_plural_name: t.api_plural_name,
      description: null,
    }));
    return { status: 200, body: { response_status: [ok()], list_info: { has_more_rows: false, start_index: 1, row_count: types.length }, ci_types: types } };
  }
  if (r.productTypes) {
    const rows = productTypeRows(flavour);
    return { status: 200, body: { response_status: [ok()], list_info: { has_more_rows: false, start_index: 1, row_count: rows.length }, product_types: rows } };
  }
  const only = r.assetType && r.assetType !== '*' ? (i: number) => productTypeOf(data.seed, i, data.estate).id === r.assetType : undefined;
  if (r.id !== undefined) {
    for (const kind of r.kinds) {
      const i = indexOf(kind, r.id);
      if (data.exists(kind, i) && (!only || only(i)))
        return {
          status: 200,
          body: {
            [r.single]: r.assetType ? productTypeAssetRecord(data, i, flavour, r.assetType === '*') : data.record(kind, i, flavour),
            response_status: ok(),
          },
        };
    }
    return invalidUrl();
  }
  const li = parseListInfo(inputData, r);
  if ('status' in li) return li;
  const sel = select(data, r.kinds, li, only);
  const rows: Json[] = [];
  for (let j = li.startIndex - 1; j < sel.total && rows.length < li.rowCount; j++) {
    const e = sel.at(j);
    rows.push(listRow(data, e.kind, e.i, flavour, li, r));
  }
  const listInfo: Json = {
    has_more_rows: li.startIndex - 1 + rows.length < sel.total,
    start_index: li.startIndex,
    sort_field: li.sortField,
    sort_order: li.sortOrder,
    row_count: rows.length,
  };
  if (li.rawCriteria !== undefined) listInfo.search_criteria = li.rawCriteria;
  if (li.totalCount) listInfo.total_count = sel.total;
  return { status: 200, body: { response_status: [ok()], list_info: listInfo, [r.key]: rows } };
}
