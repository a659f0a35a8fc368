// The store: one interface over SQLite and PostgreSQL for sources (secrets sealed at rest), sync runs,
// checkpoints, users and tokens, and the normalized records.
import { randomUUID } from 'node:crypto';
import type { KnownHost } from '../core/connector.ts';
import { ConflictError, errorMessage, InputError, NotFoundError } from '../core/errors.ts';
import type { SweepScope } from '../core/connector.ts';
import { type IncomingRecord, MODEL_NAMES, type ModelName, type StoredRecord } from '../core/models.ts';
import { SecretBox } from '../core/secrets.ts';
import { type ChangePage, type ChangeQuery, parseIsoTime, queryChanges, type Since } from './changes-feed.ts';
import { type Driver, openDriver, type Row, sqlitePathOf } from './driver.ts';
import { type CorrelationResult, correlateAll } from './correlation.ts';
import { correlateTouched } from './correlation-incremental.ts';
import { type CoverageKind, type CoverageReport, coverageList, coverageReport } from './coverage.ts';
import type { RecordIdSet } from './id-set.ts';
import { deleteSourceExports } from './exports.ts';
import { FeedLookup } from './feeds.ts';
import { MIGRATIONS } from './migrations.ts';
import { packCounts, type RunActivity, unpackCounts } from './run-activity.ts';
import { preparePage, writePreparedPage } from './pages.ts';
import {
  countMatching,
  hostLabels,
  countRecords,
  type QueryOptions,
  type QueryPage,
  queryRecords,
  recordColumns,
  recordFrom,
  recordsByIds,
  rowToRecord,
  sweepModel,
  type SweepPreview,
  sweepPreviewModel,
  type WriteStamp,
} from './records.ts';
import { q, tableOf } from './schema.ts';
import { SqlitePageWriter } from './sqlite-writer.ts';
import { linkTickets } from './ticket-links.ts';

export interface SourceRecord {
  id: string;
  name: string;
  type: string;
  /** Plaintext configuration (secrets decrypted); never hand this to a presenter unmasked. */
  config: Record<string, unknown>;
  /** Sealed fields the master key cannot open (left out of `config`): a wrong or lost key. */
  unreadableSecrets: string[];
  schedule: string | null;
  lastCheck: { at: string; ok: boolean; checks: unknown[] } | null;
  createdAt: string;
  updatedAt: string;
}

export type RunStatus = 'running' | 'succeeded' | 'failed' | 'partial' | 'interrupted';

export interface StreamCounts {
  records: number;
  errors: number;
}

export interface RunRecord {
  id: string;
  sourceId: string;
  mode: 'full' | 'incremental';
  status: RunStatus;
  generation: string;
  resumedFrom: string | null;
  trigger: string | null;
  /** Which process runs it: `host:pid`, so a crashed run on this machine is recognised at once. */
  owner: string | null;
  startedAt: string;
  finishedAt: string | null;
  heartbeatAt: string | null;
  counts: Record<string, StreamCounts>;
  /** Retries, 429s and a log excerpt (null for runs stored before these were kept). */
  activity: RunActivity | null;
  error: string | null;
}

export interface CheckpointRecord {
  stream: string;
  value: unknown;
  complete: boolean;
  mode: 'full' | 'incremental';
  generation: string;
  runId: string | null;
}

export const nowIso = (): string => new Date().toISOString();

/** The one-line refusal for a source whose stored secrets the master key cannot open. */
export function unreadableSecretsError(source: Pick<SourceRecord, 'name' | 'unreadableSecrets'>): InputError {
  const fields = source.unreadableSecrets.join(', ');
  return new InputError(
    `the master key cannot decrypt the stored ${fields} of source '${source.name}' (a different or lost key): restore the key (TRIBUTARY_MASTER_KEY or <data-dir>/master.key), enter ${fields} again with \`tributary sources configure ${source.name}\`, or drop them with \`tributary secrets reset\``,
    source.unreadableSecrets[0] ?? 'TRIBUTARY_MASTER_KEY',
  );
}

function parseJson<T>(s: unknown, fallback: T): T {
  if (typeof s !== 'string' || s === '') return fallback;
  return JSON.parse(s) as T;
}

