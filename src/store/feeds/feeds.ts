// The offline feeds in the store: each import is a version (feed_imports), the current data is one
// table per feed keyed by CVE, and findings carry what the feeds say of their CVEs (kevDateAdded,
// kevDueDate, epssFeedScore, epssPercentile): set when a finding is written (FeedLookup, a per-process
// cache of the CVEs looked up) and recomputed for every finding when a feed is imported.
import { randomUUID } from 'node:crypto';
import { InputError } from '../../core/errors.ts';
import type { FeedKind, IncomingRecord } from '../../core/models.ts';
import type { Driver } from '../db/driver.ts';
import { placeholders } from '../db/sql.ts';
import { priorityOf } from '../../core/priority.ts';
import { FACT_COLUMNS, factsOfRow, priorityConfig } from '../records/priority.ts';

/** A feed older than this (by its own date) is stale. */
export const FEED_STALE_DAYS = 7;

/** The offline feeds, as the API names them. */
export type { FeedKind };

/** A feed's current version. */
export interface FeedInfo {
  kind: FeedKind;
  name: string;
  version: string;
  /** The feed's own date (KEV dateReleased, EPSS score_date). */
  released: string;
  records: number;
  size: number;
  sha256: string;
  fileName: string | null;
  importedAt: string;
  /** Versions imported so far, this one included. */
  versions: number;
  ageDays: number;
  stale: boolean;
}

/** What the current feeds say of one CVE. */
export interface CveFeedFacts {
  cve: string;
  kev: { dateAdded: string; dueDate: string | null; ransomware: string | null; name: string | null } | null;
  epss: { score: number; percentile: number | null } | null;
}

export const FEED_LABELS: Record<FeedKind, string> = { kev: 'CISA Known Exploited Vulnerabilities', epss: 'FIRST EPSS scores' };

export interface KevEntry {
  cve: string;
  /** ISO-8601 (midnight UTC of the catalog's date). */
  dateAdded: string;
  dueDate: string | null;
  ransomware: string | null;
  name: string | null;
}

/**
 * KEV entries one a line: cve, dateAdded, dueDate, ransomware, name, tab-separated ('' where none), so a
 * catalog of any length is one string (not an object per entry) on its way from the reading thread.
 */
export interface KevLines {
  lines: string;
}

const LINE_BREAKS = /[\t\r\n]+/g;

/** One KEV entry as its line of KevLines. */
export function kevLine(e: KevEntry): string {
  const text = (v: string | null) => (v ?? '').replace(LINE_BREAKS, ' ');
  // join() makes one flat string (a template literal would keep its parts alive as a tree).
  return [e.cve, e.dateAdded, e.dueDate ?? '', text(e.ransomware), text(e.name)].join('\t');
}

/** The entry of one line of KevLines. */
export function kevEntryOfLine(line: string): KevEntry {
  const [cve = '', dateAdded = '', dueDate = '', ransomware = '', name = ''] = line.split('\t');
  return { cve, dateAdded, dueDate: dueDate || null, ransomware: ransomware || null, name: name || null };
}

/** Reads a string of lines one at a time (by position, without splitting it whole). */
function lineReader(text: string): () => string {
  let pos = 0;
  return () => {
    const end = text.indexOf('\n', pos);
    const line = text.slice(pos, end < 0 ? text.length : end);
    pos = end < 0 ? text.length : end + 1;
    return line;
  };
}

/** EPSS scores by column (a file holds some 300k): CVE ids one per line, scores and percentiles in their order. */
export interface EpssColumns {
  cves: string;
  scores: Float64Array;
  percentiles: Float64Array;
}

/** A feed file as src/feeds/parse.ts reads it: what storeFeeds stores. */
export type ParsedFeed = { version: string; released: string; records: number } & ({ kind: 'kev'; entries: KevLines } | { kind: 'epss'; entries: EpssColumns });

/** A parsed feed file with what identifies it. */
export interface FeedFile {
  feed: ParsedFeed;
  sha256: string;
  size: number;
  fileName: string | null;
}

export interface FeedValues {
  kevDateAdded: string | null;
  kevDueDate: string | null;
  epssFeedScore: number | null;
  epssPercentile: number | null;
}

