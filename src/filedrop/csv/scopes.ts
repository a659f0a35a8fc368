// An export is the whole state of its scope (docs/csv-import.md): its export time, which earlier or
// later exports make it older where, and what a run sweeps within the scopes its clean files covered.
import type { ScopedSweep } from '../../core/connector.ts';
import type { FileScope, ImportedExport, SourceBucket } from '../../core/files.ts';
import { CsvRow, detectKind, type FileKind } from './columns.ts';
import { CsvFormatError, isBlankRecord, readCsv } from './reader.ts';

/** An export whose scope is known: imported earlier (stored), or read ahead by a full run; this run's snapshot is at '9999'. */
export type KnownExport = ImportedExport;

/** A newer export one of a file's scopes has: the rows there are skipped. */
export interface NewerExport {
  /** The repository, or null for the file name (rows naming no repository). */
  repository: string | null;
  key: string;
  at: string;
}

/** What one kind of export read cleanly this run, and what it may not sweep. */
export interface KindSweep {
  /** Repositories named by rows of clean files (every row imported). */
  repos: string[];
  /** Origins (and file names) of clean files with rows naming no repository. */
  origins: string[];
  originKeys: string[];
  /** Repositories named by rows of a file with rejected rows: a rejected row is no missing record. */
  tainted: string[];
}

const pad = (n: string | undefined, width = 2) => (n ?? '0').padStart(width, '0');

/**
 * The date a file name carries (`corp-2026-03-08.csv`, `vulns_20260308_1405.csv`, `2026-03-08T14:05:00`),
 * as UTC, or null. Years 2000-2099, with a valid month and day; digits right before or after are no date.
 */
export function fileNameDate(key: string): string | null {
  const name = key.slice(key.lastIndexOf('/') + 1);
  const m = /(?<!\d)(20\d\d)([-_.]?)(0[1-9]|1[0-2])\2(0[1-9]|[12]\d|3[01])(?:[T _-]?([01]\d|2[0-3])[-:.h]?([0-5]\d)(?:[-:.m]?([0-5]\d))?)?(?!\d)/.exec(name);
  if (!m) return null;
  const iso = `${m[1]}-${m[3]}-${m[4]}T${pad(m[5])}:${pad(m[6])}:${pad(m[7])}.000Z`;
  const d = new Date(iso);
  // 2026-02-30 is no date.
  return Number.isNaN(d.getTime()) || d.toISOString() !== iso ? null : iso;
}

/** A file's export time: the date in its file name if it has one, else when it was uploaded (the object's time). */
export function exportTimeOf(key: string, lastModified: string): string {
  return fileNameDate(key) ?? new Date(Date.parse(lastModified) || 0).toISOString();
}

/**
 * The newer exports of a file's scopes: for each repository (and for its file name), the latest export
 * of the same kind from another snapshot whose export time is later (or equal, from a later snapshot).
 * Files of one snapshot never make each other older (files uploaded together are one snapshot).
 */
export function newerExports(
  file: { key: string; kind: string; snapshot: string; snapshotAt: string; exportedAt: string },
  known: KnownExport[],
): NewerExport[] {
  const byScope = new Map<string | null, KnownExport>();
  const later = (g: KnownExport) => g.exportedAt > file.exportedAt || (g.exportedAt === file.exportedAt && g.snapshotAt > file.snapshotAt);
  const keep = (scope: string | null, g: KnownExport) => {
    const had = byScope.get(scope);
    if (!had || g.exportedAt > had.exportedAt) byScope.set(scope, g);
  };
  for (const g of known) {
    if (g.snapshot === file.snapshot || g.kind !== file.kind || !later(g)) continue;
    for (const r of g.scope.repositories) keep(r, g);
    if (g.scope.fileName && g.key === file.key) keep(null, g);
  }
  return [...byScope].map(([repository, g]) => ({ repository, key: g.key, at: g.exportedAt }));
}

/** Whether every row of a file with this scope falls in a scope a newer export has. */
export function whollyCovered(scope: FileScope, newer: NewerExport[]): boolean {
  const repos = new Set(newer.map((n) => n.repository));
  if (scope.repositories.length === 0 && !scope.fileName) return false;
  return scope.repositories.every((r) => repos.has(r)) && (!scope.fileName || repos.has(null));
}

/** Why a file (or its rows in some scopes) changed nothing: the newer exports, named. */
export function olderMessage(newer: NewerExport[]): string {
  const parts = newer.map((n) => `${n.repository === null ? 'its file name' : `repository '${n.repository}'`} (${n.key}, exported ${n.at})`);
  return `older than the export already imported for ${parts.join(', ')}: it changed nothing there`;
}

/** Adds what one file read to its kind's sweep: its scope when every row was imported, else its repositories as tainted. */
export function noteFileSweep(
  acc: KindSweep | undefined,
  file: { origin: string; key: string },
  pos: { rowsImported: number; rowsRejected: number; scope: string[]; named?: string[]; unscoped?: number },
): KindSweep {
  const out: KindSweep = acc ? { ...acc } : { repos: [], origins: [], originKeys: [], tainted: [] };
  if (pos.rowsImported > 0 && pos.rowsRejected === 0) {
    out.repos = [...new Set([...out.repos, ...pos.scope])];
    if ((pos.unscoped ?? 0) > 0) {
      out.origins = [...out.origins, file.origin];
      out.originKeys = [...out.originKeys, file.key];
    }
  } else out.tainted = [...new Set([...out.tainted, ...(pos.named ?? []), ...pos.scope])];
  return out;
}

/**
 * What a run sweeps: per kind of export, its models within the scopes its clean files covered (the
 * repositories their rows named, and the files whose rows named none), less the repositories a file
 * with rejected rows named. Nothing when the run read no clean file.
 */
export function sweepOf(sweeps: Record<string, KindSweep> | undefined, kinds: FileKind[]): ScopedSweep[] {
  const out: ScopedSweep[] = [];
  for (const k of kinds) {
    const acc = sweeps?.[k.name];
    if (!acc || k.sweeps.length === 0) continue;
    const repos = k.scope ? acc.repos.filter((v) => !acc.tainted.includes(v)) : [];
    if (repos.length === 0 && acc.origins.length === 0) continue;
    out.push({
      models: k.sweeps,
      scope: {
        origins: acc.origins,
        originKeys: acc.originKeys,
        ...(repos.length > 0 && k.scope ? { hostField: { name: k.scope.hostField, values: repos } } : {}),
      },
    });
  }
  return out;
}

/** The scope values an export's rows name (parsed, not mapped), and whether some row names none. */
export async function scopeOfObject(bucket: SourceBucket, key: string, kind: FileKind, what: string): Promise<{ values: string[]; unscoped: boolean }> {
  const out = new Set<string>();
  let unscoped = false;
  const scope = kind.scope;
  if (!scope) return { values: [], unscoped: true };
  const input = await bucket.open(key);
  try {
    let index: Map<string, number> | null = null;
    for await (const batch of readCsv(input)) {
      for (const rec of batch) {
        if (isBlankRecord(rec.fields)) continue;
        if (!index) {
          const d = detectKind(rec.fields, [kind], what);
          if (!d.ok) return { values: [], unscoped: true };
          index = d.match.index;
          continue;
        }
        const v = scope.of(new CsvRow(rec.fields, rec.line, index));
        if (v) out.add(v);
        else unscoped = true;
      }
    }
  } catch (err) {
    if (!(err instanceof CsvFormatError)) throw err;
    unscoped = true;
  } finally {
    input.destroy();
  }
  return { values: [...out], unscoped };
}
