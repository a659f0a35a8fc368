// Writing and reading normalized records: idempotent batched upserts keyed on our stable id,
// first/last-seen stamping, the vulnerability status rules, the sweep, and filtered queries.
import { hash } from 'node:crypto';
import { InputError } from '../core/errors.ts';
import type { SweepScope } from '../core/connector.ts';
import { createLogger } from '../core/log.ts';
import {
  COMMON_FIELDS,
  COMPUTED_FIELDS,
  type FieldDef,
  fieldsOf,
  hasHost,
  type IncomingRecord,
  MODEL_FIELDS,
  type ModelName,
  type StoredRecord,
} from '../core/models.ts';
import { type CveColumns, cvePairRows, withCvePlugins, writeCvePairs } from './cve-plugins.ts';
import { FINDING_TIMES, findingTime, recordSweepChanges, statusColumnAt, sweepFixedAt } from './changes.ts';
import type { Driver, InsertSql, Row } from './driver.ts';
import { columnOf, fromColumnValue, q, sortOnlyExpression, tableOf, toColumnValue } from './schema.ts';
import { slaFilterClause, withSla } from './sla.ts';
import { summarySource } from './summaries.ts';
import { sqlCount } from './rows.ts';
import { runsSinceSql, type Since, sinceClause } from './since.ts';

/**
 * Our record id: stable across runs, stores and machines for the same source name and natural key.
 * 32 hex digits of SHA-256. A record that belongs to a host (finding, software, port, compliance
 * result) starts with the first 12 digits of its host's id, followed by 20 of its own hash: a host's
 * records sit together in the id index, so storing a host's page of findings writes a few index pages
 * instead of one random page per record (bench/tenable-sc-csv, 1M rows: 95 → 56 s), and the host's
 * records are one id range.
 */
export function recordId(source: string, model: ModelName, key: string, hostId?: string): string {
  // One-shot crypto.hash: the same SHA-256 as createHash().update().digest(), without the objects.
  const own = hash('sha256', `${source}\u0000${model}\u0000${key}`, 'hex');
  return hostId === undefined ? own.slice(0, 32) : hostId.slice(0, HOST_PREFIX) + own.slice(0, 32 - HOST_PREFIX);
}

/** Hex digits of a host's id that prefix the ids of its records (migration 3 spells the same 12). */
export const HOST_PREFIX = 12;

export interface WriteStamp {
  sourceId: string;
  sourceName: string;
  runId: string;
  generation: string;
  now: string;
}

interface Shape {
  fields: FieldDef[];
  upstreamFirst: boolean;
  upstreamLast: boolean;
  /** The records carry their origin (file imports). */
  origin: boolean;
  /** The records only fill fields the stored record lacks (IncomingRecord.fill). */
  fill: boolean;
}

/**
 * The union of two JSON arrays of strings as JSON text, sorted (SQLite, PostgreSQL): an `accumulate`
 * field written twice in one generation keeps the values of both writes.
 */
function jsonUnion(dialect: 'sqlite' | 'postgres', a: string, b: string): string {
  return dialect === 'sqlite'
    ? `(SELECT json_group_array(v) FROM (SELECT value AS v FROM json_each(${a}) UNION SELECT value FROM json_each(${b}) ORDER BY 1))`
    : `(SELECT COALESCE(json_agg(v ORDER BY v COLLATE "C"), '[]'::json)::text FROM (SELECT json_array_elements_text(${a}::json) AS v UNION SELECT json_array_elements_text(${b}::json)) u)`;
}

const insertCache = new Map<string, InsertSql>();

function insertSqlFor(model: ModelName, shape: Shape): InsertSql {
  const cacheKey = `${model}|${shape.fields.map((f) => f.name).join(',')}|${shape.upstreamFirst}|${shape.upstreamLast}|${shape.origin}|${shape.fill}`;
  const hit = insertCache.get(cacheKey);
  if (hit) return hit;
  const table = q(tableOf(model));
  const base = [
    'id',
    'source_id',
    'natural_key',
    'external_id',
    'first_seen',
    'last_seen',
    'removed',
    'seen_gen',
    'seen_run',
    ...(shape.origin ? ['origin'] : []),
  ];
  const cols = [...base, ...shape.fields.map((f) => columnOf(f.name))];
  const updates = ['external_id', 'removed', 'seen_gen', 'seen_run', 'last_seen', ...(shape.origin ? ['origin'] : [])].map((c) => `${q(c)} = excluded.${q(c)}`);
  // A record's first-seen date is the upstream's when it gives one, else when we first saw it.
  if (shape.upstreamFirst) updates.push(`"first_seen" = excluded."first_seen"`);
  const tails = { sqlite: [...updates], postgres: [...updates] };
  for (const f of shape.fields) {
    const c = q(columnOf(f.name));
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const u = tails[dialect];
      if (shape.fill) {
        // A less trusted row's value: kept only where the stored record has none.
        u.push(`${c} = COALESCE(${table}.${c}, excluded.${c})`);
      } else if (model === 'vulnerabilities' && f.name === 'status') {
        // Seen open again after it was fixed (or swept) → reopened; reopened stays until fixed.
        u.push(`${c} = CASE WHEN excluded.${c} = 'open' AND ${table}.${c} IN ('fixed', 'reopened') THEN 'reopened' ELSE excluded.${c} END`);
      } else if (model === 'vulnerabilities' && FINDING_TIMES.includes(f.name)) {
        // Written when the finding is first stored; later moves are stamped by the change feed.
      } else if (f.accumulate) {
        // Written again in the same generation (another row of the same finding): the union of both.
        const old = `${table}.${c}`;
        u.push(
          `${c} = CASE WHEN ${table}."seen_gen" = excluded."seen_gen" AND ${old} IS NOT NULL AND excluded.${c} IS NOT NULL AND ${old} <> excluded.${c} THEN ${jsonUnion(dialect, old, `excluded.${c}`)} ELSE excluded.${c} END`,
        );
      } else if (f.ofList) {
        // Of another row of the same finding in the same generation: the least (greatest) of both, as of the united list.
        const old = `${table}.${c}`;
        const keep = `${old} ${f.ofList === 'least' ? '<' : '>'} excluded.${c}`;
        u.push(
          `${c} = CASE WHEN ${table}."seen_gen" = excluded."seen_gen" AND ${old} IS NOT NULL AND (excluded.${c} IS NULL OR ${keep}) THEN ${old} ELSE excluded.${c} END`,
        );
      } else {
        u.push(`${c} = excluded.${c}`);
      }
    }
  }
  const tail = (u: string[]) => ` ON CONFLICT ("id") DO UPDATE SET ${u.join(', ')}`;
  const sql: InsertSql = {
    head: `INSERT INTO ${table} (${cols.map(q).join(',')})`,
    columns: cols.length,
    tail: tail(tails.sqlite),
  };
  const pgTail = tail(tails.postgres);
  if (pgTail !== sql.tail) sql.pgTail = pgTail;
  insertCache.set(cacheKey, sql);
  return sql;
}

