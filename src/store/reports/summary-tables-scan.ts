// SQLite: the findings' summaries of a full rebuild from one scan of the source's findings, grouped in
// memory (issue 30). SQLite has no hash aggregate: each grouped fill (summary-tables-write.ts) sorted
// every finding in a temporary B-tree of its own, four sorts of the widest table at the end of a
// first import (10 s of 227,000 findings on a loaded machine, where the scan alone takes 0.4 s). The
// rows are those the fills' SELECTs give (test/store/summary-tables-scan.test.ts compares them).
import type { Driver } from '../db/driver.ts';
import { HOST_PLACEMENT } from './summary-tables-write.ts';

/** The summary tables this pass fills, with the rows in each fill's column order (summary-tables-write.ts). */
export type ScannedFindings = Map<string, unknown[][]>;

const RANKS = new Map<unknown, number>([
  ['info', 0],
  ['low', 1],
  ['medium', 2],
  ['high', 3],
  ['critical', 4],
]);
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];
const DECISIONS = ['act', 'attend', 'track-star', 'track'];

/** SQLite's order of values for MAX (NULL ignored; numbers before text, text by its UTF-8 bytes). */
function sqlMax(a: unknown, b: unknown): unknown {
  if (b === null || b === undefined) return a;
  if (a === null || a === undefined) return b;
  if (a === b) return a;
  const ta = typeof a === 'string' ? 1 : 0;
  const tb = typeof b === 'string' ? 1 : 0;
  if (ta !== tb) return ta > tb ? a : b;
  if (ta === 0) return (a as number) >= (b as number) ? a : b;
  return Buffer.compare(Buffer.from(a as string), Buffer.from(b as string)) >= 0 ? a : b;
}

/** SUM as SQLite adds: integers exactly; with a real among them, a compensated (Kahan-Babuska-Neumaier) sum. */
class Sum {
  int = 0;
  real = 0;
  err = 0;
  isReal = false;
  add(v: number): void {
    if (!this.isReal && Number.isInteger(v)) {
      this.int += v;
      return;
    }
    if (!this.isReal) {
      this.isReal = true;
      this.step(this.int);
    }
    this.step(v);
  }
  step(v: number): void {
    const s = this.real + v;
    if (Math.abs(this.real) > Math.abs(v)) this.err += this.real - s + v;
    else this.err += v - s + this.real;
    this.real = s;
  }
  get value(): number {
    return this.isReal ? this.real + this.err : this.int;
  }
}

/** The decision counts and summed priority of a group's live open findings (BY_DECISION). */
class ByDecision {
  counts = [0, 0, 0, 0];
  priority = new Sum();
  add(decision: unknown, priority: unknown): void {
    const i = DECISIONS.indexOf(decision as string);
    if (i >= 0) this.counts[i]!++;
    this.priority.add(typeof priority === 'number' ? priority : 0);
  }
  get columns(): unknown[] {
    return [...this.counts, this.priority.value];
  }
}

interface PluginGroup {
  id: string;
  /** Its number in the (plugin, host) pairs. */
  index: number;
  name: unknown;
  rank: unknown;
  n: number;
  /** Distinct hosts (counted from the sorted pairs once the scan is done). */
  hosts: number;
  kev: unknown;
  epss: unknown;
  vpr: unknown;
  cvss3: unknown;
  decisions: ByDecision;
}

interface HostGroup {
  sev: number[];
  n: number;
  urgent: number;
  decisions: ByDecision;
}

/** Host numbers under 2^21 in a pair: a plugin's number times 2^21 plus its host's, exact in a double. */
const HOST_BITS = 2 ** 21;

/**
 * The (plugin, host) pairs of the live open findings as numbers, sorted once the scan is done: 8 bytes a
 * finding where a set of hosts per plugin took ~30, and each plugin's distinct hosts are its runs.
 */