type CveFacts = { kevAdded?: string; kevDue?: string | null; score?: number; pct?: number };

export async function listFeeds(db: Driver, now = Date.now()): Promise<FeedInfo[]> {
  const rows = await db.all(`SELECT f.*, (SELECT COUNT(*) FROM "feed_imports" g WHERE g."kind" = f."kind") AS "versions" FROM "feed_imports" f
    WHERE f."imported_at" = (SELECT MAX(h."imported_at") FROM "feed_imports" h WHERE h."kind" = f."kind") ORDER BY f."kind"`);
  return rows.map((r) => {
    const released = String(r.released);
    const ageDays = Math.max(0, Math.floor((now - Date.parse(released)) / 86_400_000));
    const kind = String(r.kind) as FeedKind;
    return {
      kind,
      name: FEED_LABELS[kind] ?? kind,
      version: String(r.version),
      released,
      records: Number(r.records),
      size: Number(r.size),
      sha256: String(r.sha256),
      fileName: (r.file_name as string | null) ?? null,
      importedAt: String(r.imported_at),
      versions: Number(r.versions),
      ageDays,
      stale: ageDays > FEED_STALE_DAYS,
    };
  });
}

/** How far ahead of this machine's clock a feed's own date may be (time zones, clock skew). */
export const FEED_FUTURE_SKEW_MS = 86_400_000;

/**
 * Whether a parsed feed goes in over the current one of its kind: the same file is 'unchanged'; one
 * dated more than a day ahead is refused, and so is one older than the current unless `replace`.
 */
export function importVerdict(
  current: { version: string; released: string; sha256: string } | undefined,
  feed: Pick<ParsedFeed, 'kind' | 'version' | 'released'>,
  sha256: string,
  opts: { replace?: boolean; now?: number } = {},
): 'import' | 'unchanged' {
  const what = `${FEED_LABELS[feed.kind]} ${feed.version} of ${feed.released.slice(0, 10)}`;
  const now = opts.now ?? Date.now();
  if (Date.parse(feed.released) > now + FEED_FUTURE_SKEW_MS)
    throw new InputError(`${what} is dated in the future (more than a day ahead of this machine's clock); nothing was changed`, 'file');
  if (!current) return 'import';
  if (current.sha256 === sha256) return 'unchanged';
  if (feed.released < current.released && !opts.replace) {
    throw new InputError(
      `${what} is older than the one imported (${current.version} of ${current.released.slice(0, 10)}); nothing was changed (to install it anyway: \`feeds import --replace\`, ?replace=true)`,
      'file',
    );
  }
  return 'import';
}

/** Lets the event loop run between batches of a long write (SQLite's calls are synchronous). */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Installs feed files (one per kind) in one transaction: each is compared with the current one of its
 * kind inside it (importVerdict), so two imports racing cannot leave the older current, and a file
 * refused changes nothing of the others. Returns each file's verdict.
 */
export async function storeFeeds(db: Driver, files: FeedFile[], opts: { replace?: boolean } = {}): Promise<('imported' | 'unchanged')[]> {
  return db.transaction(async (tx) => {
    if (tx.dialect === 'postgres') await tx.all(`SELECT pg_advisory_xact_lock(hashtext(?))`, ['tributary-feeds']);
    const now = Date.now();
    const plan: { file: FeedFile; verdict: 'import' | 'unchanged'; last: string | null }[] = [];
    for (const file of files) {
      const [current] = await tx.all<{ version: string; released: string; sha256: string; imported_at: string }>(
        `SELECT "version", "released", "sha256", "imported_at" FROM "feed_imports" WHERE "kind" = ? ORDER BY "imported_at" DESC LIMIT 1`,
        [file.feed.kind],
      );
      let verdict: 'import' | 'unchanged';
      try {
        verdict = importVerdict(current, file.feed, file.sha256, { replace: opts.replace, now });
      } catch (err) {
        if (err instanceof InputError && file.fileName) throw new InputError(`${file.fileName}: ${err.message}`, err.field);
        throw err;
      }
      plan.push({ file, verdict, last: current?.imported_at ?? null });
    }
    for (const { file, verdict, last } of plan) {
      if (verdict === 'import') await writeFeed(tx, file, last ? Math.max(now, Date.parse(last) + 1) : now);
    }
    return plan.map((p) => (p.verdict === 'import' ? 'imported' : 'unchanged'));
  });
}