interface ModelPlan {
  fields: FieldDef[];
  /** Index of hostId in `fields`, or -1. */
  hostAt: number;
  /** Findings: indexes of fixedAt and reopenedAt in `fields` (the store fills them in), else -1. */
  fixedAt: number;
  reopenedAt: number;
  /**
   * Shapes seen so far by mask: bits 0-2 the upstream first/last dates and origin, bit 3 + i fields[i].
   * Built with arithmetic, not 32-bit bitwise operators: a model may have more than 29 fields (up to 50).
   */
  shapes: Map<number, Shape>;
  /**
   * Names of the model's fields and of its computed ones (read from elsewhere, so one sent is ignored
   * by design): a record field not among them is unknown (checkFields).
   */
  known: Set<string>;
}

const plans = new Map<ModelName, ModelPlan>();

function planOf(model: ModelName): ModelPlan {
  let p = plans.get(model);
  if (!p) {
    // The fields a record writes: not those the store derives (generated columns).
    const fields = MODEL_FIELDS[model].filter((f) => !f.derived);
    // The shape mask (shapeOf) is a double: exact up to 2^53, so 3 flags and at most 50 fields.
    if (fields.length > 50) throw new Error(`${model} has ${fields.length} fields; the store's shape mask holds 50`);
    const timeAt = (name: string) => (model === 'vulnerabilities' ? fields.findIndex((f) => f.name === name) : -1);
    p = {
      fields,
      hostAt: hasHost(model) ? fields.findIndex((f) => f.name === 'hostId') : -1,
      fixedAt: timeAt('fixedAt'),
      reopenedAt: timeAt('reopenedAt'),
      shapes: new Map(),
      known: new Set([...fields, ...(COMPUTED_FIELDS[model] ?? [])].map((f) => f.name)),
    };
    plans.set(model, p);
  }
  return p;
}

/** The shape of a group key: the mask of present fields, negated (-mask - 1) for records that only fill. */
function shapeOf(plan: ModelPlan, key: number): Shape {
  let shape = plan.shapes.get(key);
  if (!shape) {
    const fill = key < 0;
    const mask = fill ? -key - 1 : key;
    const has = (bit: number): boolean => Math.floor(mask / 2 ** bit) % 2 === 1;
    shape = { fields: plan.fields.filter((_, i) => has(i + 3)), upstreamFirst: has(0), upstreamLast: has(1), origin: has(2), fill };
    plan.shapes.set(key, shape);
  }
  return shape;
}

/** A mapper wrote fields its model does not have (the store cannot keep them). */
export interface UnknownFields {
  source: string;
  model: ModelName;
  fields: string[];
}

/**
 * Unknown fields are checked on the first record of each field shape of a page (a mapper writes one
 * object literal, so its records share their keys), which costs a few key walks per page, not one per
 * record; with TRIBUTARY_STRICT_FIELDS=1 (the test suite) every record is checked and an unknown field
 * throws, so a misspelled field fails the tests instead of being dropped.
 */
const strictFields = (): boolean => process.env.TRIBUTARY_STRICT_FIELDS === '1';

let reportUnknown: (u: UnknownFields) => void = (u) => {
  defaultLog ??= createLogger();
  defaultLog.warn(u, 'record fields unknown to the model are not stored');
};
let defaultLog: ReturnType<typeof createLogger> | undefined;

/** Where unknown fields are reported at run time (the app's logger); each (source, model, field) once per process. */
export function setUnknownFieldReporter(report: (u: UnknownFields) => void): void {
  reportUnknown = report;
}

const reportedUnknown = new Set<string>();

function checkFields(plan: ModelPlan, model: ModelName, source: string, rf: Record<string, unknown>, strict: boolean): void {
  const unknown: string[] = [];
  for (const k in rf) if (!plan.known.has(k)) unknown.push(k);
  if (unknown.length === 0) return;
  if (strict) throw new Error(`a ${model} record of ${source} has fields the model does not have: ${unknown.join(', ')}`);
  const fresh = unknown.filter((f) => {
    const key = `${source}\u0000${model}\u0000${f}`;
    if (reportedUnknown.has(key)) return false;
    reportedUnknown.add(key);
    return true;
  });
  // Reporting must never fail a run.
  if (fresh.length > 0)
    try {
      reportUnknown({ source, model, fields: fresh });
    } catch {}
}