function toRun(r: Row): RunRecord {
  const { counts, activity } = unpackCounts(parseJson(r.counts, {}));
  return {
    id: String(r.id),
    sourceId: String(r.source_id),
    mode: r.mode as RunRecord['mode'],
    status: r.status as RunStatus,
    generation: String(r.generation),
    resumedFrom: (r.resumed_from as string | null) ?? null,
    trigger: (r.trigger as string | null) ?? null,
    owner: (r.owner as string | null) ?? null,
    startedAt: String(r.started_at),
    finishedAt: (r.finished_at as string | null) ?? null,
    heartbeatAt: (r.heartbeat_at as string | null) ?? null,
    counts,
    activity,
    error: (r.error as string | null) ?? null,
  };
}

export class Store {
  readonly db: Driver;
  readonly #box: SecretBox;
  readonly #secretKeys: (type: string) => string[];
  /** SQLite database files: sync pages are written by a thread of their own (sqlite-writer.ts). */
  readonly #writer: SqlitePageWriter | null;
  /** What the offline feeds say of findings' CVEs, set on findings as they are written. */
  readonly feeds = new FeedLookup();

  constructor(db: Driver, box: SecretBox, secretKeys: (type: string) => string[], writer: SqlitePageWriter | null = null) {
    this.db = db;
    this.#box = box;
    this.#secretKeys = secretKeys;
    this.#writer = writer;
  }

  static async open(url: string, box: SecretBox, secretKeys: (type: string) => string[]): Promise<Store> {
    const db = await openDriver(url);
    const path = sqlitePathOf(url);
    // An in-memory database exists on its own connection only: its pages are written in-thread.
    const writer = path !== null && path !== ':memory:' && process.env.TRIBUTARY_SQLITE_WRITER !== 'inline' ? new SqlitePageWriter(path) : null;
    const store = new Store(db, box, secretKeys, writer);
    await store.migrate();
    return store;
  }

  get dialect(): 'sqlite' | 'postgres' {
    return this.db.dialect;
  }

  /** Applies pending migrations, each in its own transaction; safe when several processes start at once. */
  async migrate(): Promise<void> {
    await this.db.exec(`CREATE TABLE IF NOT EXISTS "schema_migrations" ("version" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "applied_at" TEXT NOT NULL)`);
    for (const m of MIGRATIONS) {
      await this.db.transaction(async (tx) => {
        if (tx.dialect === 'postgres') await tx.exec('LOCK TABLE "schema_migrations" IN EXCLUSIVE MODE');
        const done = await tx.all(`SELECT "version" FROM "schema_migrations" WHERE "version" = ?`, [m.version]);
        if (done.length) return;
        await tx.exec(m.sql);
        await tx.run(`INSERT INTO "schema_migrations" ("version", "name", "applied_at") VALUES (?, ?, ?)`, [m.version, m.name, nowIso()]);
      });
    }
  }

  async schemaVersion(): Promise<number> {
    const rows = await this.db.all(`SELECT MAX("version") AS "v" FROM "schema_migrations"`);
    return Number(rows[0]?.v ?? 0);
  }

  async close(): Promise<void> {
    await this.#writer?.close();
    await this.db.close();
  }

  // ---- sources ----

