// Writing a sync's records: one page with its checkpoint per transaction (on a SQLite file through the
// page writer's thread), the first import's deferred indexes, and the sweep of what a run did not see.
import type { SweepScope } from '../../core/connector.ts';
import type { IncomingRecord, ModelName } from '../../core/models.ts';
import { analyzeLoaded, DEFER_MIN_ROWS, deferIndexes, deferredIndexesOf, finishDeferredIndexes, rebuildDeferredIndexes } from '../db/bulk-load.ts';
import { tableOf } from '../db/schema.ts';
import type { Driver } from '../db/driver.ts';
import { nowIso } from '../db/rows.ts';
import { BUSY_TIMEOUT_MS, LONG_WAIT_MS } from '../db/sqlite-waits.ts';
import type { SqlitePageWriter } from '../db/sqlite-writer.ts';
import type { FeedLookup } from '../feeds/feeds.ts';
import { markWritten } from '../reports/summary-tables-write.ts';
import { runChanges } from '../reports/summary-tables-touched.ts';
import { activeRun, lastRun } from '../sources/runs.ts';
import { pairsCommitted, unstoredCvePairs } from './cve-plugins.ts';
import type { RecordIdSet } from './id-set.ts';
import { sourceHasRecords } from './lookups.ts';
import { preparePage, writePreparedPage } from './pages.ts';
import type { WrittenPage } from './pages-write.ts';
import { criticalityVersion, hostCriticality, priorityConfig } from './priority.ts';
import { scopedSweepPreview, sweepModel } from './sweep.ts';
import { type PreparedUpsert, type PriorityContext, recordId, type WriteStamp } from './upsert.ts';

export class RecordWrites {
  readonly #db: Driver;
  /** SQLite database files: sync pages are written by a thread of their own (sqlite-writer.ts). */
  readonly #writer: SqlitePageWriter | null;
  /** What the offline feeds say of findings' CVEs, set on findings as they are written. */
  readonly #feeds: FeedLookup;