/** Rows of one model to upsert through one statement shape (rows are column values, ids computed). */
export interface PreparedUpsert {
  model: ModelName;
  sql: InsertSql;
  rows: unknown[][];
  /** Rows that only make sure a host exists: not stamped by the run, never counted. */
  stub?: boolean;
  /** Column of the rows holding the status the change feed follows, or -1 (changes.ts). */
  statusAt: number;
  /** None of the rows is stored yet (a source's first import, store.ts): each event is `new`, written without comparing. */
  allNew?: boolean;
  /** Findings that write their CVE list: where it and the plugin id are in the rows (cve-plugins.ts). */
  cveColumns?: CveColumns;
  /** The (source, CVE, plugin) rows to add to vuln_cve_plugins with the rows (store.ts sets them). */
  cvePairs?: unknown[][];
}

/** Upserts one page of records of one model. Runs inside the caller's transaction. */
export async function upsertRecords(db: Driver, model: ModelName, records: IncomingRecord[], stamp: WriteStamp): Promise<number> {
  for (const u of prepareUpserts(model, records, stamp)) {
    await db.insertMany(u.sql, u.rows);
    if (u.cveColumns) await writeCvePairs(db, cvePairRows(stamp.sourceId, u.rows, u.cveColumns).pairs);
  }
  return records.length;
}

/**
 * What upserting records of one model writes: ids, stamps and column values, grouped by the fields
 * present (pure: no database, so the rows can be handed to another thread to write).
 */
export function prepareUpserts(model: ModelName, records: IncomingRecord[], stamp: WriteStamp, hostsReferenced?: Map<string, string>): PreparedUpsert[] {
  if (records.length === 0) return [];
  const plan = planOf(model);
  const { fields, hostAt, fixedAt, reopenedAt } = plan;
  const n = fields.length;
  const strict = strictFields();
  // Group by which fields are present: a field left undefined is not touched on update.
  const groups = new Map<number, Map<string, unknown[]>>();
  // Records of a page share few hosts: each host id is hashed once per page.
  const hostIds = new Map<string, string>();
  for (const r of records) {
    if (typeof r.key !== 'string' || r.key === '') throw new InputError(`a ${model} record has no natural key`);
    const rf = r.fields;
    const firstSeen = r.firstSeen ?? null;
    const lastSeen = r.lastSeen ?? null;
    let mask = (firstSeen !== null ? 1 : 0) + (lastSeen !== null ? 2 : 0) + (r.origin !== undefined ? 4 : 0);
    let hostId: string | undefined;
    if (hostAt >= 0) {
      if (!r.hostKey) throw new InputError(`a ${model} record has no host key`);
      hostId = hostIds.get(r.hostKey);
      if (hostId === undefined) {
        hostId = recordId(stamp.sourceName, 'hosts', r.hostKey);
        hostIds.set(r.hostKey, hostId);
        hostsReferenced?.set(hostId, r.hostKey);
      }
    }
    const id = recordId(stamp.sourceName, model, r.key, hostId);
    const row: unknown[] = [id, stamp.sourceId, r.key, r.externalId ?? null, firstSeen ?? stamp.now, lastSeen ?? stamp.now, 0, stamp.generation, stamp.runId];
    if (r.origin !== undefined) row.push(r.origin);
    // (the change feed reads the id at 0 and the external id at 3 of these rows)
    let accAt: number[] | null = null;
    for (let i = 0; i < n; i++) {
      if (i === hostAt) {
        row.push(hostId);
      } else {
        const f = fields[i]!;
        // A finding first stored fixed or reopened carries the time (connectors never send these two).
        const v = i === fixedAt ? findingTime(rf.status, 'fixed', stamp.now) : i === reopenedAt ? findingTime(rf.status, 'reopened', stamp.now) : rf[f.name];
        if (v === undefined) continue;
        if (f.accumulate || f.ofList) {
          // (pairs: the value's place in the row, the field's index)
          accAt ??= [];
          accAt.push(row.length, i);
        }
        row.push(toColumnValue(f, v));
      }
      mask += 2 ** (i + 3);
    }
    if (r.fill) mask = -mask - 1;
    let g = groups.get(mask);
    if (!g || strict) checkFields(plan, model, stamp.sourceName, rf, strict);
    if (!g) {
      g = new Map();
      groups.set(mask, g);
    }
    // The same record twice in a page: the last one wins (PostgreSQL refuses to update a row twice in
    // one statement), with its `accumulate` lists united with the earlier one's.
    const earlier = accAt ? g.get(id) : undefined;
    if (earlier && accAt) {
      for (let k = 0; k < accAt.length; k += 2) {
        const i = accAt[k]!;
        const a = earlier[i];
        const b = row[i];
        const of = fields[accAt[k + 1]!]!.ofList;
        if (of) {
          if (
            a !== null &&
            a !== undefined &&
            (b === null ||
              b === undefined ||
              (of === 'least' ? (a as string | number) < (b as string | number) : (a as string | number) > (b as string | number)))
          )
            row[i] = a;
        } else if (typeof a === 'string' && typeof b === 'string' && a !== b)
          row[i] = JSON.stringify([...new Set([...JSON.parse(a), ...JSON.parse(b)])].sort());
      }
    }
    g.set(id, row);
  }
  return [...groups].map(([mask, rows]) => {
    const shape = shapeOf(plan, mask);
    const names = shape.fields.map((f) => f.name);
    const leading = LEADING_COLUMNS + (shape.origin ? 1 : 0);
    const statusAt = statusColumnAt(model, names, leading);
    const list = [...rows.values()];
    const u: PreparedUpsert = { model, sql: insertSqlFor(model, shape), rows: list, statusAt };
    if (model === 'vulnerabilities' && names.includes('cves')) {
      const pluginAt = names.indexOf('pluginId');
      u.cveColumns = { cves: leading + names.indexOf('cves'), plugin: pluginAt < 0 ? -1 : leading + pluginAt };
    }
    return u;
  });
}

