// The store: one interface over SQLite and PostgreSQL for sources (secrets sealed at rest), sync runs,
// checkpoints, users and tokens, and the normalized records. A facade: each concern's SQL lives in its
// repository module (sources.ts, runs.ts, users.ts, asset-links.ts, record-lookups.ts, records.ts, …).
import type { HostFindingCounts, PluginSummary } from '../core/api-shapes-reports.ts';
import type { KnownHost, SweepScope } from '../core/connector.ts';
import type { IncomingRecord, ModelName, StoredRecord } from '../core/models.ts';
import type { SecretBox } from '../core/secrets.ts';
import * as links from './correlation/asset-links.ts';
import { analyzeLoaded, DEFER_MIN_ROWS, deferIndexes, finishDeferredIndexes, rebuildDeferredIndexes } from './db/bulk-load.ts';
import { type ChangePage, type ChangeQuery, queryChanges } from './records/change-feed.ts';
import type { CorrelationResult } from './correlation/shared.ts';
import { type CoverageKind, type CoverageReport, coverageList, coverageReport } from './reports/coverage.ts';
import { type Driver, openDriver, sqlitePathOf } from './db/driver.ts';
import { FeedLookup } from './feeds/feeds.ts';
import type { RecordIdSet } from './records/id-set.ts';
import { migrate, schemaVersion } from './db/migrate.ts';
import { forgetCvePairs, pairsCommitted, unstoredCvePairs } from './records/cve-plugins.ts';
import { preparePage, writePreparedPage } from './records/pages.ts';
import * as lookups from './records/lookups.ts';
import { sourceHasRecords } from './records/lookups.ts';
import { countMatching, countRecords } from './records/group-counts.ts';
import { hostLabels, recordsByIds } from './records/lookups.ts';
import type { PreparedUpsert, WriteStamp } from './records/upsert.ts';
import { type QueryOptions, type QueryPage, queryRecords } from './records/query.ts';
import { type SweepPreview, sweepModel, scopedSweepPreviewModel, sweepPreviewModel } from './records/sweep.ts';
import { nowIso } from './db/rows.ts';
import * as runs from './sources/runs.ts';
import type { CheckpointRecord, NewRun, RunRecord, RunShortfalls, RunStatus } from './sources/runs.ts';
import type { StreamCounts } from './sources/run-activity.ts';
import { type OneRun, resolveRun, resolveSince, type Since } from './records/since.ts';
import { type SourceRecord, Sources } from './sources/sources.ts';
import type { RunActivity } from './sources/run-activity.ts';
import { BUSY_TIMEOUT_MS, LONG_WAIT_MS } from './db/sqlite-waits.ts';
import { SqlitePageWriter } from './db/sqlite-writer.ts';
import { type ComplianceRow, complianceSummary, hostFindingCounts, overdueCounts, pluginSummary } from './reports/summary-tables-read.ts';
import { forgetSummaries, markWritten, modelCounts, refreshAllSummaries, refreshSummaries } from './reports/summary-tables-write.ts';
import * as users from './auth/users.ts';

export { nowIso } from './db/rows.ts';
export type { CheckpointRecord, RejectedFile, UnstoredRow, RunRecord, RunShortfalls, RunStatus } from './sources/runs.ts';
export type { StreamCounts } from './sources/run-activity.ts';
export { readEveryStream, RUN_LIST_CAP } from './sources/runs.ts';
export { type SourceRecord, unreadableSecretsError } from './sources/sources.ts';

export class Store {
  readonly db: Driver;
  readonly #sources: Sources;
  /** SQLite database files: sync pages are written by a thread of their own (sqlite-writer.ts). */
  readonly #writer: SqlitePageWriter | null;
  /** What the offline feeds say of findings' CVEs, set on findings as they are written. */
  readonly feeds = new FeedLookup();

  constructor(db: Driver, box: SecretBox, secretKeys: (type: string) => string[], writer: SqlitePageWriter | null = null) {
    this.db = db;
    this.#sources = new Sources(db, box, secretKeys);
    this.#writer = writer;
  }

  static async open(url: string, box: SecretBox, secretKeys: (type: string) => string[]): Promise<Store> {
    const db = await openDriver(url);
    const path = sqlitePathOf(url);
    // An in-memory database exists on its own connection only: its pages are written in-thread.
    const writer = path !== null && path !== ':memory:' && process.env.TRIBUTARY_SQLITE_WRITER !== 'inline' ? new SqlitePageWriter(path) : null;
    const store = new Store(db, box, secretKeys, writer);
    await store.migrate();
    // Indexes a first import deferred and a crash left unbuilt (bulk-load.ts).
    await rebuildDeferredIndexes(db);
    return store;
  }

