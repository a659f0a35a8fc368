// Correlated assets from links: hosts and CMDB records joined by their links form one machine each
// (union-find), described by its CMDB record first and its scanner hosts second. Pure.
import { hash } from 'node:crypto';
import { type HostMatch, type MatchRule, ruleRank } from './engine.ts';
import { cmdbIdentifiers, hostIdentifiers, type Identifiers } from './normalize.ts';

export type Rec = Record<string, unknown> & { id: string };

/** One link as stored: a host, its CMDB record ('' when ambiguous), the rule and why. */
export interface StoredLink {
  hostId: string;
  cmdbAssetId: string;
  rule: MatchRule | 'ambiguous' | 'none';
  details: Record<string, unknown>;
}

/** Who made a manual link and when (null `by`: made before that was recorded). */
export type ManualNote = { by: string | null; at: string };

/**
 * Links a host's match result stands for (an ambiguous or unmatched host with details keeps one row to
 * explain itself). A manual link carries who made it and when, from `manual`.
 */
export function linksOf(hostId: string, m: HostMatch, manual?: (hostId: string, cmdbAssetId: string) => ManualNote | undefined): StoredLink[] {
  if (m.kind === 'linked' && m.rule === 'manual')
    return m.cmdbAssetIds.map((cmdbAssetId) => {
      const note = manual?.(hostId, cmdbAssetId);
      return { hostId, cmdbAssetId, rule: 'manual', details: { rule: 'manual', ...(note ? { by: note.by, at: note.at } : {}) } };
    });
  if (m.kind === 'linked') return m.cmdbAssetIds.map((cmdbAssetId) => ({ hostId, cmdbAssetId, rule: m.rule, details: m.details }));
  if (m.kind === 'ambiguous') return [{ hostId, cmdbAssetId: '', rule: 'ambiguous', details: { ...m.details, rule: m.rule, candidates: m.candidates } }];
  return Object.keys(m.details).length ? [{ hostId, cmdbAssetId: '', rule: 'none', details: m.details }] : [];
}

/** An asset's id: stable while its anchor (first CMDB record, else first host) stays. */
export function assetIdOf(anchor: string): string {
  return hash('sha256', `asset\u0000${anchor}`, 'hex').slice(0, 32);
}

/** Groups hosts and CMDB records into machines: each component of the link graph is one asset. */
export function components(hostIds: Iterable<string>, cmdbIds: Iterable<string>, links: StoredLink[]): { hostIds: string[]; cmdbIds: string[] }[] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    let y = x;
    while (y !== r) {
      const next = parent.get(y)!;
      parent.set(y, r);
      y = next;
    }
    return r;
  };
  for (const h of hostIds) parent.set(`h${h}`, `h${h}`);
  for (const c of cmdbIds) parent.set(`c${c}`, `c${c}`);
  for (const l of links) {
    if (!l.cmdbAssetId) continue;
    const a = `h${l.hostId}`;
    const b = `c${l.cmdbAssetId}`;
    if (!parent.has(a) || !parent.has(b)) continue;
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  }
  const groups = new Map<string, { hostIds: string[]; cmdbIds: string[] }>();
  for (const k of parent.keys()) {
    const r = find(k);
    let g = groups.get(r);
    if (!g) {
      g = { hostIds: [], cmdbIds: [] };
      groups.set(r, g);
    }
    if (k[0] === 'h') g.hostIds.push(k.slice(1));
    else g.cmdbIds.push(k.slice(1));
  }
  return [...groups.values()].map((g) => ({ hostIds: g.hostIds.sort(), cmdbIds: g.cmdbIds.sort() }));
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const first = <T>(values: (T | null | undefined)[]): T | null => values.find((v) => v !== null && v !== undefined) ?? null;

export interface OwnerInfo {
  owner: string | null;
  department: string | null;
  site: string | null;
}

/** Who answers for a machine: the CMDB record's owner (else its assigned user), department (else the owner's user record's), site. */
export function ownerOf(cmdb: Rec | undefined, users: (name: string) => Rec | undefined): OwnerInfo {
  if (!cmdb) return { owner: null, department: null, site: null };
  const owner = str(cmdb.owner) ?? str(cmdb.assignedUser);
  const user = owner ? users(owner) : undefined;
  return { owner, department: str(cmdb.department) ?? str(user?.department), site: str(cmdb.site) };
}