/** Columns of an upsert row before the model's fields (id … seen_run; then origin when the shape has it). */
const LEADING_COLUMNS = 9;

const HOST_STUB_SQL: InsertSql = {
  head: `INSERT INTO "rec_hosts" ("id", "source_id", "natural_key", "first_seen", "last_seen", "removed", "seen_gen")`,
  columns: 7,
  tail: ` ON CONFLICT ("id") DO NOTHING`,
};

/**
 * The store's own guarantee that no record points to a host that does not exist: each host a page's
 * records name (id → natural key) gets a bare row unless it has one. Connectors create hosts from
 * their rows' own fields; this only catches one that did not. A bare row carries the run's
 * generation (this run's sweep leaves it) but not its run id (it is not counted as stored).
 */
export function prepareHostStubs(hosts: Map<string, string>, stamp: WriteStamp): PreparedUpsert | null {
  if (hosts.size === 0) return null;
  const rows = [...hosts].map(([id, key]) => [id, stamp.sourceId, key, stamp.now, stamp.now, 0, stamp.generation]);
  return { model: 'hosts', sql: HOST_STUB_SQL, rows, stub: true, statusAt: -1 };
}

function inList(values: string[], params: unknown[]): string {
  params.push(...values);
  return `(${values.map(() => '?').join(',')})`;
}

/**
 * The live records of a model, within `scope` when given (null: the scope names nothing); with
 * `unseenBy`, those a sweep marks removed: not stamped by that generation.
 */
function liveWhere(model: ModelName, sourceId: string, scope?: SweepScope, unseenBy?: string): { where: string; params: unknown[] } | null {
  const params: unknown[] = [sourceId];
  let where = `"source_id" = ? AND "removed" = 0`;
  if (unseenBy !== undefined) {
    params.push(unseenBy);
    where += ` AND ("seen_gen" IS NULL OR "seen_gen" <> ?)`;
  }
  if (scope) {
    const terms: string[] = [];
    if (scope.origins.length > 0) terms.push(`"origin" IN ${inList(scope.origins, params)}`);
    const hf = scope.hostField;
    if (hf && hf.values.length > 0 && (model === 'hosts' || hasHost(model))) {
      const col = q(columnOf(hf.name));
      if (model === 'hosts') terms.push(`${col} IN ${inList(hf.values, params)}`);
      else {
        params.push(sourceId);
        terms.push(`"host_id" IN (SELECT "id" FROM "rec_hosts" WHERE "source_id" = ? AND ${col} IN ${inList(hf.values, params)})`);
      }
    }
    if (terms.length === 0) return null;
    where += ` AND "origin" IS NOT NULL AND (${terms.join(' OR ')})`;
  }
  return { where, params };
}

/**
 * After a complete full run (or a file snapshot, within its scope): records of the source not stamped by its generation (within `scope` when
 * given) are removed; open findings become fixed. With the sweeping run given, the change feed gets
 * its events first, from the same WHERE (changes.ts).
 */
export async function sweepModel(
  db: Driver,
  model: ModelName,
  sourceId: string,
  generation: string,
  scope?: SweepScope,
  run?: { runId: string; at: string },
): Promise<number> {
  const unseen = liveWhere(model, sourceId, scope, generation);
  if (!unseen) return 0;
  if (run) await recordSweepChanges(db, model, unseen, run);
  const fixedAt = model === 'vulnerabilities' && run ? sweepFixedAt(run.at) : { set: '', params: [] };
  const extra = model === 'vulnerabilities' ? `, "status" = 'fixed'${fixedAt.set}` : '';
  return db.run(`UPDATE ${q(tableOf(model))} SET "removed" = 1${extra} WHERE ${unseen.where}`, [...fixedAt.params, ...unseen.params]);
}

export interface SweepPreview {
  /** Records not marked removed. */
  live: number;
  /** Live records the sweep would mark removed (not seen by the generation). */
  unseen: number;
  /** Records the generation stored. */
  seen: number;
}

/**
 * Within one scope (a repository, a file name): its live records, and how many a sweep would mark
 * removed. The guard refuses a scope's sweep that would remove most of what the scope held.
 */
export async function scopedSweepPreviewModel(
  db: Driver,
  model: ModelName,
  sourceId: string,
  generation: string,
  scope: SweepScope,
): Promise<{ live: number; unseen: number }> {
  const live = liveWhere(model, sourceId, scope);
  if (!live) return { live: 0, unseen: 0 };
  const rows = await db.all(
    `SELECT COUNT(*) AS "live", SUM(CASE WHEN "seen_gen" IS NULL OR "seen_gen" <> ? THEN 1 ELSE 0 END) AS "unseen"
       FROM ${q(tableOf(model))} WHERE ${live.where}`,
    [generation, ...live.params],
  );
  return { live: Number(rows[0]?.live ?? 0), unseen: Number(rows[0]?.unseen ?? 0) };
}

/** What sweepModel() would do, without doing it (the runner's guard against wiping an inventory). */
export async function sweepPreviewModel(db: Driver, model: ModelName, sourceId: string, generation: string, scope?: SweepScope): Promise<SweepPreview> {
  const rows = await db.all(
    `SELECT SUM(CASE WHEN "removed" = 0 THEN 1 ELSE 0 END) AS "live",
            SUM(CASE WHEN "removed" = 0 AND ("seen_gen" IS NULL OR "seen_gen" <> ?) THEN 1 ELSE 0 END) AS "unseen",
            SUM(CASE WHEN "seen_gen" = ? THEN 1 ELSE 0 END) AS "seen"
       FROM ${q(tableOf(model))} WHERE "source_id" = ?`,
    [generation, generation, sourceId],
  );
  const r = rows[0] ?? {};
  const preview = { live: Number(r.live ?? 0), unseen: Number(r.unseen ?? 0), seen: Number(r.seen ?? 0) };
  if (!scope) return preview;
  // A scoped sweep (a file snapshot) removes only what its scope covers.
  const unseen = liveWhere(model, sourceId, scope, generation);
  const scoped = unseen ? await db.all(`SELECT COUNT(*) AS "n" FROM ${q(tableOf(model))} WHERE ${unseen.where}`, unseen.params) : [];
  return { ...preview, unseen: Number(scoped[0]?.n ?? 0) };
}