  get dialect(): 'sqlite' | 'postgres' {
    return this.db.dialect;
  }

  /** Applies pending migrations, each in its own transaction; safe when several processes start at once. */
  async migrate(): Promise<void> {
    return migrate(this.db);
  }

  async schemaVersion(): Promise<number> {
    return schemaVersion(this.db);
  }

  async close(): Promise<void> {
    await this.#writer?.close();
    await this.db.close();
  }

  // ---- sources (sources.ts) ----

  async createSource(name: string, type: string, config: Record<string, unknown>, schedule: string | null): Promise<SourceRecord> {
    return this.#sources.create(name, type, config, schedule);
  }

  async findSource(name: string): Promise<SourceRecord | null> {
    return this.#sources.find(name);
  }

  async getSource(name: string): Promise<SourceRecord> {
    return this.#sources.get(name);
  }

  async getSourceById(id: string): Promise<SourceRecord> {
    return this.#sources.getById(id);
  }

  async listSources(): Promise<SourceRecord[]> {
    return this.#sources.list();
  }

  async updateSource(name: string, config: Record<string, unknown>, schedule: string | null): Promise<SourceRecord> {
    return this.#sources.update(name, config, schedule);
  }

  async setLastCheck(sourceId: string, ok: boolean, checks: unknown[]): Promise<void> {
    return this.#sources.setLastCheck(sourceId, ok, checks);
  }

  /** Whether anything in the database is sealed (then a new master key must not be made). */
  async hasSealedSecrets(): Promise<boolean> {
    return this.#sources.hasSealedSecrets();
  }

  /** Sources with sealed values this key cannot open: config fields and/or the runtime state. */
  async unreadableSources(): Promise<{ name: string; fields: string[]; state: boolean }[]> {
    return this.#sources.unreadableSources();
  }

  /** Drops the sealed values of a source this key cannot open (its config fields and its state). */
  async dropUnreadableSecrets(name: string): Promise<void> {
    return this.#sources.dropUnreadableSecrets(name);
  }

  /** Whether the source's runtime state can be read with this key. */
  async sourceStateReadable(sourceId: string): Promise<boolean> {
    return this.#sources.stateReadable(sourceId);
  }

  /** Runtime state of a source (tokens): sealed as a whole. */
  async getSourceState(sourceId: string): Promise<Record<string, unknown>> {
    return this.#sources.getState(sourceId);
  }

  async setSourceState(sourceId: string, state: Record<string, unknown>): Promise<void> {
    return this.#sources.setState(sourceId, state);
  }

  /** Deletes a source with all its records, runs and checkpoints, in one transaction. */
  async deleteSource(name: string): Promise<void> {
    const s = await this.#sources.delete(name);
    forgetSummaries(s.id);
    forgetCvePairs(s.id);
    // Its hosts and CMDB records leave their assets (overrides stay: a source added again under its name has the same record ids).
    if (await links.anyAssets(this.db)) await this.correlate();
  }

  // ---- runs and checkpoints (runs.ts) ----

  async createRun(run: NewRun): Promise<RunRecord> {
    return runs.createRun(this.db, run);
  }

  async getRun(id: string): Promise<RunRecord> {
    return runs.getRun(this.db, id);
  }

  /** Runs newest first: of one source (null: all), with one of the given statuses when any are given. */
  async listRuns(sourceId: string | null, limit = 50, statuses: RunStatus[] = []): Promise<RunRecord[]> {
    return runs.listRuns(this.db, sourceId, limit, statuses);
  }

  async activeRun(sourceId: string): Promise<RunRecord | null> {
    return runs.activeRun(this.db, sourceId);
  }

  async lastRun(sourceId: string, where: runs.LastRunFilter = {}): Promise<RunRecord | null> {
    return runs.lastRun(this.db, sourceId, where);
  }

  async heartbeat(runId: string, counts: Record<string, StreamCounts>, activity?: RunActivity | null): Promise<void> {
    return runs.heartbeat(this.db, runId, counts, activity);
  }

  async finishRun(
    runId: string,
    status: RunStatus,
    counts: Record<string, StreamCounts>,
    error: string | null,
    activity?: RunActivity | null,
    shortfalls?: RunShortfalls | null,
  ): Promise<void> {
    return runs.finishRun(this.db, runId, status, counts, error, activity, shortfalls);
  }