  #seal(type: string, config: Record<string, unknown>): string {
    const out: Record<string, unknown> = { ...config };
    for (const k of this.#secretKeys(type)) {
      const v = out[k];
      if (typeof v === 'string' && v !== '' && !SecretBox.isSealed(v)) out[k] = this.#box.encrypt(v);
    }
    return JSON.stringify(out);
  }

  /** The config with sealed fields opened; those the key cannot open are left out and named. */
  #unseal(type: string, raw: unknown): { config: Record<string, unknown>; unreadable: string[] } {
    const cfg = parseJson<Record<string, unknown>>(raw, {});
    const unreadable: string[] = [];
    for (const k of this.#secretKeys(type)) {
      const v = cfg[k];
      if (!SecretBox.isSealed(v)) continue;
      try {
        cfg[k] = this.#box.decrypt(v);
      } catch {
        delete cfg[k];
        unreadable.push(k);
      }
    }
    return { config: cfg, unreadable };
  }

  #toSource(r: Row): SourceRecord {
    const type = String(r.type);
    const { config, unreadable } = this.#unseal(type, r.config);
    return {
      id: String(r.id),
      name: String(r.name),
      type,
      config,
      unreadableSecrets: unreadable,
      schedule: (r.schedule as string | null) || null,
      lastCheck: parseJson(r.last_check, null),
      createdAt: String(r.created_at),
      updatedAt: String(r.updated_at),
    };
  }

  async createSource(name: string, type: string, config: Record<string, unknown>, schedule: string | null): Promise<SourceRecord> {
    if (await this.findSource(name)) throw new ConflictError(`a source named '${name}' exists already`);
    const id = randomUUID();
    const now = nowIso();
    await this.db.run(
      `INSERT INTO "sources" ("id", "name", "type", "config", "state", "schedule", "created_at", "updated_at") VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, name, type, this.#seal(type, config), '{}', schedule, now, now],
    );
    return this.getSource(name);
  }

  async findSource(name: string): Promise<SourceRecord | null> {
    const rows = await this.db.all(`SELECT * FROM "sources" WHERE "name" = ?`, [name]);
    return rows[0] ? this.#toSource(rows[0]) : null;
  }

  async getSource(name: string): Promise<SourceRecord> {
    const s = await this.findSource(name);
    if (!s) throw new NotFoundError(`no source named '${name}'`);
    return s;
  }

  async getSourceById(id: string): Promise<SourceRecord> {
    const rows = await this.db.all(`SELECT * FROM "sources" WHERE "id" = ?`, [id]);
    if (!rows[0]) throw new NotFoundError(`no source with id '${id}'`);
    return this.#toSource(rows[0]);
  }

  async listSources(): Promise<SourceRecord[]> {
    const rows = await this.db.all(`SELECT * FROM "sources" ORDER BY "name"`);
    return rows.map((r) => this.#toSource(r));
  }

  async updateSource(name: string, config: Record<string, unknown>, schedule: string | null): Promise<SourceRecord> {
    const s = await this.getSource(name);
    await this.db.run(`UPDATE "sources" SET "config" = ?, "schedule" = ?, "updated_at" = ? WHERE "id" = ?`, [
      this.#seal(s.type, config),
      schedule,
      nowIso(),
      s.id,
    ]);
    return this.getSource(name);
  }

  async setLastCheck(sourceId: string, ok: boolean, checks: unknown[]): Promise<void> {
    await this.db.run(`UPDATE "sources" SET "last_check" = ? WHERE "id" = ?`, [JSON.stringify({ at: nowIso(), ok, checks }), sourceId]);
  }

  /** Whether anything in the database is sealed (then a new master key must not be made). */
  async hasSealedSecrets(): Promise<boolean> {
    const rows = await this.db.all(`SELECT COUNT(*) AS "n" FROM "sources" WHERE "config" LIKE ? OR "state" LIKE ?`, ['%enc:v1:%', 'enc:v1:%']);
    return Number(rows[0]?.n ?? 0) > 0;
  }

  /** Sources with sealed values this key cannot open: config fields and/or the runtime state. */
  async unreadableSources(): Promise<{ name: string; fields: string[]; state: boolean }[]> {
    const out: { name: string; fields: string[]; state: boolean }[] = [];
    for (const r of await this.db.all(`SELECT "name", "type", "config", "state" FROM "sources" ORDER BY "name"`)) {
      const fields = this.#unseal(String(r.type), r.config).unreadable;
      const state = SecretBox.isSealed(r.state) && !this.#box.opens(r.state);
      if (fields.length || state) out.push({ name: String(r.name), fields, state });
    }
    return out;
  }

  /** Drops the sealed values of a source this key cannot open (its config fields and its state). */
  async dropUnreadableSecrets(name: string): Promise<void> {
    const rows = await this.db.all(`SELECT "id", "type", "config", "state" FROM "sources" WHERE "name" = ?`, [name]);
    const r = rows[0];
    if (!r) throw new NotFoundError(`no source named '${name}'`);
    const cfg = parseJson<Record<string, unknown>>(r.config, {});
    for (const k of this.#secretKeys(String(r.type))) if (SecretBox.isSealed(cfg[k]) && !this.#box.opens(cfg[k])) delete cfg[k];
    const state = SecretBox.isSealed(r.state) && !this.#box.opens(r.state) ? '{}' : r.state;
    await this.db.run(`UPDATE "sources" SET "config" = ?, "state" = ?, "updated_at" = ? WHERE "id" = ?`, [JSON.stringify(cfg), state, nowIso(), r.id]);
  }

  /** Whether the source's runtime state can be read with this key. */
  async sourceStateReadable(sourceId: string): Promise<boolean> {
    const rows = await this.db.all(`SELECT "state" FROM "sources" WHERE "id" = ?`, [sourceId]);
    const raw = rows[0]?.state;
    return !SecretBox.isSealed(raw) || this.#box.opens(raw);
  }

  /** Runtime state of a source (tokens): sealed as a whole. */
  async getSourceState(sourceId: string): Promise<Record<string, unknown>> {
    const rows = await this.db.all(`SELECT "state" FROM "sources" WHERE "id" = ?`, [sourceId]);
    const raw = rows[0]?.state;
    if (SecretBox.isSealed(raw)) return JSON.parse(this.#box.decrypt(raw));
    return parseJson(raw, {});
  }

  async setSourceState(sourceId: string, state: Record<string, unknown>): Promise<void> {
    await this.db.run(`UPDATE "sources" SET "state" = ? WHERE "id" = ?`, [this.#box.encrypt(JSON.stringify(state)), sourceId]);
  }

  /** Deletes a source with all its records, runs and checkpoints, in one transaction. */
  async deleteSource(name: string): Promise<void> {
    const s = await this.getSource(name);
    await this.db.transaction(async (tx) => {
      for (const m of MODEL_NAMES) await tx.run(`DELETE FROM ${q(tableOf(m))} WHERE "source_id" = ?`, [s.id]);
      await tx.run(`DELETE FROM "changes" WHERE "source_id" = ?`, [s.id]);
      await tx.run(`DELETE FROM "checkpoints" WHERE "source_id" = ?`, [s.id]);
      await tx.run(`DELETE FROM "sync_runs" WHERE "source_id" = ?`, [s.id]);
      await tx.run(`DELETE FROM "file_imports" WHERE "source_id" = ?`, [s.id]);
      await tx.run(`DELETE FROM "upload_tokens" WHERE "source_id" = ?`, [s.id]);
      await deleteSourceExports(tx, s.id);
      await tx.run(`DELETE FROM "sources" WHERE "id" = ?`, [s.id]);
    });
    // Its hosts and CMDB records leave their assets (overrides stay: a source added again under its name has the same record ids).
    const leftovers = await this.db.all(`SELECT 1 FROM "rec_assets" LIMIT 1`);
    if (leftovers.length > 0) await this.correlate();
  }

  // ---- runs and checkpoints ----

  async createRun(run: Omit<RunRecord, 'finishedAt' | 'counts' | 'activity' | 'error' | 'status' | 'heartbeatAt'>): Promise<RunRecord> {
    try {
      await this.#insertRun(run);
    } catch (err) {
      if (/unique|duplicate/i.test(errorMessage(err))) throw new ConflictError('a sync of this source is already running');
      throw err;
    }
    return this.getRun(run.id);
  }

  async #insertRun(run: Omit<RunRecord, 'finishedAt' | 'counts' | 'activity' | 'error' | 'status' | 'heartbeatAt'>): Promise<void> {
    await this.db.run(
      `INSERT INTO "sync_runs" ("id", "source_id", "mode", "status", "generation", "resumed_from", "trigger", "owner", "started_at", "heartbeat_at", "counts") VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, '{}')`,
      [run.id, run.sourceId, run.mode, run.generation, run.resumedFrom, run.trigger, run.owner, run.startedAt, run.startedAt],
    );
  }

  async getRun(id: string): Promise<RunRecord> {
    const rows = await this.db.all(`SELECT * FROM "sync_runs" WHERE "id" = ?`, [id]);
    if (!rows[0]) throw new NotFoundError(`no run with id '${id}'`);
    return toRun(rows[0]);
  }

  /** Runs newest first: of one source (null: all), with one of the given statuses when any are given. */
  async listRuns(sourceId: string | null, limit = 50, statuses: RunStatus[] = []): Promise<RunRecord[]> {
    const conds: string[] = [];
    const params: unknown[] = [];
    if (sourceId) {
      conds.push(`"source_id" = ?`);
      params.push(sourceId);
    }
    if (statuses.length) {
      conds.push(`"status" IN (${statuses.map(() => '?').join(', ')})`);
      params.push(...statuses);
    }
    const where = conds.length ? ` WHERE ${conds.join(' AND ')}` : '';
    const rows = await this.db.all(`SELECT * FROM "sync_runs"${where} ORDER BY "started_at" DESC LIMIT ${Math.floor(limit)}`, params);
    return rows.map(toRun);
  }

  async activeRun(sourceId: string): Promise<RunRecord | null> {
    const rows = await this.db.all(`SELECT * FROM "sync_runs" WHERE "source_id" = ? AND "status" = 'running' ORDER BY "started_at" DESC`, [sourceId]);
    return rows[0] ? toRun(rows[0]) : null;
  }

  async lastRun(sourceId: string, where: { status?: RunStatus; mode?: 'full' | 'incremental' } = {}): Promise<RunRecord | null> {
    const conds = [`"source_id" = ?`];
    const params: unknown[] = [sourceId];
    if (where.status) {
      conds.push(`"status" = ?`);
      params.push(where.status);
    }
    if (where.mode) {
      conds.push(`"mode" = ?`);
      params.push(where.mode);
    }
    const rows = await this.db.all(`SELECT * FROM "sync_runs" WHERE ${conds.join(' AND ')} ORDER BY "started_at" DESC LIMIT 1`, params);
    return rows[0] ? toRun(rows[0]) : null;
  }

  async heartbeat(runId: string, counts: Record<string, StreamCounts>, activity?: RunActivity | null): Promise<void> {
    await this.db.run(`UPDATE "sync_runs" SET "heartbeat_at" = ?, "counts" = ? WHERE "id" = ?`, [nowIso(), packCounts(counts, activity), runId]);
  }

  async finishRun(runId: string, status: RunStatus, counts: Record<string, StreamCounts>, error: string | null, activity?: RunActivity | null): Promise<void> {
    await this.db.run(`UPDATE "sync_runs" SET "status" = ?, "finished_at" = ?, "heartbeat_at" = ?, "counts" = ?, "error" = ? WHERE "id" = ?`, [
      status,
      nowIso(),
      nowIso(),
      packCounts(counts, activity),
      error,
      runId,
    ]);
  }

  async getCheckpoints(sourceId: string): Promise<Map<string, CheckpointRecord>> {
    const rows = await this.db.all(`SELECT * FROM "checkpoints" WHERE "source_id" = ?`, [sourceId]);
    return new Map(
      rows.map((r) => [
        String(r.stream),
        {
          stream: String(r.stream),
          value: parseJson(r.value, null),
          complete: Number(r.complete) === 1,
          mode: r.mode as CheckpointRecord['mode'],
          generation: String(r.generation),
          runId: (r.run_id as string | null) ?? null,
        },
      ]),
    );
  }

  /**
   * Stores one page: its records (per model) and the stream's checkpoint in one transaction, so a
   * crash loses at most the page in flight. With `stored` (the ids this run stored), the counts are
   * of records new to the run; else of records written.
   */
  async writePage(
    stamp: WriteStamp,
    stream: string,
    mode: 'full' | 'incremental',
    records: Partial<Record<ModelName, IncomingRecord[]>>,
    checkpoint: { value: unknown; complete: boolean },
    stored?: RecordIdSet,
  ): Promise<Record<string, number>> {
    if (records.vulnerabilities?.length) await this.feeds.enrich(this.db, records.vulnerabilities);
    const page = preparePage(stamp, stream, mode, records, checkpoint, stored);
    const written = this.#writer ? await this.#writer.write(page) : await writePreparedPage(this.db, page);
    if (!stored) return written;
    // Distinct records this run stored so far: ids new to the run's set (as countStamped counts them).
    const fresh: Record<string, number> = {};
    for (const u of page.upserts) {
      if (u.stub) continue;
      let n = 0;
      for (const row of u.rows) if (stored.add(row[0] as string)) n++;
      fresh[u.model] = (fresh[u.model] ?? 0) + n;
    }
    return fresh;
  }

  /**
   * Marks records of the given models not seen in `generation` as removed (findings: fixed), within
   * `scope` when given, with their events in the change feed under the sweeping run (by default the
   * source's running run, now).
   */
  async sweep(
    sourceId: string,
    models: ModelName[],
    generation: string,
    scope?: SweepScope,
    by?: { runId: string; at?: string },
  ): Promise<Record<string, number>> {
    const run = by?.runId ?? (await this.activeRun(sourceId))?.id ?? (await this.lastRun(sourceId))?.id ?? null;
    const changes = run ? { runId: run, at: by?.at ?? nowIso() } : undefined;
    return this.db.transaction(async (tx) => {
      const out: Record<string, number> = {};
      for (const m of models) out[m] = await sweepModel(tx, m, sourceId, generation, scope, changes);
      return out;
    });
  }

  /** Per model: live records, how many a sweep would mark removed, and how many the generation stored. */
  async sweepPreview(sourceId: string, models: ModelName[], generation: string, scope?: SweepScope): Promise<Record<string, SweepPreview>> {
    const out: Record<string, SweepPreview> = {};
    for (const m of models) out[m] = await sweepPreviewModel(this.db, m, sourceId, generation, scope);
    return out;
  }

  // ---- the change feed ----

  /** `since` of the change feed: an ISO-8601 time, or a run id (the events of that run and of every later one). */
  async changesSince(value: string): Promise<Since> {
    const t = parseIsoTime(value);
    if (t !== null) return { at: t, fromRun: false };
    const rows = await this.db.all(`SELECT "started_at" FROM "sync_runs" WHERE "id" = ?`, [value.trim()]);
    if (!rows[0]) throw new InputError(`since: '${value}' is neither a run id nor an ISO-8601 time`, 'since');
    return { at: String(rows[0].started_at), fromRun: true };
  }

  async changes(opts: ChangeQuery): Promise<ChangePage> {
    return queryChanges(this.db, opts);
  }

  // ---- records ----

  async query(model: ModelName, opts: QueryOptions): Promise<QueryPage> {
    return queryRecords(this.db, model, opts);
  }

  async getRecord(model: ModelName, id: string): Promise<StoredRecord> {
    const rows = await this.db.all(`SELECT ${recordColumns(model)} FROM ${recordFrom(model)} WHERE r."id" = ?`, [id]);
    if (!rows[0]) throw new NotFoundError(`no ${model} record with id '${id}'`);
    return rowToRecord(model, rows[0]);
  }

  /** Records of a model by id; ids not found are left out. */
  async getRecords(model: ModelName, ids: string[]): Promise<StoredRecord[]> {
    return recordsByIds(this.db, model, ids);
  }

  /** Distinct records of a model that this run stored (a record written twice counts once). */
  async countStamped(sourceId: string, model: ModelName, runId: string): Promise<number> {
    const rows = await this.db.all(`SELECT COUNT(*) AS "n" FROM ${q(tableOf(model))} WHERE "source_id" = ? AND "seen_run" = ?`, [sourceId, runId]);
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Distinct records of a model that the runs of one generation stored: a run and the attempts it
   * resumed (they share the generation), so a resumed run's summary covers every attempt.
   */
  async countStampedByGeneration(sourceId: string, model: ModelName, generation: string): Promise<number> {
    const rows = await this.db.all(
      `SELECT COUNT(*) AS "n" FROM ${q(tableOf(model))} WHERE "source_id" = ? AND "seen_run" IN (SELECT "id" FROM "sync_runs" WHERE "source_id" = ? AND "generation" = ?)`,
      [sourceId, sourceId, generation],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Every host of a source (removed ones too) as natural key and fields: what identity resolution starts from. */
  async knownHosts(sourceId: string): Promise<KnownHost[]> {
    const rows = await this.db.all(`SELECT * FROM "rec_hosts" WHERE "source_id" = ?`, [sourceId]);
    return rows.map((r) => ({ key: String(r.natural_key), fields: rowToRecord('hosts', r) }));
  }

  /** Records of host-bound models whose host does not exist (the invariant says: none). */
  async orphans(model: ModelName, sourceId?: string): Promise<number> {
    const t = q(tableOf(model));
    const rows = await this.db.all(
      `SELECT COUNT(*) AS "n" FROM ${t} r WHERE NOT EXISTS (SELECT 1 FROM "rec_hosts" h WHERE h."id" = r."host_id")${sourceId ? ` AND r."source_id" = ?` : ''}`,
      sourceId ? [sourceId] : [],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Hostname and addresses of hosts by id. */
  async hostLabels(ids: string[]): Promise<{ id: string; hostname: string | null; ipAddresses: string[] }[]> {
    return hostLabels(this.db, ids);
  }

  /** Records a query's filters match. */
  async countMatching(model: ModelName, opts: Pick<QueryOptions, 'sourceIds' | 'filters'>): Promise<number> {
    return countMatching(this.db, model, opts);
  }

  /** Records of a model (of one source); with `live`, only those not removed. */
  async count(model: ModelName, sourceId?: string, opts: { live?: boolean } = {}): Promise<number> {
    return countRecords(this.db, model, sourceId, opts);
  }

  // ---- correlation (src/correlate, correlation.ts) ----

  /** Full recompute: every host against every CMDB record, then every ticket's links. */
  async correlate(): Promise<CorrelationResult & { tickets: number }> {
    const r = await correlateAll(this.db);
    return { ...r, tickets: await linkTickets(this.db, null) };
  }

  /**
   * After a successful run: correlates what it wrote (hosts, CMDB records, findings' hosts, tickets).
   * A run that removed hosts or CMDB records, or touched a large share of them, gets the full pass.
   */
  async correlateRun(sourceId: string, runId: string, removed: number): Promise<(CorrelationResult & { tickets: number }) | null> {
    const ids = async (sql: string) => (await this.db.all(sql, [sourceId, runId])).map((r) => String(r.id));
    const hostIds = await ids(`SELECT "id" FROM "rec_hosts" WHERE "source_id" = ? AND "seen_run" = ?`);
    const cmdbIds = await ids(`SELECT "id" FROM "rec_cmdb_assets" WHERE "source_id" = ? AND "seen_run" = ?`);
    const findingHostIds = await ids(`SELECT DISTINCT "host_id" AS "id" FROM "rec_vulnerabilities" WHERE "source_id" = ? AND "seen_run" = ?`);
    const ticketIds = await ids(`SELECT "id" FROM "rec_tickets" WHERE "source_id" = ? AND "seen_run" = ?`);
    if (hostIds.length + cmdbIds.length + findingHostIds.length + ticketIds.length === 0 && removed === 0) return null;
    const total = (await this.count('hosts')) + (await this.count('cmdb-assets'));
    if (removed > 0 || hostIds.length + cmdbIds.length > total / 4) return this.correlate();
    const r = await correlateTouched(this.db, { hostIds, cmdbIds, findingHostIds });
    // Tickets this run wrote, and tickets pointing at an asset the pass replaced.
    const stale =
      r.replacedAssetIds.size > 0
        ? (await this.db.all(`SELECT "id", "asset_ids" FROM "rec_tickets" WHERE "removed" = 0 AND "asset_ids" IS NOT NULL AND "asset_ids" <> '[]'`))
            .filter((t) => (JSON.parse(String(t.asset_ids)) as string[]).some((a) => r.replacedAssetIds.has(a)))
            .map((t) => String(t.id))
        : [];
    return { ...r, tickets: await linkTickets(this.db, [...new Set([...ticketIds, ...stale])]) };
  }

  /** A manual link (beats every rule) or unlink (forbids the pair), kept across syncs; the pair is correlated again at once. */
  async setAssetOverride(hostId: string, cmdbAssetId: string, action: 'link' | 'unlink'): Promise<CorrelationResult> {
    const host = await this.db.all(`SELECT "id" FROM "rec_hosts" WHERE "id" = ?`, [hostId]);
    if (!host[0]) throw new NotFoundError(`no host with id '${hostId}'`);
    const cmdb = await this.db.all(`SELECT "id" FROM "rec_cmdb_assets" WHERE "id" = ?`, [cmdbAssetId]);
    if (!cmdb[0]) throw new NotFoundError(`no cmdb-assets record with id '${cmdbAssetId}'`);
    await this.db.transaction(async (tx) => {
      await tx.run(`DELETE FROM "asset_overrides" WHERE "host_id" = ? AND "cmdb_asset_id" = ?`, [hostId, cmdbAssetId]);
      await tx.run(`INSERT INTO "asset_overrides" ("host_id", "cmdb_asset_id", "action", "created_at") VALUES (?, ?, ?, ?)`, [
        hostId,
        cmdbAssetId,
        action,
        nowIso(),
      ]);
    });
    return correlateTouched(this.db, { hostIds: [hostId], cmdbIds: [cmdbAssetId] });
  }

  async assetOverrides(): Promise<{ hostId: string; cmdbAssetId: string; action: string; createdAt: string }[]> {
    const rows = await this.db.all(`SELECT * FROM "asset_overrides" ORDER BY "created_at"`);
    return rows.map((r) => ({ hostId: String(r.host_id), cmdbAssetId: String(r.cmdb_asset_id), action: String(r.action), createdAt: String(r.created_at) }));
  }

  async coverage(days: number): Promise<CoverageReport> {
    return coverageReport(this.db, days);
  }

  async coverageList(kind: CoverageKind, days: number): Promise<StoredRecord[]> {
    return coverageList(this.db, kind, days);
  }

  // ---- users, sessions, API tokens ----

  async userCount(): Promise<number> {
    const rows = await this.db.all(`SELECT COUNT(*) AS "n" FROM "users"`);
    return Number(rows[0]?.n ?? 0);
  }

  async createUser(username: string, passwordHash: string): Promise<string> {
    const id = randomUUID();
    await this.db.run(`INSERT INTO "users" ("id", "username", "password_hash", "created_at") VALUES (?, ?, ?, ?)`, [id, username, passwordHash, nowIso()]);
    return id;
  }

  async findUser(username: string): Promise<{ id: string; username: string; passwordHash: string } | null> {
    const rows = await this.db.all(`SELECT * FROM "users" WHERE "username" = ?`, [username]);
    const r = rows[0];
    return r ? { id: String(r.id), username: String(r.username), passwordHash: String(r.password_hash) } : null;
  }

  async getUserById(id: string): Promise<{ id: string; username: string } | null> {
    const rows = await this.db.all(`SELECT "id", "username" FROM "users" WHERE "id" = ?`, [id]);
    return rows[0] ? { id: String(rows[0].id), username: String(rows[0].username) } : null;
  }

  async createSession(tokenHash: string, userId: string, csrfToken: string, expiresAt: string): Promise<void> {
    await this.db.run(`INSERT INTO "sessions" ("token_hash", "user_id", "csrf_token", "created_at", "expires_at") VALUES (?, ?, ?, ?, ?)`, [
      tokenHash,
      userId,
      csrfToken,
      nowIso(),
      expiresAt,
    ]);
  }

  async findSession(tokenHash: string): Promise<{ userId: string; csrfToken: string; expiresAt: string } | null> {
    const rows = await this.db.all(`SELECT * FROM "sessions" WHERE "token_hash" = ?`, [tokenHash]);
    const r = rows[0];
    if (!r) return null;
    if (String(r.expires_at) < nowIso()) {
      await this.deleteSession(tokenHash);
      return null;
    }
    return { userId: String(r.user_id), csrfToken: String(r.csrf_token), expiresAt: String(r.expires_at) };
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.run(`DELETE FROM "sessions" WHERE "token_hash" = ?`, [tokenHash]);
  }

  async createApiToken(name: string, tokenHash: string, userId: string, expiresAt: string | null = null): Promise<string> {
    const id = randomUUID();
    await this.db.run(`INSERT INTO "api_tokens" ("id", "name", "token_hash", "user_id", "created_at", "expires_at") VALUES (?, ?, ?, ?, ?, ?)`, [
      id,
      name,
      tokenHash,
      userId,
      nowIso(),
      expiresAt,
    ]);
    return id;
  }

  async findApiToken(tokenHash: string): Promise<{ id: string; userId: string; expiresAt: string | null; lastUsedAt: string | null } | null> {
    const rows = await this.db.all(`SELECT "id", "user_id", "expires_at", "last_used_at" FROM "api_tokens" WHERE "token_hash" = ?`, [tokenHash]);
    const r = rows[0];
    return r
      ? {
          id: String(r.id),
          userId: String(r.user_id),
          expiresAt: (r.expires_at as string | null) ?? null,
          lastUsedAt: (r.last_used_at as string | null) ?? null,
        }
      : null;
  }

  async touchApiToken(id: string, at: string): Promise<void> {
    await this.db.run(`UPDATE "api_tokens" SET "last_used_at" = ? WHERE "id" = ?`, [at, id]);
  }

  async listApiTokens(userId: string): Promise<{ id: string; name: string; createdAt: string; lastUsedAt: string | null; expiresAt: string | null }[]> {
    const rows = await this.db.all(`SELECT * FROM "api_tokens" WHERE "user_id" = ? ORDER BY "created_at"`, [userId]);
    return rows.map((r) => ({
      id: String(r.id),
      name: String(r.name),
      createdAt: String(r.created_at),
      lastUsedAt: (r.last_used_at as string | null) ?? null,
      expiresAt: (r.expires_at as string | null) ?? null,
    }));
  }

  async deleteApiToken(id: string, userId: string): Promise<boolean> {
    return (await this.db.run(`DELETE FROM "api_tokens" WHERE "id" = ? AND "user_id" = ?`, [id, userId])) > 0;
  }
}