/** Replaces a feed's data and records the version (in the caller's transaction); `at` is later than the current version's. */
async function writeFeed(tx: Driver, { feed, sha256, size, fileName }: FeedFile, at: number): Promise<void> {
  if (feed.kind === 'kev') {
    await tx.run(`DELETE FROM "feed_kev"`);
    const next = lineReader(feed.entries.lines);
    await insertRows(tx, `INSERT INTO "feed_kev" ("cve", "date_added", "due_date", "ransomware", "name") VALUES `, 5, feed.records, () => {
      const e = kevEntryOfLine(next());
      return [e.cve, e.dateAdded, e.dueDate, e.ransomware, e.name];
    });
  } else {
    await tx.run(`DELETE FROM "feed_epss"`);
    const { cves, scores, percentiles } = feed.entries;
    const next = lineReader(cves);
    await insertRows(tx, `INSERT INTO "feed_epss" ("cve", "score", "percentile") VALUES `, 3, feed.records, (i) => [next(), scores[i], percentiles[i]]);
  }
  await tx.run(
    `INSERT INTO "feed_imports" ("id", "kind", "version", "released", "records", "size", "sha256", "file_name", "imported_at") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [randomUUID(), feed.kind, feed.version, feed.released, feed.records, size, sha256, fileName, new Date(at).toISOString()],
  );
}

/** Inserts `count` rows, `row(i)` in order, 400 to a statement; the event loop runs every few thousand. */
async function insertRows(db: Driver, head: string, width: number, count: number, row: (i: number) => unknown[]): Promise<void> {
  const per = 400;
  const tuple = `(${Array(width).fill('?').join(', ')})`;
  for (let i = 0; i < count; i += per) {
    const n = Math.min(per, count - i);
    const params: unknown[] = [];
    for (let j = 0; j < n; j++) params.push(...row(i + j));
    await db.run(head + Array(n).fill(tuple).join(', '), params);
    if ((i / per) % 10 === 9) await breathe();
  }
}

/** The rows of a feed table query (`SELECT … FROM "feed_…"`), read 20,000 at a time in CVE order. */
async function* pagesOf(db: Driver, select: string): AsyncGenerator<Record<string, unknown>> {
  let after = '';
  for (;;) {
    const rows = await db.all(`${select} WHERE "cve" > ? ORDER BY "cve" LIMIT 20000`, [after]);
    yield* rows;
    if (rows.length < 20000) return;
    after = String(rows[rows.length - 1]!.cve);
    await breathe();
  }
}

/** What the feeds say of findings' CVEs, looked up on demand and remembered until a feed changes. */
const num = (x: unknown): number | null => (x === null || x === undefined ? null : Number(x));

export class FeedLookup {
  #state: string | null = null;
  #checkedAt = 0;
  #cache = new Map<string, CveFacts | null>();

  /** Forgets what it knows (a feed was imported by this process). */
  invalidate(): void {
    this.#checkedAt = 0;
  }

  /** Whether any feed is imported; reloads when one changed (checked at most every two seconds). */
  async active(db: Driver): Promise<boolean> {
    if (Date.now() - this.#checkedAt > 2000) {
      const rows = await db.all(`SELECT "kind", MAX("imported_at") AS "at" FROM "feed_imports" GROUP BY "kind" ORDER BY "kind"`);
      const state = rows.map((r) => `${r.kind}@${r.at}`).join(',');
      if (state !== this.#state) {
        this.#state = state;
        this.#cache.clear();
      }
      this.#checkedAt = Date.now();
    }
    return this.#state !== '' && this.#state !== null;
  }

  /** Set while the cache holds every feed row (a recompute of all findings): a CVE it lacks is in no feed. */
  #complete = false;

  async #loadAll(db: Driver): Promise<void> {
    this.#cache.clear();
    // In pages, the event loop running between them (SQLite reads are synchronous; EPSS has ~300k rows).
    for await (const r of pagesOf(db, `SELECT "cve", "date_added", "due_date" FROM "feed_kev"`))
      this.#cache.set(String(r.cve), { kevAdded: String(r.date_added), kevDue: (r.due_date as string | null) ?? null });
    for await (const r of pagesOf(db, `SELECT "cve", "score", "percentile" FROM "feed_epss"`)) {
      const c = String(r.cve);
      this.#cache.set(c, { ...this.#cache.get(c), score: Number(r.score), pct: Number(r.percentile) });
    }
    this.#complete = true;
  }

  async #load(db: Driver, cves: Iterable<string>): Promise<void> {
    if (this.#complete) return;
    const missing = [...new Set(cves)].filter((c) => !this.#cache.has(c));
    if (missing.length === 0) return;
    if (this.#cache.size + missing.length > 500_000) this.#cache.clear();
    for (const c of missing) this.#cache.set(c, null);
    const at = (c: string): CveFacts => {
      let f = this.#cache.get(c);
      if (!f) {
        f = {};
        this.#cache.set(c, f);
      }
      return f;
    };
    for (let i = 0; i < missing.length; i += 500) {
      const chunk = missing.slice(i, i + 500);
      const inCves = placeholders(chunk);
      for (const r of await db.all(`SELECT "cve", "date_added", "due_date" FROM "feed_kev" WHERE "cve" IN ${inCves}`, chunk)) {
        Object.assign(at(String(r.cve)), { kevAdded: String(r.date_added), kevDue: (r.due_date as string | null) ?? null });
      }
      for (const r of await db.all(`SELECT "cve", "score", "percentile" FROM "feed_epss" WHERE "cve" IN ${inCves}`, chunk)) {
        Object.assign(at(String(r.cve)), { score: Number(r.score), pct: Number(r.percentile) });
      }
    }
  }

  /** The feeds' values for a list of CVEs: earliest KEV dates, highest EPSS score and percentile. */
  valuesFor(cves: readonly string[]): FeedValues {
    const v: FeedValues = { kevDateAdded: null, kevDueDate: null, epssFeedScore: null, epssPercentile: null };
    for (const c of cves) {
      const f = this.#cache.get(c);
      if (!f) continue;
      if (f.kevAdded && (v.kevDateAdded === null || f.kevAdded < v.kevDateAdded)) v.kevDateAdded = f.kevAdded;
      if (f.kevDue && (v.kevDueDate === null || f.kevDue < v.kevDueDate)) v.kevDueDate = f.kevDue;
      if (f.score !== undefined && (v.epssFeedScore === null || f.score > v.epssFeedScore)) v.epssFeedScore = f.score;
      if (f.pct !== undefined && (v.epssPercentile === null || f.pct > v.epssPercentile)) v.epssPercentile = f.pct;
    }
    return v;
  }

  /** Sets the feed fields on findings about to be written (those that carry their CVEs); a no-op without feeds. */
  async enrich(db: Driver, findings: IncomingRecord[]): Promise<void> {
    if (!(await this.active(db))) return;
    const cves: string[] = [];
    for (const r of findings) if (Array.isArray(r.fields.cves)) cves.push(...(r.fields.cves as string[]));
    await this.#load(db, cves);
    for (const r of findings) if (Array.isArray(r.fields.cves)) Object.assign(r.fields, this.valuesFor(r.fields.cves as string[]));
  }

  /** Recomputes the feed fields of every finding that names a CVE (after an import); returns how many changed. */
  async applyToAll(db: Driver): Promise<number> {
    this.invalidate();
    await this.active(db);
    // Every finding is visited: the whole feeds in memory once beat a lookup per batch of CVEs.
    await this.#loadAll(db);
    try {
      return await this.#applyToAll(db);
    } finally {
      this.#complete = false;
      this.#cache.clear();
    }
  }

  async #applyToAll(db: Driver): Promise<number> {
    const config = priorityConfig();
    let changed = 0;
    let after = '';
    for (;;) {
      const rows = await db.all(
        `SELECT "id", "cves", "kev_date_added", "kev_due_date", "epss_feed_score", "epss_percentile", "scanner_known_exploited", "scanner_epss_score", ${FACT_COLUMNS} FROM "rec_vulnerabilities" WHERE "id" > ? AND "cves" <> '[]' ORDER BY "id" LIMIT 5000`,
        [after],
      );
      if (rows.length === 0) return changed;
      await breathe();
      after = String(rows[rows.length - 1]!.id);
      const lists = rows.map((r) => (typeof r.cves === 'string' && r.cves.startsWith('[') ? (JSON.parse(r.cves) as string[]) : []));
      await this.#load(db, lists.flat());
      const updates: unknown[][] = [];
      rows.forEach((r, i) => {
        const v = this.valuesFor(lists[i]!);
        if (
          v.kevDateAdded !== (r.kev_date_added ?? null) ||
          v.kevDueDate !== (r.kev_due_date ?? null) ||
          v.epssFeedScore !== num(r.epss_feed_score) ||
          v.epssPercentile !== num(r.epss_percentile)
        ) {
          // The decision and priority follow (docs/priority.md): known exploited and EPSS as the new values make them.
          let prio: { decision: string | null; priority: number | null } = { decision: (r.decision as string | null) ?? null, priority: num(r.priority) };
          if (r.status !== 'fixed') {
            const facts = factsOfRow(r);
            facts.knownExploited = v.kevDateAdded !== null || Number(r.scanner_known_exploited) === 1;
            facts.epssScore = v.epssFeedScore ?? num(r.scanner_epss_score);
            prio = priorityOf(facts, config);
          }
          updates.push([v.kevDateAdded, v.kevDueDate, v.epssFeedScore, v.epssPercentile, prio.decision, prio.priority, r.id]);
        }
      });
      if (updates.length > 0) {
        await db.transaction(async (tx) => {
          if (tx.dialect === 'sqlite') {
            for (const u of updates)
              await tx.run(
                `UPDATE "rec_vulnerabilities" SET "kev_date_added" = ?, "kev_due_date" = ?, "epss_feed_score" = ?, "epss_percentile" = ?, "decision" = ?, "priority" = ? WHERE "id" = ?`,
                u,
              );
            return;
          }
          // PostgreSQL: one statement per 1000 rows, not a round trip per row.
          for (let i = 0; i < updates.length; i += 1000) {
            const chunk = updates.slice(i, i + 1000);
            const values = chunk.map(() => '(?::text, ?::text, ?::double precision, ?::double precision, ?::text, ?::double precision, ?::text)').join(', ');
            await tx.run(
              `UPDATE "rec_vulnerabilities" r SET "kev_date_added" = v.a, "kev_due_date" = v.d, "epss_feed_score" = v.s, "epss_percentile" = v.p, "decision" = v.dc, "priority" = v.pr FROM (VALUES ${values}) AS v (a, d, s, p, dc, pr, id) WHERE r."id" = v.id`,
              chunk.flat(),
            );
          }
        });
        changed += updates.length;
      }
    }
  }
}

/** What the feeds say of each of these CVEs (for a finding's page): KEV entry and EPSS score, null where absent. */
export async function cveFeedFacts(db: Driver, cves: string[]): Promise<CveFeedFacts[]> {
  const wanted = [...new Set(cves.map((c) => c.trim().toUpperCase()).filter(Boolean))].slice(0, 500);
  const out = new Map<string, CveFeedFacts>(wanted.map((c) => [c, { cve: c, kev: null, epss: null }]));
  if (wanted.length === 0) return [];
  const inCves = placeholders(wanted);
  for (const r of await db.all(`SELECT "cve", "date_added", "due_date", "ransomware", "name" FROM "feed_kev" WHERE "cve" IN ${inCves}`, wanted)) {
    const f = out.get(String(r.cve));
    if (f)
      f.kev = {
        dateAdded: String(r.date_added),
        dueDate: (r.due_date as string | null) ?? null,
        ransomware: (r.ransomware as string | null) ?? null,
        name: (r.name as string | null) ?? null,
      };
  }
  for (const r of await db.all(`SELECT "cve", "score", "percentile" FROM "feed_epss" WHERE "cve" IN ${inCves}`, wanted)) {
    const f = out.get(String(r.cve));
    if (f) f.epss = { score: Number(r.score), percentile: r.percentile === null ? null : Number(r.percentile) };
  }
  return [...out.values()];
}