export type FilterOp = '=' | '!=' | '>' | '>=' | '<' | '<=' | '~';
export interface Filter {
  field: string;
  op: FilterOp;
  value: string;
  /** A findings `cves=` filter: the plugins whose findings may name the CVE (set by the store, cve-plugins.ts). */
  plugins?: string[];
}

export interface QueryOptions {
  sourceIds?: string[];
  filters?: Filter[];
  limit?: number;
  /** Opaque cursor from a previous page. */
  cursor?: string | null;
  /** Records to skip before the page (a page number's start; used only without a cursor). */
  offset?: number;
  /** Order by one field (then by id); nulls last in both directions. Default: by id. */
  sort?: SortSpec | null;
  /**
   * Only records changed in this window (since.ts): last stored by a run it counts, or with an event in
   * the change feed by such a run, which brings the records a sweep fixed or removed.
   */
  changedSince?: Since | null;
}

export interface SortSpec {
  field: string;
  desc?: boolean;
}

export interface QueryPage {
  records: StoredRecord[];
  nextCursor: string | null;
}

function filterClause(model: ModelName, f: Filter, params: unknown[]): string {
  const def = fieldsOf(model).find((d) => d.name === f.field);
  if (!def || f.field === 'source')
    throw new InputError(
      `unknown field '${f.field}' for ${model}; fields: ${fieldsOf(model)
        .map((d) => d.name)
        .join(', ')}`,
      f.field,
    );
  const joined = JOINED[model]?.[f.field];
  if (joined === undefined && isComputed(model, f.field)) return slaFilterClause(f, params);
  const col = joined ?? `r.${q(columnOf(def.name))}`;
  if (f.op === '~') {
    params.push(`%${f.value.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`);
    return `LOWER(${col}) LIKE ? ESCAPE '\\'`;
  }
  if (def.kind === 'json') {
    if (f.op !== '=' && f.op !== '!=') throw new InputError(`${f.field} is a list; use ${f.field}=VALUE to match an element`, f.field);
    // Only the findings of the plugins that may name the CVE are searched (their plugin_id index).
    const plugins = model === 'vulnerabilities' && f.op === '=' ? f.plugins : undefined;
    if (plugins?.length === 0) return '1 = 0';
    if (plugins) params.push(...plugins);
    params.push(`%${JSON.stringify(f.value).replace(/[\\%_]/g, (c) => '\\' + c)}%`);
    const search = `${f.op === '!=' ? 'NOT ' : ''}COALESCE(${col}, '') LIKE ? ESCAPE '\\'`;
    return plugins ? `(r."plugin_id" IN (${plugins.map(() => '?').join(',')}) AND ${search})` : search;
  }
  if (def.values) return enumClause(model, def, f, col, params);
  let v: unknown = f.value;
  if (def.kind === 'bool') {
    const s = f.value.toLowerCase();
    if (s !== 'true' && s !== 'false') throw new InputError(`${f.field} is true or false, got '${f.value}'`, f.field);
    v = s === 'true' ? 1 : 0;
  } else if (def.kind === 'int' || def.kind === 'real') {
    const n = Number(f.value);
    if (f.value.trim() === '' || !Number.isFinite(n)) throw new InputError(`${f.field} is a number, got '${f.value}'`, f.field);
    // An int field is a 32-bit INTEGER column on PostgreSQL: a value past it (or a fraction) was a 500 there.
    if (def.kind === 'int' && !(Number.isInteger(n) && n >= INT_MIN && n <= INT_MAX))
      throw new InputError(`${f.field} must be a whole number from ${INT_MIN} to ${INT_MAX}, got '${f.value.slice(0, 24)}'`, f.field);
    v = n;
  } else if (f.value.toLowerCase() === 'null' && (f.op === '=' || f.op === '!=')) {
    return `${col} IS ${f.op === '=' ? '' : 'NOT '}NULL`;
  }
  params.push(v);
  const op = f.op === '!=' ? '<>' : f.op;
  return `${col} ${op} ?`;
}

/** Rank of an ordered enum's column (null for a value outside it). */
function rankExpression(col: string, values: readonly string[]): string {
  return `(CASE ${col} ${values.map((s, i) => `WHEN '${s}' THEN ${i}`).join(' ')} END)`;
}

/**
 * A filter on an enum field: values compare case-insensitively (`severity=Critical`), a value outside
 * the enum is refused naming the allowed ones, and `<`, `>` follow the enum's order where it has one.
 */
function enumClause(model: ModelName, def: FieldDef, f: Filter, col: string, params: unknown[]): string {
  const values = def.values!;
  const v = f.value.trim().toLowerCase();
  if (v === 'null' && (f.op === '=' || f.op === '!=')) return `${col} IS ${f.op === '=' ? '' : 'NOT '}NULL`;
  if (!values.includes(v)) throw new InputError(`unknown ${f.field} '${f.value}' for ${model}; ${f.field} is one of: ${values.join(', ')}`, f.field);
  if (f.op === '=' || f.op === '!=') {
    params.push(v);
    return `${col} ${f.op === '!=' ? '<>' : '='} ?`;
  }
  if (!def.ordered) throw new InputError(`${f.field} has no order; use ${f.field}=VALUE or ${f.field}!=VALUE (one of: ${values.join(', ')})`, f.field);
  params.push(values.indexOf(v));
  return `${rankExpression(col, values)} ${f.op} ?`;
}

