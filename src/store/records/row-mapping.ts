// Record rows and StoredRecord: what a record query selects and joins (its source's name, a finding's
// plugin text and host placement), and a row mapped back to the model's fields.
import { COMMON_FIELDS, COMPUTED_FIELDS, MODEL_FIELDS, type ModelName, type StoredRecord } from '../../core/models.ts';
import type { Row } from '../db/driver.ts';
import { columnOf, fromColumnValue, q, tableOf } from '../db/schema.ts';
import { nowIso } from '../db/rows.ts';
import { FINDING_EXCEPTION_SQL, withException } from '../exceptions/exceptions.ts';
import { withSla } from './sla.ts';
import { explainAndFactors, type PriorityConfig, type PriorityFacts } from '../../core/priority.ts';
import { priorityConfig } from './priority.ts';

/** The facts a stored finding's decision and priority are computed from (core/priority.ts). */
function factsOf(r: Record<string, unknown>): PriorityFacts {
  const n = (v: unknown) => (typeof v === 'number' ? v : null);
  return {
    status: r.status,
    severity: r.severity,
    knownExploited: r.knownExploited === true,
    epssScore: n(r.epssScore),
    exploitAvailable: r.exploitAvailable === true,
    cvssV3BaseScore: n(r.cvssV3BaseScore),
    cvssV2BaseScore: n(r.cvssV2BaseScore),
    cvssV3Vector: r.cvssV3Vector,
    cvssV2Vector: r.cvssV2Vector,
    criticality: n(r.assetCriticality),
  };
}

/** Sets a stored finding's `priorityReason` and `priorityFactors` (reasonOf and factorsOf, its decision worked out once). */
export function withPriority(r: Record<string, unknown>, config: PriorityConfig = priorityConfig()): void {
  if (r.decision === null || r.decision === undefined) {
    r.priorityReason = null;
    r.priorityFactors = null;
    return;
  }
  const e = explainAndFactors(factsOf(r), config);
  r.priorityReason = e.reason;
  r.priorityFactors = e.factors;
}

/** The column a finding's row carries its risk exception in (exceptions.ts FINDING_EXCEPTION_SQL). */
export const EXCEPTION_COLUMN = 'exception_match';

export function rowToRecord(model: ModelName, row: Row): StoredRecord {
  const out: Record<string, unknown> = {};
  for (const f of COMMON_FIELDS) {
    if (f.name === 'source') out.source = row.source_name;
    else out[f.name] = fromColumnValue(f, row[columnOf(f.name)]);
  }
  for (const f of MODEL_FIELDS[model]) out[f.name] = fromColumnValue(f, row[columnOf(f.name)]);
  const joined = JOINED[model];
  if (joined) for (const field of Object.keys(joined)) out[field] = (row[joinedAlias(field)] as string | null | undefined) ?? null;
  if (model === 'vulnerabilities') {
    withException(out, row[EXCEPTION_COLUMN], nowIso());
    withSla(out);
    withPriority(out);
  }
  return out as StoredRecord;
}

/**
 * Fields read from another table (models.ts COMPUTED_FIELDS), by the expression that reads them: a
 * finding's plugin text (`p`, rec_plugins) and its host's placement by correlation (`h`, rec_hosts).
 */
export const JOINED: Partial<Record<ModelName, Record<string, string>>> = {
  vulnerabilities: {
    synopsis: 'p."synopsis"',
    solution: 'p."solution"',
    assetId: 'h."asset_id"',
    owner: 'h."owner"',
    department: 'h."department"',
    site: 'h."site"',
  },
};

/** The column name a joined field is selected as (never one of the record table's own). */
function joinedAlias(field: string): string {
  return `joined_${columnOf(field)}`;
}

/** A model's joined fields (all text) and the columns recordColumns selects them as. */
export function joinedColumns(model: ModelName): { name: string; column: string }[] {
  return Object.keys(JOINED[model] ?? {}).map((name) => ({ name, column: joinedAlias(name) }));
}

/** What a record query selects: the record, its source's name, its joined fields and (a finding) its risk exception. */
export function recordColumns(model: ModelName, opts: { exceptions?: boolean } = {}): string {
  const joined = Object.entries(JOINED[model] ?? {}).map(([field, expr]) => `, ${expr} AS ${q(joinedAlias(field))}`);
  // `exceptions: false`: the caller knows no exception is proposed or approved (the findings read none).
  const exception = model === 'vulnerabilities' && opts.exceptions !== false ? `, ${FINDING_EXCEPTION_SQL} AS "${EXCEPTION_COLUMN}"` : '';
  return `r.*, s."name" AS "source_name"${joined.join('')}${exception}`;
}

/** The FROM clause of a record query (the table as `r`, its source as `s`; a finding's plugin as `p` and host as `h`). */
export function recordFrom(model: ModelName): string {
  const base = `${q(tableOf(model))} r ${sourceJoin(model)}`;
  return model === 'vulnerabilities'
    ? `${base} LEFT JOIN "rec_plugins" p ON p."source_id" = r."source_id" AND p."plugin_id" = r."plugin_id" LEFT JOIN "rec_hosts" h ON h."id" = r."host_id"`
    : base;
}

/** Records join their source for its name; correlated assets belong to no source (their `source` is null). */
export function sourceJoin(model: ModelName): string {
  return `${model === 'assets' ? 'LEFT ' : ''}JOIN "sources" s ON s."id" = r."source_id"`;
}

/** A field computed when read (models.ts COMPUTED_FIELDS), not a column. */
export function isComputed(model: ModelName, field: string): boolean {
  return COMPUTED_FIELDS[model]?.some((f) => f.name === field) ?? false;
}
