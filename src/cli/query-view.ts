// What `tributary query` shows and in which order: the chosen fields, the table's default columns
// (a host's name and address in place of its id), and a default order a reader can scan.
import { InputError } from '../core/errors.ts';
import { fieldsOf, hasHost, type ModelName, SEVERITY_ORDER } from '../core/models.ts';
import type { Filter, QueryOptions, SortSpec, Store } from '../store/index.ts';
import type { StoredRecord } from '../core/models.ts';

/** The table's pseudo-column for host-bound models: the host's name and address instead of its id. */
export const HOST_COLUMN = 'host';

/** Columns of the table when --fields is not given: what a reader scans first, fitting 120 columns. */
const TABLE_COLUMNS: Record<ModelName, string[]> = {
  hosts: ['hostname', 'ipAddresses', 'os', 'repository', 'scannerLastSeen', 'source'],
  software: [HOST_COLUMN, 'name', 'version', 'source'],
  ports: [HOST_COLUMN, 'port', 'protocol', 'service', 'source'],
  vulnerabilities: ['severity', 'pluginId', 'pluginName', HOST_COLUMN, 'port', 'status', 'lastSeen', 'source'],
  compliance: [HOST_COLUMN, 'benchmark', 'ruleName', 'result', 'source'],
  tickets: ['displayId', 'subject', 'kind', 'status', 'priority', 'assignee', 'updatedAt', 'source'],
  'cmdb-assets': ['name', 'productType', 'ipAddresses', 'state', 'assignedUser', 'source'],
  users: ['name', 'email', 'department', 'isTechnician', 'status', 'source'],
  services: ['name', 'category', 'owner', 'status', 'source'],
  plugins: ['pluginId', 'name', 'family', 'riskFactor', 'cvssV3BaseScore', 'source'],
  assets: ['name', 'matchRule', 'owner', 'department', 'site', 'lastScanned'],
};

/** The default order's field per model (findings: by severity, worst first, then by plugin name). */
const DEFAULT_SORT: Record<ModelName, string> = {
  hosts: 'hostname',
  software: 'name',
  ports: 'port',
  vulnerabilities: 'pluginName',
  compliance: 'ruleName',
  tickets: 'subject',
  'cmdb-assets': 'name',
  users: 'name',
  services: 'name',
  plugins: 'name',
  assets: 'name',
};

/** `--fields a,b,c`: known fields of the model (and `host` for host-bound ones), else exit 2 naming them. */
export function parseFields(model: ModelName, spec: string | undefined): string[] | null {
  if (spec === undefined) return null;
  const known = fieldsOf(model).map((f) => f.name);
  if (hasHost(model)) known.push(HOST_COLUMN);
  const fields = spec
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  if (fields.length === 0) throw new InputError('--fields names no field; use --fields a,b,c', 'fields');
  for (const f of fields) if (!known.includes(f)) throw new InputError(`unknown field '${f}' for ${model}; fields: ${known.join(', ')}`, 'fields');
  return fields;
}

/** `--sort FIELD[:desc|:asc]` (the store refuses a field it cannot sort by, naming the sortable ones). */
export function parseSortOption(spec: string | undefined): SortSpec | null {
  if (spec === undefined) return null;
  const m = /^([A-Za-z][A-Za-z0-9]*)(?::(asc|desc))?$/i.exec(spec.trim());
  if (!m) throw new InputError(`malformed --sort '${spec}': use FIELD or FIELD:desc`, 'sort');
  return { field: m[1]!, desc: m[2]?.toLowerCase() === 'desc' };
}

/** One pass of the query: extra filters and the order within them. */
export interface QueryPass {
  filters: Filter[];
  sort: SortSpec;
}

/**
 * The passes that read a query in order. With --sort, one. By default findings are read one severity
 * at a time, worst first (then those without one), each by plugin name: severity then name, with the
 * store's keyset paging within each pass.
 */
export function queryPasses(model: ModelName, sort: SortSpec | null): QueryPass[] {
  if (sort) return [{ filters: [], sort }];
  const byName: SortSpec = { field: DEFAULT_SORT[model] };
  if (model !== 'vulnerabilities') return [{ filters: [], sort: byName }];
  return [...[...SEVERITY_ORDER].reverse(), 'null'].map((value) => ({ filters: [{ field: 'severity', op: '=', value }], sort: byName }));
}

/** The columns a table shows: --fields, else the model's default ones (without `source` when one source is asked). */
export function tableColumns(model: ModelName, fields: string[] | null, oneSource: boolean): string[] {
  return fields ?? TABLE_COLUMNS[model].filter((c) => c !== 'source' || !oneSource);
}

/** A host's label for the table: its name and first address (or its id when it has neither). */
export function hostLabel(host: { hostname: string | null; ipAddresses: string[] } | undefined, id: string): string {
  if (!host) return id;
  const ip = host.ipAddresses[0];
  if (host.hostname && ip) return `${host.hostname} (${ip})`;
  return host.hostname ?? ip ?? id;
}

/** Pages of a query in its passes' order, at most `limit` records, `pageSize` at a time. */
export async function* readInOrder(
  store: Store,
  model: ModelName,
  passes: QueryPass[],
  opts: Pick<QueryOptions, 'sourceIds' | 'filters'>,
  limit: number,
  pageSize = 10_000,
): AsyncGenerator<StoredRecord[]> {
  let read = 0;
  for (const pass of passes) {
    let cursor: string | null = null;
    do {
      const page = await store.records.query(model, {
        sourceIds: opts.sourceIds,
        filters: [...(opts.filters ?? []), ...pass.filters],
        sort: pass.sort,
        cursor,
        limit: Math.min(pageSize, limit - read),
      });
      read += page.records.length;
      cursor = page.nextCursor;
      if (page.records.length) yield page.records;
    } while (cursor && read < limit);
    if (read >= limit) return;
  }
}