export interface AssetRow extends OwnerInfo {
  id: string;
  firstSeen: string | null;
  lastSeen: string | null;
  name: string | null;
  hostIds: string[];
  cmdbAssetIds: string[];
  serialNumber: string | null;
  biosUuid: string | null;
  macAddresses: string[];
  ipAddresses: string[];
  fqdn: string | null;
  hostnames: string[];
  matchRule: MatchRule | 'none';
  matchDetails: Record<string, unknown>;
  lastScanned: string | null;
  openFindings: Record<string, number>;
}

/** One asset from its members, their links and the open findings of its hosts (counts by severity). */
export function buildAsset(
  hosts: Rec[],
  cmdb: Rec[],
  links: StoredLink[],
  users: (name: string) => Rec | undefined,
  findings: (hostId: string) => Record<string, number> | undefined,
  /** Identifiers already normalised for matching (else computed here). */
  identifiers?: (id: string) => Identifiers | undefined,
): AssetRow {
  const idents = [...cmdb.map((c) => identifiers?.(c.id) ?? cmdbIdentifiers(c)), ...hosts.map((h) => identifiers?.(h.id) ?? hostIdentifiers(h))];
  const anchor = cmdb[0]?.id ?? hosts[0]!.id;
  const members = [...cmdb, ...hosts];
  const uniq = (xs: (string | null)[]) => [...new Set(xs.filter((x): x is string => x !== null))].sort();
  const real = links.filter((l) => l.cmdbAssetId !== '');
  const explained = links.filter((l) => l.cmdbAssetId === '');
  let rule: MatchRule | 'none' = 'none';
  for (const l of real) if (rule === 'none' || ruleRank(l.rule as MatchRule) > ruleRank(rule)) rule = l.rule as MatchRule;
  if (real.some((l) => l.rule === 'manual')) rule = 'manual';
  const openFindings: Record<string, number> = {};
  for (const h of hosts) for (const [sev, n] of Object.entries(findings(h.id) ?? {})) openFindings[sev] = (openFindings[sev] ?? 0) + n;
  const times = (k: string) =>
    members
      .map((m) => str(m[k]))
      .filter((x): x is string => x !== null)
      .sort();
  const scanned = hosts
    .map((h) => str(h.scannerLastSeen) ?? str(h.lastSeen))
    .filter((x): x is string => x !== null)
    .sort();
  return {
    id: assetIdOf(anchor),
    firstSeen: times('firstSeen')[0] ?? null,
    lastSeen: times('lastSeen').at(-1) ?? null,
    name: first([
      str(cmdb[0]?.name),
      ...hosts.map((h) => str(h.hostname) ?? str(h.fqdn) ?? str(h.netbiosName)),
      ...idents.slice(cmdb.length).map((x) => x.fqdn[0] ?? x.hostname[0] ?? x.ip[0] ?? null),
    ]),
    hostIds: hosts.map((h) => h.id),
    cmdbAssetIds: cmdb.map((c) => c.id),
    serialNumber: first([...members.map((m) => str(m.serialNumber)), ...idents.map((x) => x.serial[0] ?? null)]),
    biosUuid: first([...members.map((m) => str(m.biosUuid)), ...idents.map((x) => x.biosUuid[0] ?? null)]),
    macAddresses: uniq(idents.flatMap((x) => x.mac)),
    ipAddresses: uniq(idents.flatMap((x) => x.ip)),
    fqdn: first([...idents.slice(cmdb.length), ...idents.slice(0, cmdb.length)].map((x) => x.fqdn[0] ?? null)),
    hostnames: uniq(idents.flatMap((x) => x.hostname)),
    ...ownerOf(cmdb[0], users),
    matchRule: rule,
    matchDetails: {
      links: real.map((l) => ({ hostId: l.hostId, cmdbAssetId: l.cmdbAssetId, ...l.details, rule: l.rule })),
      ...(explained.length ? { unmatched: explained.map((l) => ({ hostId: l.hostId, ...l.details, status: l.rule })) } : {}),
    },
    lastScanned: scanned.at(-1) ?? null,
    openFindings,
  };
}