  async getCheckpoints(sourceId: string): Promise<Map<string, CheckpointRecord>> {
    return runs.getCheckpoints(this.db, sourceId);
  }

  // ---- writing pages, sweeping ----

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
    if (stored) await this.#markAllNew(stamp, page.upserts, stored);
    // The CVE pairs this process has not seen committed yet (cve-plugins.ts), written with the page.
    const cves = page.upserts.map((u) => (u.cveColumns ? unstoredCvePairs(stamp.sourceId, u.rows, u.cveColumns) : null));
    page.upserts.forEach((u, i) => {
      if (cves[i]) u.cvePairs = cves[i].pairs;
    });
    const written = this.#writer ? await this.#writer.write(page) : await writePreparedPage(this.db, page);
    for (const c of cves) if (c) pairsCommitted(stamp.sourceId, c);
    markWritten(stamp.sourceId);
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
   * Per run and model, once this process asked to defer the table's indexes (bulk-load.ts): whether it
   * did (the table was empty, so the run loaded it without them).
   */
  #deferred = new Map<string, boolean>();

  /**
   * Builds the indexes a run's first import deferred (its own, and any a crashed run left), once its
   * streams are done, while the caller goes on: the run's counts, summaries and correlation read the
   * tables without them; `built` settles when they are all there. On a SQLite file the page writer's
   * thread builds them (the epilogue's writes take turns with each build); PostgreSQL builds them on
   * connections of their own, whose table lock only writes to these tables would wait for, and the
   * epilogue writes none (sweep() has nothing to mark in them); it analyses the loaded tables first.
   */
  async finishBulkLoad(runId: string): Promise<{ built: Promise<void> }> {
    if (this.#writer) {
      // Each build holds the write lock while it sorts a table: beyond this connection's usual 10 s at a
      // few million findings or on a slow machine (seen: 1M findings under a profiler). The epilogue's
      // writes here wait for it meanwhile rather than fail the run with "database is locked".
      if (this.#builds++ === 0) await this.db.exec(`PRAGMA busy_timeout = ${LONG_WAIT_MS}`);
      const built = this.#writer.buildIndexes(runId).finally(async () => {
        if (--this.#builds === 0) await this.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      });
      return { built };
    }
    await analyzeLoaded(this.db, runId);
    return { built: finishDeferredIndexes(this.db, runId) };
  }

  /** SQLite: index builds the page writer is running for runs of this process. */
  #builds = 0;

  /** Per run and model: whether the source held no record of the model when the run began. */
  #emptyAtStart = new Map<string, boolean>();

  /**
   * Upsert groups none of whose rows can be stored yet, so their events are all `new` (changes.ts
   * recordNewChanges): the source held no record of the model when the run began (asked once per run
   * and model, before the run's first page of it) and the run has not stored any of the ids. Hosts
   * are left out: a page of findings may have written bare rows for them, which the run does not count.
   */
  async #markAllNew(stamp: WriteStamp, upserts: PreparedUpsert[], stored: RecordIdSet): Promise<void> {
    const pageIds = new Map<ModelName, Set<string>>();
    for (const u of upserts) {
      if (u.stub || u.model === 'hosts') continue;
      const key = `${stamp.runId}\u0000${u.model}`;
      let empty = this.#emptyAtStart.get(key);
      if (empty === undefined) {
        empty = !(await sourceHasRecords(this.db, u.model, stamp.sourceId));
        if (this.#emptyAtStart.size > 1000) this.#emptyAtStart.clear();
        this.#emptyAtStart.set(key, empty);
      }
      if (empty && u.rows.length >= DEFER_MIN_ROWS && !this.#deferred.has(key)) {
        if (this.#deferred.size > 1000) this.#deferred.clear();
        this.#deferred.set(key, false);
        this.#deferred.set(key, await deferIndexes(this.db, u.model, stamp.runId));
      }
      // A record may sit in two groups of one page (sent twice with different fields): the later
      // group finds it stored by the earlier one, so it is compared.
      const seen = pageIds.get(u.model) ?? new Set<string>();
      pageIds.set(u.model, seen);
      u.allNew = empty && u.rows.every((r) => !stored.has(r[0] as string) && !seen.has(r[0] as string));
      for (const r of u.rows) seen.add(r[0] as string);
    }
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
    // A model whose table the sweeping run found empty (it loaded it without indexes) holds only what
    // the run stored, all stamped with its generation: nothing to mark, and no UPDATE to scan the
    // table (or, on PostgreSQL, to wait for its index builds).
    const loadedEmpty = (m: ModelName) => by !== undefined && this.#deferred.get(`${by.runId}\u0000${m}`) === true;
    return this.db.transaction(async (tx) => {
      const out: Record<string, number> = {};
      for (const m of models) out[m] = loadedEmpty(m) ? 0 : await sweepModel(tx, m, sourceId, generation, scope, changes);
      markWritten(sourceId);
      return out;
    });
  }

  /** Per model, within one scope: its live records and how many a sweep would mark removed. */
  async scopedSweepPreview(
    sourceId: string,
    models: ModelName[],
    generation: string,
    scope: SweepScope,
  ): Promise<Record<string, { live: number; unseen: number }>> {
    const out: Record<string, { live: number; unseen: number }> = {};
    for (const m of models) out[m] = await scopedSweepPreviewModel(this.db, m, sourceId, generation, scope);
    return out;
  }

  /** Per model: live records, how many a sweep would mark removed, and how many the generation stored. */
  async sweepPreview(sourceId: string, models: ModelName[], generation: string, scope?: SweepScope): Promise<Record<string, SweepPreview>> {
    const out: Record<string, SweepPreview> = {};
    for (const m of models) out[m] = await sweepPreviewModel(this.db, m, sourceId, generation, scope);
    return out;
  }

  // ---- the change feed ----

  /** A `since` of every entrance (since.ts): a run id (the changes of the runs after it) or an ISO-8601 time (at or after it). */
  async resolveSince(value: string): Promise<Since> {
    return resolveSince(this.db, value);
  }

  /** A `run` (exactly its changes): a known run id. */
  async resolveRun(value: string): Promise<OneRun> {
    return resolveRun(this.db, value);
  }

  async changes(opts: ChangeQuery): Promise<ChangePage> {
    return queryChanges(this.db, opts);
  }

  // ---- records (records.ts, record-lookups.ts) ----

  async query(model: ModelName, opts: QueryOptions): Promise<QueryPage> {
    return queryRecords(this.db, model, opts);
  }

  async getRecord(model: ModelName, id: string): Promise<StoredRecord> {
    return lookups.getRecord(this.db, model, id);
  }

  /** Records of a model by id; ids not found are left out. */
  async getRecords(model: ModelName, ids: string[]): Promise<StoredRecord[]> {
    return recordsByIds(this.db, model, ids);
  }

  /** Distinct records of a model that this run stored (a record written twice counts once). */
  async countStamped(sourceId: string, model: ModelName, runId: string): Promise<number> {
    return lookups.countStamped(this.db, sourceId, model, runId);
  }

  /**
   * Distinct records of a model that the runs of one generation stored: a run and the attempts it
   * resumed (they share the generation), so a resumed run's summary covers every attempt.
   */
  async countStampedByGeneration(sourceId: string, model: ModelName, generation: string): Promise<number> {
    return lookups.countStampedByGeneration(this.db, sourceId, model, generation);
  }

  /** Every host of a source (removed ones too) as natural key and fields: what identity resolution starts from. */
  async knownHosts(sourceId: string): Promise<KnownHost[]> {
    return lookups.knownHosts(this.db, sourceId);
  }

  /** Records of host-bound models whose host does not exist (the invariant says: none). */
  async orphans(model: ModelName, sourceId?: string): Promise<number> {
    return lookups.orphans(this.db, model, sourceId);
  }

  /** Hostname and addresses of hosts by id. */
  async hostLabels(ids: string[]): Promise<{ id: string; hostname: string | null; ipAddresses: string[] }[]> {
    return hostLabels(this.db, ids);
  }

  /** Records a query's filters match. */
  async countMatching(model: ModelName, opts: Pick<QueryOptions, 'sourceIds' | 'filters'>): Promise<number> {
    return countMatching(this.db, model, opts);
  }

  // ---- summaries (summaries.ts): rebuilt in a run's epilogue, read by the overview and the summary screens ----

  /** Rebuilds a source's summaries from its records (a run's epilogue), or every source's. */
  async refreshSummaries(sourceId?: string): Promise<void> {
    if (sourceId) await refreshSummaries(this.db, sourceId);
    else await refreshAllSummaries(this.db);
  }

  /** Record counts per source and model (removed ones included). */
  async modelCounts(): Promise<{ sourceId: string; model: string; removed: boolean; n: number }[]> {
    return modelCounts(this.db);
  }

  /** Live open findings past their SLA due date, per severity. */
  async overdueCounts(sourceIds?: string[]): Promise<Record<string, number>> {
    return overdueCounts(this.db, { sourceIds });
  }

  async pluginSummary(opts: Parameters<typeof pluginSummary>[1]): Promise<PluginSummary> {
    return pluginSummary(this.db, opts);
  }

  async hostFindingCounts(ids: string[]): Promise<HostFindingCounts[]> {
    return hostFindingCounts(this.db, ids);
  }

  /** Live compliance results per host and benchmark, most failures first. */
  async complianceSummary(opts: Parameters<typeof complianceSummary>[1]): Promise<ComplianceRow[]> {
    return complianceSummary(this.db, opts);
  }

  /** Records of a model (of one source); with `live`, only those not removed. */
  async count(model: ModelName, sourceId?: string, opts: { live?: boolean } = {}): Promise<number> {
    return countRecords(this.db, model, sourceId, opts);
  }

  /** After a feed import: recomputes the feed fields of every finding that names a CVE; returns how many changed. */
  async applyFeeds(): Promise<number> {
    return this.feeds.applyToAll(this.db);
  }

  // ---- correlation (src/correlate, asset-links.ts) ----

  /** Full recompute: every host against every CMDB record, then every ticket's links. */
  async correlate(): Promise<CorrelationResult & { tickets: number }> {
    return links.correlateEverything(this.db);
  }

  /**
   * After a successful run: correlates what it wrote (hosts, CMDB records, tickets; findings read their host's placement).
   * A run that removed hosts or CMDB records, or touched a large share of them, gets the full pass.
   */
  async correlateRun(sourceId: string, runId: string, removed: number): Promise<(CorrelationResult & { tickets: number }) | null> {
    return links.correlateRunWrites(this.db, sourceId, runId, removed);
  }

  /** Whether a host record with this id exists. */
  async hostExists(id: string): Promise<boolean> {
    return links.hostExists(this.db, id);
  }

  /** A manual link (beats every rule) or unlink (forbids the pair), kept across syncs; the pair is correlated again at once. */
  /** `by`: who made it (a user, an API token, the command line), shown with the link. */
  async setAssetOverride(hostId: string, cmdbAssetId: string, action: 'link' | 'unlink', by: string | null = null): Promise<CorrelationResult> {
    return links.setAssetOverride(this.db, hostId, cmdbAssetId, action, by);
  }

  async assetOverrides(): ReturnType<typeof links.assetOverrides> {
    return links.assetOverrides(this.db);
  }

  async coverage(days: number): Promise<CoverageReport> {
    return coverageReport(this.db, days);
  }

  async coverageList(kind: CoverageKind, days: number): Promise<StoredRecord[]> {
    return coverageList(this.db, kind, days);
  }

  // ---- users, sessions, API tokens (users.ts) ----

  async userCount(): Promise<number> {
    return users.userCount(this.db);
  }

  async createUser(username: string, passwordHash: string): Promise<string> {
    return users.createUser(this.db, username, passwordHash);
  }

  async findUser(username: string): Promise<{ id: string; username: string; passwordHash: string } | null> {
    return users.findUser(this.db, username);
  }

  async getUserById(id: string): Promise<{ id: string; username: string } | null> {
    return users.getUserById(this.db, id);
  }

  async createSession(tokenHash: string, userId: string, csrfToken: string, expiresAt: string): Promise<void> {
    return users.createSession(this.db, tokenHash, userId, csrfToken, expiresAt);
  }

  async findSession(tokenHash: string): Promise<{ userId: string; csrfToken: string; expiresAt: string } | null> {
    return users.findSession(this.db, tokenHash);
  }

  async deleteSession(tokenHash: string): Promise<void> {
    return users.deleteSession(this.db, tokenHash);
  }

  async createApiToken(token: Parameters<typeof users.createApiToken>[1]): Promise<string> {
    return users.createApiToken(this.db, token);
  }

  async findApiToken(tokenHash: string): ReturnType<typeof users.findApiToken> {
    return users.findApiToken(this.db, tokenHash);
  }

  async touchApiToken(id: string, at: string): Promise<void> {
    return users.touchApiToken(this.db, id, at);
  }

  async listApiTokens(userId: string): Promise<users.ApiTokenInfo[]> {
    return users.listApiTokens(this.db, userId);
  }

  async deleteApiToken(id: string, userId: string): Promise<boolean> {
    return users.deleteApiToken(this.db, id, userId);
  }
}
