// Writing normalized records: our stable record ids, and each page's upserts prepared (ids, stamps,
// column values, one statement per shape) and run: first/last-seen stamping and the vulnerability status rules.
import { hash } from 'node:crypto';
import { createLogger } from '../../core/log.ts';
import { InputError } from '../../core/errors.ts';
import { COMPUTED_FIELDS, type FieldDef, hasHost, type IncomingRecord, MODEL_FIELDS, type ModelName } from '../../core/models.ts';
import type { Driver, InsertSql } from '../db/driver.ts';
import { columnOf, q, tableOf, toColumnValue } from '../db/schema.ts';
import { FINDING_TIMES, findingTime, statusColumnAt } from './change-detection.ts';
import { type CveColumns, cvePairRows, writeCvePairs } from './cve-plugins.ts';
import { priorityOf } from '../../core/priority.ts';
import { factsOfRecord, priorityConfig } from './priority.ts';
import { openAgesAfterPage, openAgesBeforePage } from '../reports/open-ages.ts';
import { refreshFixFacts } from '../reports/fix-facts.ts';
import { type UnchangedSql, unchangedSql } from './unchanged.ts';

/**
 * What a page's findings are prioritised with (docs/priority.md): their hosts' criticality as stored or
 * sent in the page (writes.ts); a host it does not know is of unknown criticality.
 */
export interface PriorityContext {
  criticality(hostId: string): number | null | undefined;
}

/**
 * Our record id: stable across runs, stores and machines for the same source name and natural key.
 * 32 hex digits of SHA-256. A record that belongs to a host (finding, software, port, compliance
 * result) starts with the first 12 digits of its host's id, followed by 20 of its own hash: a host's
 * records sit together in the id index, so storing a host's page of findings writes a few index pages
 * instead of one random page per record, and the host's
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
      } else if (model === 'vulnerabilities' && f.name === 'decision') {
        // Of the row with the higher priority (priority merges by `greatest`; its bands follow the decisions).
        u.push(
          `${c} = CASE WHEN ${table}."seen_gen" = excluded."seen_gen" AND ${table}."priority" IS NOT NULL AND (excluded."priority" IS NULL OR ${table}."priority" > excluded."priority") THEN ${table}.${c} ELSE excluded.${c} END`,
        );
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

const unchangedCache = new Map<string, UnchangedSql | null>();

/**
 * The narrow statement that stamps rows of a shape the table holds unchanged (unchanged.ts): every column
 * the upsert sets compared, but the stamps; none for rows that only fill (their rule reads the stored row).
 */
function unchangedSqlFor(model: ModelName, shape: Shape): UnchangedSql | null {
  const cacheKey = `${model}|${shape.fields.map((f) => f.name).join(',')}|${shape.upstreamFirst}|${shape.origin}|${shape.fill}`;
  let hit = unchangedCache.get(cacheKey);
  if (hit !== undefined) return hit;
  hit = null;
  if (!shape.fill) {
    const compare: [string, number][] = [['external_id', 3]];
    if (shape.upstreamFirst) compare.push(['first_seen', 4]);
    if (shape.origin) compare.push(['origin', LEADING_COLUMNS]);
    const leading = LEADING_COLUMNS + (shape.origin ? 1 : 0);
    shape.fields.forEach((f, i) => {
      // (written when a finding is first stored, then by the change feed: the upsert leaves them)
      if (!(model === 'vulnerabilities' && FINDING_TIMES.includes(f.name))) compare.push([columnOf(f.name), leading + i]);
    });
    hit = unchangedSql(tableOf(model), compare, model === 'vulnerabilities' ? 'status' : null, model === 'hosts');
  }
  unchangedCache.set(cacheKey, hit);
  return hit;
}

interface ModelPlan {
  fields: FieldDef[];
  /** Index of hostId in `fields`, or -1. */
  hostAt: number;
  /** Findings: indexes of fixedAt and reopenedAt in `fields` (the store fills them in), else -1. */
  fixedAt: number;
  reopenedAt: number;
  /** Findings: indexes of assetCriticality, decision and priority in `fields` (the store fills them in), else -1. */
  criticalityAt: number;
  decisionAt: number;
  priorityAt: number;
  /** Hosts: index of criticality in `fields`, else -1. */
  hostCriticalityAt: number;
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
      criticalityAt: timeAt('assetCriticality'),
      decisionAt: timeAt('decision'),
      priorityAt: timeAt('priority'),
      hostCriticalityAt: model === 'hosts' ? fields.findIndex((f) => f.name === 'criticality') : -1,
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
  /** None of the rows is stored yet (a source's first import, writes.ts): each event is `new`, written without comparing. */
  allNew?: boolean;
  /** Findings that write their CVE list: where it and the plugin id are in the rows (cve-plugins.ts). */
  cveColumns?: CveColumns;
  /** The (source, CVE, plugin) rows to add to vuln_cve_plugins with the rows (writes.ts sets them). */
  cvePairs?: unknown[][];
  /** Stamps the rows the table holds unchanged but for when they were seen (unchanged.ts); the upsert writes the rest. */
  unchanged?: UnchangedSql;
  /**
   * Models whose summaries a run's epilogue regroups by key (summary-tables-touched.ts): where the rows
   * hold that key (-1: the shape leaves it out).
   */
  summaryKeyAt?: number;
}