  constructor(db: Driver, writer: SqlitePageWriter | null, feeds: FeedLookup) {
    this.#db = db;
    this.#writer = writer;
    this.#feeds = feeds;
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
    if (records.vulnerabilities?.length) await this.#feeds.enrich(this.#db, records.vulnerabilities);
    const prioritise = records.vulnerabilities?.length ? await this.#criticality(stamp, records) : undefined;
    const page = preparePage(stamp, stream, mode, records, checkpoint, stored, prioritise);
    if (stored) page.upserts = await this.#markAllNew(stamp, page.upserts, stored);
    // The CVE pairs this process has not seen committed yet (cve-plugins.ts), written with the page.
    const cves = page.upserts.map((u) => (u.cveColumns ? unstoredCvePairs(stamp.sourceId, u.rows, u.cveColumns) : null));
    page.upserts.forEach((u, i) => {
      if (cves[i]) u.cvePairs = cves[i].pairs;
    });
    // The keys of what the run changed, for its epilogue's summaries; a write that failed may have
    // committed all the same (its answer lost): the epilogue then regroups what the run stamped.
    const changes = runChanges(stamp.runId);
    let written: WrittenPage;
    try {
      written = this.#writer ? await this.#writer.write(page) : await writePreparedPage(this.#db, page);
    } catch (err) {
      changes.unsure();
      throw err;
    }
    changes.add(written.changedKeys);
    for (const c of cves) if (c) pairsCommitted(stamp.sourceId, c);
    markWritten(stamp.sourceId);
    if (!stored) return written.counts;
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

  /** The run (and criticality version) whose hosts' criticality #hostCriticality holds (it changes only after a run, priority.ts). */
  #criticalityRun = '';
  #hostCriticality = new Map<string, number | null>();

  /**
   * The criticality of the hosts of a page's findings (docs/priority.md): a host of the page that sends
   * its ACR, when the ACR comes first, else as stored; one query per page for the hosts the run has not
   * asked for yet.
   */
  async #criticality(stamp: WriteStamp, records: Partial<Record<ModelName, IncomingRecord[]>>): Promise<PriorityContext> {
    const run = `${stamp.runId}@${criticalityVersion}`;
    if (this.#criticalityRun !== run || this.#hostCriticality.size > 200_000) {
      this.#criticalityRun = run;
      this.#hostCriticality = new Map();
    }
    const known = this.#hostCriticality;
    const page = new Map<string, number>();
    if (priorityConfig().criticalitySources[0] === 'acr')
      for (const h of records.hosts ?? [])
        if (typeof h.fields.acrScore === 'number') page.set(recordId(stamp.sourceName, 'hosts', h.key), Math.min(10, Math.max(0, h.fields.acrScore)));
    const keys = new Set<string>();
    for (const r of records.vulnerabilities ?? []) if (r.hostKey) keys.add(r.hostKey);
    const missing: string[] = [];
    for (const k of keys) {
      const id = recordId(stamp.sourceName, 'hosts', k);
      if (!known.has(id) && !page.has(id)) missing.push(id);
    }
    if (missing.length > 0) {
      const found = await hostCriticality(this.#db, missing);
      for (const id of missing) known.set(id, found.get(id) ?? null);
    }
    return { criticality: (id) => page.get(id) ?? known.get(id) ?? null };
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
    const early = this.#early.get(runId) ?? [];
    this.#early.delete(runId);
    if (this.#writer) {
      const writer = this.#writer;
      const built = this.#whileBuilding(() => writer.buildIndexes(runId));
      return { built: Promise.all([...early, built]).then(() => {}) };
    }
    // Tables a stream's early build analysed are not analysed again: the ANALYZE would wait for their index builds.
    const analysed = this.#analysed.get(runId);
    this.#analysed.delete(runId);
    await analyzeLoaded(this.#db, runId, undefined, analysed);
    return { built: Promise.all([...early, finishDeferredIndexes(this.#db, runId)]).then(() => {}) };
  }

  /**
   * Once a stream of a first import is done (its models are written no more in the run), the indexes
   * the run deferred on its tables are built while the next streams go on (issue 30: the page writer's
   * thread waits for the main thread half the time of a first import); finishBulkLoad waits for them
   * with the rest. On SQLite one build at a time between the pages that follow; on PostgreSQL on
   * connections of their own (a build's lock holds back writes to its table alone, and no other stream
   * writes it). A build that fails keeps its note: finishBulkLoad, the next run or start builds it.
   */
  async buildStreamIndexes(runId: string, models: ModelName[]): Promise<void> {
    const tables = models.map(tableOf);
    // Noted before any wait: the run's finishBulkLoad may come while this looks up its indexes.
    if (!this.#writer) {
      if (this.#analysed.size > 100) this.#analysed.clear();
      const set = this.#analysed.get(runId) ?? new Set<string>();
      for (const t of tables) set.add(t);
      this.#analysed.set(runId, set);
    }
    const names = await deferredIndexesOf(this.#db, runId, tables);
    if (names.length === 0) return;
    let list = this.#early.get(runId);
    if (!list) {
      if (this.#early.size > 100) this.#early.clear();
      list = [];
      this.#early.set(runId, list);
    }
    const writer = this.#writer;
    // (a failure is the caller's to log; finishBulkLoad only waits for the builds to settle)
    const settled = (p: Promise<unknown>) =>
      p.then(
        () => {},
        () => {},
      );
    if (writer) {
      const builds = names.map((name) => this.#whileBuilding(() => writer.buildIndex(runId, name)));
      list.push(...builds.map(settled));
      await Promise.all(builds);
      return;
    }
    const build = (async () => {
      await analyzeLoaded(this.#db, runId, tables);
      await rebuildDeferredIndexes(this.#db, runId, { tables });
    })();
    list.push(settled(build));
    await build;
  }

  /** Index builds a run started before its end (buildStreamIndexes), by run. */
  #early = new Map<string, Promise<void>[]>();

  /** PostgreSQL: per run, the tables its streams' early builds analyse (buildStreamIndexes), which finishBulkLoad leaves. */
  #analysed = new Map<string, Set<string>>();

  /**
   * SQLite: an index build on the page writer's thread. Each build holds the write lock while it sorts a
   * table: beyond this connection's usual 10 s at a few million findings or on a slow machine. The
   * writes here (heartbeats, the epilogue's) wait for it meanwhile rather than fail the run with
   * "database is locked".
   */
  async #whileBuilding(build: () => Promise<void>): Promise<void> {
    if (this.#builds++ === 0) await this.#db.exec(`PRAGMA busy_timeout = ${LONG_WAIT_MS}`);
    try {
      await build();
    } finally {
      if (--this.#builds === 0) await this.#db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  /** SQLite: index builds the page writer is running for runs of this process. */
  #builds = 0;

  /** Per run and model: whether the source held no record of the model when the run began. */
  #emptyAtStart = new Map<string, boolean>();

  /**
   * Upsert groups none of whose rows can be stored yet, so their events are all `new` (changes.ts
   * recordNewChanges): the source held no record of the model when the run began (asked once per run
   * and model, before the run's first page of it) and the run has not stored any of the ids. A group
   * some of whose rows the run stored already is split in two: its new rows, and the others. Hosts
   * are left out: a page of findings may have written bare rows for them, which the run does not count.
   */
  async #markAllNew(stamp: WriteStamp, upserts: PreparedUpsert[], stored: RecordIdSet): Promise<PreparedUpsert[]> {
    const pageIds = new Map<ModelName, Set<string>>();
    const out: PreparedUpsert[] = [];
    for (const u of upserts) {
      out.push(u);
      if (u.stub || u.model === 'hosts') continue;
      const key = `${stamp.runId}\u0000${u.model}`;
      let empty = this.#emptyAtStart.get(key);
      if (empty === undefined) {
        empty = !(await sourceHasRecords(this.#db, u.model, stamp.sourceId));
        if (this.#emptyAtStart.size > 1000) this.#emptyAtStart.clear();
        this.#emptyAtStart.set(key, empty);
      }
      if (empty && u.rows.length >= DEFER_MIN_ROWS && !this.#deferred.has(key)) {
        if (this.#deferred.size > 1000) this.#deferred.clear();
        this.#deferred.set(key, false);
        this.#deferred.set(key, await deferIndexes(this.#db, u.model, stamp.runId));
      }
      // A record may sit in two groups of one page (sent twice with different fields): the later
      // group finds it stored by the earlier one, so it is compared.
      const seen = pageIds.get(u.model) ?? new Set<string>();
      pageIds.set(u.model, seen);
      const isNew = (r: unknown[]) => !stored.has(r[0] as string) && !seen.has(r[0] as string);
      u.allNew = empty && u.rows.every(isNew);
      if (empty && !u.allNew) {
        // Some rows the run stored already (a plugin named again by a later page): the others are new
        // all the same, and go as such (PostgreSQL COPYs them); only those are compared with the table.
        const fresh = u.rows.filter(isNew);
        if (fresh.length > 0) {
          out[out.length - 1] = { ...u, rows: fresh, allNew: true };
          out.push({ ...u, rows: u.rows.filter((r) => !isNew(r)), allNew: false });
        }
      }
      for (const r of u.rows) seen.add(r[0] as string);
    }
    return out;
  }

  /**
   * Per model, within one scope: its live records and how many a sweep would mark removed (sweep.ts).
   * With the sweeping run's id, a model whose table that run loaded empty holds only what the run stored:
   * nothing to mark, and no count to scan the table for while its indexes are built (its live count
   * is then not counted: 0).
   */
  async scopedSweepPreview(
    sourceId: string,
    models: ModelName[],
    generation: string,
    scope: SweepScope,
    runId?: string,
  ): Promise<Record<string, { live: number; unseen: number }>> {
    const loadedEmpty = (m: ModelName) => runId !== undefined && this.#deferred.get(`${runId}\u0000${m}`) === true;
    const rest = await scopedSweepPreview(
      this.#db,
      sourceId,
      models.filter((m) => !loadedEmpty(m)),
      generation,
      scope,
    );
    return Object.fromEntries(models.map((m) => [m, rest[m] ?? { live: 0, unseen: 0 }]));
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
    const run = by?.runId ?? (await activeRun(this.#db, sourceId))?.id ?? (await lastRun(this.#db, sourceId))?.id ?? null;
    const changes = run ? { runId: run, at: by?.at ?? nowIso() } : undefined;
    // A model whose table the sweeping run found empty (it loaded it without indexes) holds only what
    // the run stored, all stamped with its generation: nothing to mark, and no UPDATE to scan the
    // table (or, on PostgreSQL, to wait for its index builds).
    const loadedEmpty = (m: ModelName) => by !== undefined && this.#deferred.get(`${by.runId}\u0000${m}`) === true;
    return this.#db.transaction(async (tx) => {
      const out: Record<string, number> = {};
      for (const m of models) out[m] = loadedEmpty(m) ? 0 : await sweepModel(tx, m, sourceId, generation, scope, changes);
      markWritten(sourceId);
      return out;
    });
  }
}