class Pairs {
  #a = new Float64Array(1 << 16);
  length = 0;
  push(v: number): void {
    if (this.length === this.#a.length) {
      const b = new Float64Array(this.#a.length * 2);
      b.set(this.#a);
      this.#a = b;
    }
    this.#a[this.length++] = v;
  }
  sorted(): Float64Array {
    return this.#a.subarray(0, this.length).sort();
  }
}

/** A group key's part: null apart from every text. */
const part = (v: unknown): string => (v === null || v === undefined ? '\u0001' : typeof v === 'number' ? `#${v}` : `=${v as string}`);

const COLUMNS = `"plugin_id", "severity", "status", "known_exploited", "decision", "removed", "first_seen", "kev_due_date", "host_id", "plugin_name",
  "epss_score", "vpr_score", "cvss_v3_base_score", "priority"`;

/** Null when the driver cannot stream rows as arrays (PostgreSQL fills each table in SQL). */
export async function scanFindings(db: Driver, sourceId: string): Promise<ScannedFindings | null> {
  if (!db.eachArray) return null;
  const counts = new Map<string, { row: unknown[]; n: number }>();
  const due = new Map<string, { row: unknown[]; n: number }>();
  const plugins = new Map<string, PluginGroup>();
  const hosts = new Map<string, HostGroup>();
  /** Host ids as small numbers: a plugin's distinct hosts are a set of them. */
  const hostIndex = new Map<string, number>();
  const hostIds: string[] = [];
  const pluginList: PluginGroup[] = [];
  const pairs = new Pairs();
  await db.eachArray(`SELECT ${COLUMNS} FROM "rec_vulnerabilities" WHERE "source_id" = ?`, [sourceId], (r) => {
    const [pluginId, severity, status, kev, decision, removed, firstSeen, kevDue, hostId, name, epss, vpr, cvss3, priority] = r;
    const ck = `${part(pluginId)}\u0000${part(severity)}\u0000${part(status)}\u0000${part(kev)}\u0000${part(decision)}\u0000${part(removed)}`;
    const c = counts.get(ck);
    if (c) c.n++;
    else counts.set(ck, { row: [sourceId, pluginId, severity, status, kev, decision, removed], n: 1 });
    if (removed !== 0 || (status !== 'open' && status !== 'reopened')) return;
    const day = typeof firstSeen === 'string' ? firstSeen.slice(0, 10) : firstSeen === null || firstSeen === undefined ? null : String(firstSeen).slice(0, 10);
    const dk = `${part(severity)}\u0000${part(day)}\u0000${part(kevDue)}`;
    const d = due.get(dk);
    if (d) d.n++;
    else due.set(dk, { row: [sourceId, severity, day, kevDue], n: 1 });
    let h: number | undefined;
    if (hostId !== null && hostId !== undefined) {
      const id = hostId as string;
      h = hostIndex.get(id);
      if (h === undefined) {
        h = hostIds.length;
        hostIndex.set(id, h);
        hostIds.push(id);
      }
      let g = hosts.get(id);
      if (!g) {
        g = { sev: [0, 0, 0, 0, 0], n: 0, urgent: 0, decisions: new ByDecision() };
        hosts.set(id, g);
      }
      const s = SEVERITIES.indexOf(severity as string);
      if (s >= 0) g.sev[s]!++;
      g.n++;
      if (severity === 'critical' || kev === 1) g.urgent++;
      g.decisions.add(decision, priority);
    }
    if (pluginId === null || pluginId === undefined) return;
    const pk = pluginId as string;
    let p = plugins.get(pk);
    if (!p) {
      p = {
        id: pk,
        index: pluginList.length,
        name: null,
        rank: null,
        n: 0,
        hosts: 0,
        kev: null,
        epss: null,
        vpr: null,
        cvss3: null,
        decisions: new ByDecision(),
      };
      plugins.set(pk, p);
      pluginList.push(p);
    }
    p.name = sqlMax(p.name, name);
    p.rank = sqlMax(p.rank, RANKS.get(severity) ?? null);
    p.n++;
    if (h !== undefined) {
      if (h >= HOST_BITS) throw new Error(`more than ${HOST_BITS} hosts in one source's findings`);
      pairs.push(p.index * HOST_BITS + h);
    }
    p.kev = sqlMax(p.kev, kev);
    p.epss = sqlMax(p.epss, epss);
    p.vpr = sqlMax(p.vpr, vpr);
    p.cvss3 = sqlMax(p.cvss3, cvss3);
    p.decisions.add(decision, priority);
  });
  // The hosts' placement (the host summaries carry it, as the fill's LEFT JOIN of rec_hosts gives it),
  // and the owners of a plugin's hosts: a host has one owner, so each owner counts its distinct hosts.
  const placement = new Map<string, unknown[]>();
  const placed = `SELECT "id", ${HOST_PLACEMENT.map((c) => `"${c}"`).join(', ')} FROM "rec_hosts"`;
  for (const r of await db.all(`${placed} WHERE "source_id" = ?`, [sourceId]))
    placement.set(
      String(r.id),
      HOST_PLACEMENT.map((c) => r[c] ?? null),
    );
  const elsewhere = hostIds.filter((id) => !placement.has(id));
  for (let i = 0; i < elsewhere.length; i += 500) {
    const ids = elsewhere.slice(i, i + 500);
    for (const r of await db.all(`${placed} WHERE "id" IN (${ids.map(() => '?').join(', ')})`, ids))
      placement.set(
        String(r.id),
        HOST_PLACEMENT.map((c) => r[c] ?? null),
      );
  }
  const ownerAt = HOST_PLACEMENT.indexOf('owner');
  const owners = new Map<number, string>();
  for (const [h, id] of hostIds.entries()) {
    const owner = placement.get(id)?.[ownerAt];
    if (owner !== null && owner !== undefined) owners.set(h, owner as string);
  }
  const perOwner = new Map<string, number>();
  const sorted = pairs.sorted();
  for (let i = 0; i < sorted.length; i++) {
    const v = sorted[i]!;
    if (i > 0 && sorted[i - 1] === v) continue;
    const pi = Math.floor(v / HOST_BITS);
    pluginList[pi]!.hosts++;
    const owner = owners.get(v - pi * HOST_BITS);
    if (owner !== undefined) {
      const key = `${pi}\u0000${owner}`;
      perOwner.set(key, (perOwner.get(key) ?? 0) + 1);
    }
  }
  const pluginOwners = [...perOwner].map(([key, n]) => {
    const at = key.indexOf('\u0000');
    return [sourceId, pluginList[Number(key.slice(0, at))]!.id, key.slice(at + 1), n];
  });
  return new Map([
    ['sum_vuln_counts', [...counts.values()].map((c) => [...c.row, c.n])],
    ['sum_vuln_due', [...due.values()].map((d) => [...d.row, d.n])],
    ['sum_plugins', [...plugins].map(([pk, p]) => [sourceId, pk, p.name, p.rank, p.n, p.hosts, p.kev, p.epss, p.vpr, p.cvss3, ...p.decisions.columns])],
    [
      'sum_hosts',
      [...hosts].map(([id, g]) => [id, sourceId, ...g.sev, g.n, g.urgent, ...g.decisions.columns, ...(placement.get(id) ?? HOST_PLACEMENT.map(() => null))]),
    ],
    ['sum_plugin_owners', pluginOwners],
  ]);
}