/** The range of an int field's column (INTEGER on both stores). */
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

export async function queryRecords(db: Driver, model: ModelName, opts: QueryOptions): Promise<QueryPage> {
  if (model === 'vulnerabilities') opts = { ...opts, filters: await withCvePlugins(db, opts.filters) };
  const limit = sqlCount(Math.max(1, Math.min(Math.floor(opts.limit ?? 100), 10_000)), 'limit');
  const params: unknown[] = [];
  const where = whereClauses(model, opts, params);
  if (where === null) return { records: [], nextCursor: null };
  const sort = opts.sort && opts.sort.field !== 'id' ? opts.sort : null;
  const desc = opts.sort?.desc === true;
  const dir = desc ? 'DESC' : 'ASC';
  const cmp = desc ? '<' : '>';
  // The page's records are chosen on narrow rows (the id, with only the joins a filter or the sort
  // needs), then read whole: sorting the thousands of findings of a plugin by severity with every
  // column and join took twice as long on SQLite (measured at 1M findings).
  const joins = [...(opts.filters ?? []).map((f) => f.field), ...(sort ? [sort.field] : [])].some((field) => JOINED[model]?.[field] !== undefined);
  const narrowFrom = joins ? recordFrom(model) : `${q(tableOf(model))} r ${sourceJoin(model)}`;
  const select = (extra: string[], order: string, n: number, more: unknown[], key = '') => {
    const w = [...where, ...extra];
    const chosen = `SELECT r."id" FROM ${narrowFrom}${w.length ? ` WHERE ${w.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ${n}`;
    return db.all(`SELECT ${recordColumns(model)}${key} FROM ${recordFrom(model)} WHERE r."id" IN (${chosen}) ORDER BY ${order}`, [...params, ...more]);
  };
  let rows: Row[] = [];
  // A page asked for by its position (a reloaded or shared page N of a list) instead of a cursor: one
  // read in the full order, nulls last, skipping what comes before it.
  const offset = !opts.cursor && opts.offset && opts.offset > 0 ? sqlCount(Math.floor(opts.offset), 'offset') : 0;
  if (offset) {
    const sortExpr = sort ? sortExpression(model, sort.field) : null;
    const order = sortExpr ? `${sortExpr} ${dir} NULLS LAST, r."id" ${dir}` : `r."id" ${dir}`;
    rows = await db.all(
      `SELECT ${recordColumns(model)}${sortExpr ? `, ${sortExpr} AS "sort_key"` : ''} FROM ${recordFrom(model)}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ${limit + 1} OFFSET ${offset}`,
      params,
    );
  } else if (sort) {
    // Nulls last in both directions, read in two steps: the values in order (a plain ORDER BY that an
    // index on the field serves on both stores; NULLS LAST would keep SQLite from using it), then the
    // nulls by id. An expression that is never null (a finding's severity rank) needs only the first.
    const sortExpr = sortExpression(model, sort.field);
    const notNull = NOT_NULL_SORTS.has(sortExpr);
    const key = `, ${sortExpr} AS "sort_key"`;
    const c = opts.cursor ? decodeSortCursor(opts.cursor) : null;
    if (!c || c.v !== null) {
      const extra = notNull ? [] : [`${sortExpr} IS NOT NULL`];
      const more: unknown[] = [];
      if (c) {
        // A row-value comparison: the index range starts at the cursor.
        extra.push(`(${sortExpr}, r."id") ${cmp} (?, ?)`);
        more.push(c.v, c.id);
      }
      rows = await select(extra, `${sortExpr} ${dir}, r."id" ${dir}`, limit + 1, more, key);
    }
    if (!notNull && rows.length <= limit) {
      const extra = [`${sortExpr} IS NULL`];
      const more: unknown[] = [];
      if (c && c.v === null) {
        extra.push(`r."id" ${cmp} ?`);
        more.push(c.id);
      }
      rows = rows.concat(await select(extra, `r."id" ${dir}`, limit + 1 - rows.length, more, key));
    }
  } else {
    const extra: string[] = [];
    const more: unknown[] = [];
    if (opts.cursor) {
      extra.push(`r."id" ${cmp} ?`);
      more.push(decodeCursor(opts.cursor));
    }
    rows = await select(extra, `r."id" ${dir}`, limit + 1, more);
  }
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const records = page.map((row) => rowToRecord(model, row));
  if (!more) return { records, nextCursor: null };
  const last = page[page.length - 1];
  return { records, nextCursor: sort ? encodeSortCursor(last.sort_key, String(last.id)) : encodeCursor(String(last.id)) };
}

/** How many records a query matches (its source and field filters; no paging). */
export async function countMatching(db: Driver, model: ModelName, opts: Pick<QueryOptions, 'sourceIds' | 'filters'>): Promise<number> {
  if (model === 'vulnerabilities') opts = { ...opts, filters: await withCvePlugins(db, opts.filters) };
  const params: unknown[] = [];
  const filtered = whereClauses(model, opts, params);
  if (filtered === null) return 0;
  const sum = await countSource(db, model, [], opts);
  const where = [...(sum?.where ?? []), ...filtered];
  if (sum) params.unshift(...sum.params);
  // Else only a filter on a joined field (a finding's plugin text or owner) needs the joins; the count is of the table.
  const needsJoin = (opts.filters ?? []).some((f) => JOINED[model]?.[f.field] !== undefined);
  const from = sum?.from ?? (needsJoin ? recordFrom(model) : `${q(tableOf(model))} r`);
  const rows = await db.all(`SELECT ${sum?.count ?? 'COUNT(*)'} AS "n" FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params);
  return Number(rows[0]?.n ?? 0);
}

/** The WHERE terms of a record query (source and field filters); null when it can match nothing. */
export function whereClauses(model: ModelName, opts: Pick<QueryOptions, 'sourceIds' | 'filters' | 'changedSince'>, params: unknown[]): string[] | null {
  const where: string[] = [];
  if (opts.sourceIds) {
    if (opts.sourceIds.length === 0) return null;
    where.push(`r."source_id" IN (${opts.sourceIds.map(() => '?').join(',')})`);
    params.push(...opts.sourceIds);
  }
  if (opts.changedSince) {
    const runs = runsSinceSql(opts.changedSince, params);
    params.push(model);
    // Records a sweep fixed or removed carry no new stamp: the feed has them.
    where.push(
      `(r."seen_run" IN (${runs}) OR r."id" IN (SELECT e."record_id" FROM "changes" e WHERE e."model" = ? AND ${sinceClause('e', opts.changedSince, params)}))`,
    );
  }
  for (const f of opts.filters ?? []) where.push(filterClause(model, f, params));
  return where;
}

/** Records join their source for its name; correlated assets belong to no source (their `source` is null). */
export function sourceJoin(model: ModelName): string {
  return `${model === 'assets' ? 'LEFT ' : ''}JOIN "sources" s ON s."id" = r."source_id"`;
}

/** What a field sorts by: its column; the source's name; severity by rank (info < … < critical). */
function sortExpression(model: ModelName, field: string): string {
  const def = fieldsOf(model).find((d) => d.name === field);
  const sortable = (d: FieldDef) => d.kind !== 'json' && (!isComputed(model, d.name) || JOINED[model]?.[d.name] !== undefined);
  if (!def || !sortable(def)) {
    const names = fieldsOf(model)
      .filter(sortable)
      .map((d) => d.name);
    throw new InputError(`cannot sort ${model} by '${field}'; sortable fields: ${names.join(', ')}`, 'sort');
  }
  if (field === 'source') return 's."name"';
  const joined = JOINED[model]?.[field];
  if (joined !== undefined) return joined;
  const col = `r.${q(columnOf(def.name))}`;
  // A finding's severity sorts by its rank, a missing one lowest (-1): migration 13 indexes this expression.
  if (model === 'vulnerabilities' && field === 'severity') return SEVERITY_SORT;
  // The other findings sorts an index serves: its expression (schema.ts SORT_ONLY).
  if (model === 'vulnerabilities') {
    const expr = sortOnlyExpression(columnOf(def.name));
    if (expr) return expr;
  }
  // An ordered enum sorts by its order (severity: info < … < critical).
  if (def.ordered && def.values) return rankExpression(col, def.values);
  return col;
}

export interface GroupCount {
  values: Record<string, unknown>;
  count: number;
}

/** Severity rank of a finding, never null (the expression of migration 13's index). */
const SEVERITY_SORT = `COALESCE(${rankExpression('r."severity"', ['info', 'low', 'medium', 'high', 'critical'])}, -1)`;
const NOT_NULL_SORTS = new Set([SEVERITY_SORT]);

/**
 * Where a count reads from: a summary table when one holds the grouped and filtered fields (and no
 * filter searches text), else the records; with the extra WHERE term a summary needs, put first.
 */
async function countSource(
  db: Driver,
  model: ModelName,
  by: string[],
  opts: Pick<QueryOptions, 'sourceIds' | 'filters'>,
): Promise<{ from: string; count: string; where: string[]; params: unknown[] } | null> {
  const filters = opts.filters ?? [];
  if (filters.some((f) => f.op === '~')) return null;
  const sum = await summarySource(db, model, [...by, ...filters.map((f) => f.field)], opts.sourceIds);
  if (!sum) return null;
  const where = sum.from.startsWith('sum_model_counts') ? ['r."model" = ?'] : [];
  return { from: `${sum.from} ${sourceJoin(model)}`, count: sum.count, where, params: sum.params };
}

/** Record counts grouped by one or more fields (e.g. vulnerabilities by severity), largest groups first. */
export async function groupCount(
  db: Driver,
  model: ModelName,
  by: string[],
  opts: Pick<QueryOptions, 'sourceIds' | 'filters' | 'limit'> = {},
): Promise<GroupCount[]> {
  if (by.length === 0) throw new InputError('name at least one field to group by', 'by');
  if (model === 'vulnerabilities') opts = { ...opts, filters: await withCvePlugins(db, opts.filters) };
  const defs = by.map((name) => {
    const def = fieldsOf(model).find((d) => d.name === name);
    if (!def || def.kind === 'json' || name === 'id' || (isComputed(model, name) && JOINED[model]?.[name] === undefined))
      throw new InputError(`cannot group ${model} by '${name}'`, 'by');
    return def;
  });
  const params: unknown[] = [];
  const filtered = whereClauses(model, opts, params);
  if (filtered === null) return [];
  const sum = await countSource(db, model, by, opts);
  const where = [...(sum?.where ?? []), ...filtered];
  if (sum) params.unshift(...sum.params);
  const cols = defs.map((d, i) => `${d.name === 'source' ? 's."name"' : (JOINED[model]?.[d.name] ?? `r.${q(columnOf(d.name))}`)} AS "g${i}"`);
  const groupBy = defs.map((_, i) => `"g${i}"`);
  const limit = sqlCount(Math.max(1, Math.min(Math.floor(opts.limit ?? 1000), 10_000)), 'limit');
  const needsJoin = [...(opts.filters ?? []).map((f) => f.field), ...by].some((field) => JOINED[model]?.[field] !== undefined);
  const from = sum?.from ?? (needsJoin ? recordFrom(model) : `${q(tableOf(model))} r ${sourceJoin(model)}`);
  const sql = `SELECT ${cols.join(', ')}, ${sum?.count ?? 'COUNT(*)'} AS "n" FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} GROUP BY ${groupBy.join(', ')} ORDER BY "n" DESC, ${groupBy.join(', ')} LIMIT ${limit}`;
  const rows = await db.all(sql, params);
  return rows.map((row) => ({
    values: Object.fromEntries(defs.map((d, i) => [d.name, fromColumnValue(d, row[`g${i}`])])),
    count: Number(row.n),
  }));
}

/** Hostname and addresses of hosts by id (for labels next to per-host summaries). */
export async function hostLabels(db: Driver, ids: string[]): Promise<{ id: string; hostname: string | null; ipAddresses: string[] }[]> {
  const out: { id: string; hostname: string | null; ipAddresses: string[] }[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await db.all(`SELECT "id", "hostname", "ip_addresses" FROM "rec_hosts" WHERE "id" IN (${chunk.map(() => '?').join(',')})`, chunk);
    for (const r of rows) {
      let ips: string[] = [];
      try {
        ips = r.ip_addresses ? JSON.parse(String(r.ip_addresses)) : [];
      } catch {
        ips = [];
      }
      out.push({ id: String(r.id), hostname: (r.hostname as string | null) ?? null, ipAddresses: ips });
    }
  }
  return out;
}

/** Records of a model by id (any order; unknown ids are left out). */
export async function recordsByIds(db: Driver, model: ModelName, ids: string[]): Promise<StoredRecord[]> {
  const out: StoredRecord[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await db.all(
      `SELECT r.*, s."name" AS "source_name" FROM ${q(tableOf(model))} r JOIN "sources" s ON s."id" = r."source_id" WHERE r."id" IN (${chunk.map(() => '?').join(',')})`,
      chunk,
    );
    for (const row of rows) out.push(rowToRecord(model, row));
  }
  return out;
}

/** Records of a model (of one source), or only the live ones (not removed). */
export async function countRecords(db: Driver, model: ModelName, sourceId?: string, opts: { live?: boolean } = {}): Promise<number> {
  const conds = [...(sourceId ? [`"source_id" = ?`] : []), ...(opts.live ? [`"removed" = 0`] : [])];
  const rows = await db.all(
    `SELECT COUNT(*) AS "n" FROM ${q(tableOf(model))}${conds.length ? ` WHERE ${conds.join(' AND ')}` : ''}`,
    sourceId ? [sourceId] : [],
  );
  return Number(rows[0]?.n ?? 0);
}

export function rowToRecord(model: ModelName, row: Row): StoredRecord {
  const out: Record<string, unknown> = {};
  for (const f of COMMON_FIELDS) {
    if (f.name === 'source') out.source = row.source_name;
    else out[f.name] = fromColumnValue(f, row[columnOf(f.name)]);
  }
  for (const f of MODEL_FIELDS[model]) out[f.name] = fromColumnValue(f, row[columnOf(f.name)]);
  const joined = JOINED[model];
  if (joined) for (const field of Object.keys(joined)) out[field] = (row[joinedAlias(field)] as string | null | undefined) ?? null;
  if (model === 'vulnerabilities') withSla(out);
  return out as StoredRecord;
}

/**
 * Fields read from another table (models.ts COMPUTED_FIELDS), by the expression that reads them: a
 * finding's plugin text (`p`, rec_plugins) and its host's placement by correlation (`h`, rec_hosts).
 */
const JOINED: Partial<Record<ModelName, Record<string, string>>> = {
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

/** What a record query selects: the record, its source's name, and its joined fields. */
export function recordColumns(model: ModelName): string {
  const joined = Object.entries(JOINED[model] ?? {}).map(([field, expr]) => `, ${expr} AS ${q(joinedAlias(field))}`);
  return `r.*, s."name" AS "source_name"${joined.join('')}`;
}

/** The FROM clause of a record query (the table as `r`, its source as `s`; a finding's plugin as `p` and host as `h`). */
export function recordFrom(model: ModelName): string {
  const base = `${q(tableOf(model))} r ${sourceJoin(model)}`;
  return model === 'vulnerabilities'
    ? `${base} LEFT JOIN "rec_plugins" p ON p."source_id" = r."source_id" AND p."plugin_id" = r."plugin_id" LEFT JOIN "rec_hosts" h ON h."id" = r."host_id"`
    : base;
}

/** A field computed when read (models.ts COMPUTED_FIELDS), not a column. */
function isComputed(model: ModelName, field: string): boolean {
  return COMPUTED_FIELDS[model]?.some((f) => f.name === field) ?? false;
}

function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

function encodeSortCursor(v: unknown, id: string): string {
  return Buffer.from(JSON.stringify([v ?? null, id]), 'utf8').toString('base64url');
}

function decodeSortCursor(c: string): { v: string | number | null; id: string } {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(c, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      (parsed[0] === null || ['string', 'number'].includes(typeof parsed[0])) &&
      typeof parsed[1] === 'string' &&
      /^[0-9a-f]{32}$/.test(parsed[1])
    ) {
      return { v: parsed[0] as string | number | null, id: parsed[1] };
    }
  } catch {
    // fall through
  }
  throw new InputError('invalid cursor (it belongs to a query with another sort order?)', 'cursor');
}

function decodeCursor(c: string): string {
  const id = Buffer.from(c, 'base64url').toString('utf8');
  if (!/^[0-9a-f]{32}$/.test(id)) throw new InputError('invalid cursor', 'cursor');
  return id;
}