/** The field each model's keyed summary groups on (summary-tables-touched.ts KEYED, apart from the findings'). */
const SUMMARY_KEY: Partial<Record<ModelName, string>> = { software: 'name', compliance: 'hostId' };

/** Upserts one page of records of one model. Runs inside the caller's transaction. */
export async function upsertRecords(db: Driver, model: ModelName, records: IncomingRecord[], stamp: WriteStamp): Promise<number> {
  for (const u of prepareUpserts(model, records, stamp)) {
    const ids = model === 'vulnerabilities' ? u.rows.map((r) => r[0]) : null;
    if (ids) await openAgesBeforePage(db, ids);
    await db.insertMany(u.sql, u.rows);
    if (ids) {
      await openAgesAfterPage(db, ids);
      await refreshFixFacts(db, ids);
    }
    if (u.cveColumns) await writeCvePairs(db, cvePairRows(stamp.sourceId, u.rows, u.cveColumns).pairs);
  }
  return records.length;
}

/**
 * What upserting records of one model writes: ids, stamps and column values, grouped by the fields
 * present (pure: no database, so the rows can be handed to another thread to write).
 */
export function prepareUpserts(
  model: ModelName,
  records: IncomingRecord[],
  stamp: WriteStamp,
  hostsReferenced?: Map<string, string>,
  prioritise?: PriorityContext,
): PreparedUpsert[] {
  if (records.length === 0) return [];
  const plan = planOf(model);
  const { fields, hostAt, fixedAt, reopenedAt, criticalityAt, decisionAt, priorityAt, hostCriticalityAt } = plan;
  const config = model === 'vulnerabilities' || hostCriticalityAt >= 0 ? priorityConfig() : null;
  // A host that sends its ACR has it as its criticality when the ACR comes first (priority.ts criticalityOf).
  const acrFirst = config?.criticalitySources[0] === 'acr';
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
    /** Where the row holds its decision and priority (findings), to merge a second row of the record in the page. */
    let decisionPos = -1;
    let priorityPos = -1;
    // A finding written whole (with its status) gets its decision and priority with it (docs/priority.md).
    let crit: number | null = null;
    let prio: ReturnType<typeof priorityOf> | null = null;
    if (decisionAt >= 0 && rf.status !== undefined && config) {
      crit = (hostId !== undefined ? prioritise?.criticality(hostId) : null) ?? null;
      prio = priorityOf(factsOfRecord(rf, crit), config);
    }
    const hostAcr = hostCriticalityAt >= 0 && acrFirst && typeof rf.acrScore === 'number' ? Math.min(10, Math.max(0, rf.acrScore)) : undefined;
    for (let i = 0; i < n; i++) {
      if (i === hostAt) {
        row.push(hostId);
      } else {
        const f = fields[i]!;
        // A finding first stored fixed or reopened carries the time (connectors never send these two).
        const v =
          i === fixedAt
            ? findingTime(rf.status, 'fixed', stamp.now)
            : i === reopenedAt
              ? findingTime(rf.status, 'reopened', stamp.now)
              : prio && (i === decisionAt || i === priorityAt || i === criticalityAt)
                ? i === decisionAt
                  ? prio.decision
                  : i === priorityAt
                    ? prio.priority
                    : crit
                : i === hostCriticalityAt
                  ? hostAcr
                  : rf[f.name];
        if (v === undefined) continue;
        if (f.accumulate || f.ofList) {
          // (pairs: the value's place in the row, the field's index)
          accAt ??= [];
          accAt.push(row.length, i);
        }
        if (i === decisionAt) decisionPos = row.length;
        else if (i === priorityAt) priorityPos = row.length;
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
      // The decision of the row with the higher priority (before the priorities merge below).
      if (decisionPos >= 0 && priorityPos >= 0) {
        const pa = earlier[priorityPos] as number | null;
        const pb = row[priorityPos] as number | null;
        if (pa !== null && pa !== undefined && (pb === null || pb === undefined || pa > pb)) row[decisionPos] = earlier[decisionPos];
      }
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
    const unchanged = unchangedSqlFor(model, shape);
    if (unchanged) u.unchanged = unchanged;
    const keyField = SUMMARY_KEY[model];
    if (keyField) u.summaryKeyAt = names.includes(keyField) ? leading + names.indexOf(keyField) : -1;
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
