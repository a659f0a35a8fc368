// The matching ladder between a scanner host and CMDB records: serial / BIOS UUID → MAC → FQDN → host
// name → IP, the first rule that leaves exactly one candidate wins. A single-valued identifier that
// disagrees (serial, BIOS UUID, FQDN, host name) vetoes every weaker rule and the rules of its own rank;
// differing MAC or IP sets are no contradiction. Ambiguity is reported with its candidates, never
// guessed; a manual link beats every rule and an unlink forbids the pair. Pure: the store feeds it.
import { fqdnsAgree, type Identifiers, namesAgree } from './normalize.ts';

export type MatchRule = 'manual' | 'serial' | 'bios-uuid' | 'mac' | 'fqdn' | 'hostname' | 'ip';
export type IdentKind = 'serial' | 'biosUuid' | 'mac' | 'fqdn' | 'hostname' | 'ip';

interface Step {
  rule: Exclude<MatchRule, 'manual'>;
  kind: IdentKind;
  rank: number;
  /** Single-valued identifiers veto and make a tie ambiguous; MAC and IP sets only suggest. */
  single: boolean;
}

export const LADDER: Step[] = [
  { rule: 'serial', kind: 'serial', rank: 0, single: true },
  { rule: 'bios-uuid', kind: 'biosUuid', rank: 0, single: true },
  { rule: 'mac', kind: 'mac', rank: 1, single: false },
  { rule: 'fqdn', kind: 'fqdn', rank: 2, single: true },
  { rule: 'hostname', kind: 'hostname', rank: 3, single: true },
  { rule: 'ip', kind: 'ip', rank: 4, single: false },
];

export const IDENT_KINDS: IdentKind[] = ['serial', 'biosUuid', 'mac', 'fqdn', 'hostname', 'ip'];

/** Rank of the weakest of several rules (manual counts as the strongest). */
export function ruleRank(rule: MatchRule): number {
  return rule === 'manual' ? -1 : LADDER.find((s) => s.rule === rule)!.rank + (rule === 'bios-uuid' ? 0.5 : 0);
}

export interface Conflict {
  kind: IdentKind;
  host: string[];
  cmdb: string[];
}

/** Single-valued identifiers both sides have and that cannot be the same machine's. */
export function conflicts(h: Identifiers, c: Identifiers): Conflict[] {
  const out: Conflict[] = [];
  const check = (kind: IdentKind, agree: (a: string, b: string) => boolean) => {
    const a = h[kind];
    const b = c[kind];
    if (a.length && b.length && !a.some((x) => b.some((y) => agree(x, y)))) out.push({ kind, host: a, cmdb: b });
  };
  check('serial', (a, b) => a === b);
  check('biosUuid', (a, b) => a === b);
  check('fqdn', fqdnsAgree);
  check('hostname', namesAgree);
  return out;
}

const rankOfKind = (k: IdentKind) => LADDER.find((s) => s.kind === k)!.rank;

/** The conflict that vetoes a match by `step`, if any: one of a stronger or equal rank, on another identifier. */
export function vetoOf(step: Step, h: Identifiers, c: Identifiers): Conflict | null {
  for (const x of conflicts(h, c)) if (x.kind !== step.kind && rankOfKind(x.kind) <= step.rank) return x;
  return null;
}

/** A host holding an address, with its partition. */
export type HostEntry = { id: string; scope: string | null };

export interface MatchContext {
  /** CMDB records holding a value of a kind (ids). */
  cmdbWith(kind: IdentKind, value: string): string[];
  cmdb(id: string): Identifiers | undefined;
  /** Other hosts holding an IP, with their partition. */
  hostsWithIp(ip: string): HostEntry[];
  /** Hosts linked to a CMDB record by a rule other than IP (a DHCP-reused address must not join them). */
  claimedBy(cmdbId: string): string[];
  /** Manual overrides of this host: CMDB records it is linked to / forbidden from. */
  linked(hostId: string): string[];
  unlinked(hostId: string): Set<string>;
}

export interface Vetoed {
  cmdbAssetId: string;
  rule: MatchRule;
  /** The values of the rule's identifier the host and the record share (what the veto blocked). */
  shared: string[];
  conflict: Conflict;
}

export type HostMatch =
  | { kind: 'linked'; rule: MatchRule; cmdbAssetIds: string[]; details: Record<string, unknown> }
  | { kind: 'ambiguous'; rule: MatchRule; value: string[]; candidates: string[]; details: Record<string, unknown> }
  | { kind: 'none'; details: Record<string, unknown> };

/** Matches one host. `phase` 1 runs every rule but IP; phase 2 only IP (after phase 1 claimed its records). */
export function matchHost(h: Identifiers, ctx: MatchContext, phase: 1 | 2 | 'all' = 'all'): HostMatch {
  const manual = ctx.linked(h.id);
  if (manual.length > 0) return { kind: 'linked', rule: 'manual', cmdbAssetIds: [...manual].sort(), details: { rule: 'manual' } };
  const forbidden = ctx.unlinked(h.id);
  const vetoed: Vetoed[] = [];
  let pending: { rule: MatchRule; value: string[]; candidates: string[] } | null = null;
  for (const step of LADDER) {
    if (phase === 1 && step.rule === 'ip') break;
    if (phase === 2 && step.rule !== 'ip') continue;
    const values = h[step.kind];
    if (values.length === 0) continue;
    const found = new Map<string, string[]>();
    for (const v of values) {
      for (const id of ctx.cmdbWith(step.kind, v)) {
        if (forbidden.has(id)) continue;
        const hit = found.get(id);
        if (hit) hit.push(v);
        else found.set(id, [v]);
      }
    }
    const candidates: string[] = [];
    for (const id of found.keys()) {
      const c = ctx.cmdb(id);
      if (!c) continue;
      const veto = vetoOf(step, h, c);
      if (veto) vetoed.push({ cmdbAssetId: id, rule: step.rule, shared: found.get(id)!, conflict: veto });
      else candidates.push(id);
    }
    candidates.sort();
    if (step.rule === 'ip' && candidates.length > 0) {
      const ip = ipStep(h, candidates, found, ctx);
      if (ip.kind !== 'none') return { ...ip, details: { ...ip.details, ...(vetoed.length ? { vetoed } : {}) } };
      continue;
    }
    if (candidates.length === 1) {
      const id = candidates[0]!;
      return {
        kind: 'linked',
        rule: step.rule,
        cmdbAssetIds: [id],
        details: {
          rule: step.rule,
          matched: { [step.kind]: found.get(id) },
          ...(vetoed.length ? { vetoed } : {}),
          ...(pending ? { passedOver: pending } : {}),
        },
      };
    }
    if (candidates.length > 1) {
      const value = [...new Set(candidates.flatMap((id) => found.get(id)!))];
      if (step.single)
        return {
          kind: 'ambiguous',
          rule: step.rule,
          value,
          candidates,
          details: { rule: step.rule, ambiguous: { [step.kind]: value }, candidates, ...(vetoed.length ? { vetoed } : {}) },
        };
      // A MAC several records share (a dock, a VPN adapter) is no evidence; weaker rules may still decide.
      pending ??= { rule: step.rule, value, candidates };
    }
  }
  if (pending && phase !== 1)
    return {
      kind: 'ambiguous',
      ...pending,
      details: { rule: pending.rule, ambiguous: { [pending.rule]: pending.value }, candidates: pending.candidates, ...(vetoed.length ? { vetoed } : {}) },
    };
  if (pending && phase === 1) return { kind: 'none', details: { pending, ...(vetoed.length ? { vetoed } : {}) } };
  return { kind: 'none', details: vetoed.length ? { vetoed } : {} };
}

/**
 * IP: only within one partition (a CMDB site named like the host's repository narrows the candidates),
 * only when exactly one CMDB record and exactly one host hold the address, and never onto a record
 * another host holds by a stronger rule (DHCP hands the address to another machine).
 */
function ipStep(h: Identifiers, all: string[], found: Map<string, string[]>, ctx: MatchContext): HostMatch {
  // A record whose site is another repository that also holds the address belongs to that partition.
  let candidates = all.filter((id) => {
    const scope = ctx.cmdb(id)?.scope ?? null;
    return scope === null || scope === h.scope || !found.get(id)!.some((ip) => ctx.hostsWithIp(ip).some((o) => o.scope === scope));
  });
  const sameScope = h.scope === null ? [] : candidates.filter((id) => ctx.cmdb(id)?.scope === h.scope);
  if (sameScope.length > 0) candidates = sameScope;
  const claimed = candidates.filter((id) => ctx.claimedBy(id).some((other) => other !== h.id));
  candidates = candidates.filter((id) => !claimed.includes(id));
  const claimedNote = claimed.length ? { claimedByOtherHosts: claimed } : {};
  if (candidates.length > 1) {
    const value = [...new Set(candidates.flatMap((id) => found.get(id)!))];
    return { kind: 'ambiguous', rule: 'ip', value, candidates, details: { rule: 'ip', ambiguous: { ip: value }, candidates, ...claimedNote } };
  }
  if (candidates.length === 0) return { kind: 'none', details: claimedNote };
  const id = candidates[0]!;
  const c = ctx.cmdb(id)!;
  const ips = found.get(id)!;
  const sharing = new Set<string>();
  for (const ip of ips) {
    for (const o of ctx.hostsWithIp(ip)) {
      if (o.id === h.id) continue;
      // Hosts of another repository count unless the CMDB record's site names this host's repository.
      if (c.scope !== null && c.scope === h.scope && o.scope !== h.scope) continue;
      sharing.add(o.id);
    }
  }
  if (sharing.size > 0) {
    return {
      kind: 'ambiguous',
      rule: 'ip',
      value: ips,
      candidates: [id],
      details: { rule: 'ip', ambiguous: { ip: ips }, candidates: [id], otherHosts: [...sharing].sort(), ...claimedNote },
    };
  }
  return {
    kind: 'linked',
    rule: 'ip',
    cmdbAssetIds: [id],
    details: { rule: 'ip', matched: { ip: ips }, scope: c.scope === h.scope && h.scope !== null ? h.scope : null, ...claimedNote },
  };
}

/** Hosts by IP address, for a MatchContext's hostsWithIp (most addresses have one host: kept without a list). */
export class HostsByIp {
  readonly #byIp = new Map<string, HostEntry | HostEntry[]>();

  add(h: Pick<Identifiers, 'id' | 'ip' | 'scope'>): void {
    if (h.ip.length === 0) return;
    const entry = { id: h.id, scope: h.scope };
    for (const ip of h.ip) {
      const had = this.#byIp.get(ip);
      if (had === undefined) this.#byIp.set(ip, entry);
      else if (Array.isArray(had)) had.push(entry);
      else this.#byIp.set(ip, [had, entry]);
    }
  }

  get(ip: string): HostEntry[] {
    const v = this.#byIp.get(ip);
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  }
}

/** An in-memory MatchContext over whole record sets (the full pass, and tests). */
export class MemoryContext implements MatchContext {
  readonly #cmdb = new Map<string, Identifiers>();
  /** Per identifier kind: value → the id holding it, or the ids when several do (most values have one). */
  readonly #index = new Map<IdentKind, Map<string, string | string[]>>(IDENT_KINDS.map((k) => [k, new Map()]));
  readonly #hostIps = new HostsByIp();
  readonly #claims = new Map<string, string[]>();
  readonly #links = new Map<string, string[]>();
  readonly #unlinks = new Map<string, Set<string>>();

  constructor(cmdb: Iterable<Identifiers>, hosts: Iterable<Identifiers>, overrides: { hostId: string; cmdbAssetId: string; action: 'link' | 'unlink' }[] = []) {
    for (const c of cmdb) {
      this.#cmdb.set(c.id, c);
      for (const kind of IDENT_KINDS) {
        const m = this.#index.get(kind)!;
        for (const v of c[kind]) {
          const had = m.get(v);
          if (had === undefined) m.set(v, c.id);
          else if (typeof had === 'string') m.set(v, [had, c.id]);
          else had.push(c.id);
        }
      }
    }
    for (const h of hosts) this.addHost(h);
    for (const o of overrides) {
      if (o.action === 'link') push(this.#links, o.hostId, o.cmdbAssetId);
      else {
        let s = this.#unlinks.get(o.hostId);
        if (!s) {
          s = new Set();
          this.#unlinks.set(o.hostId, s);
        }
        s.add(o.cmdbAssetId);
      }
    }
  }

  /** Makes a host's addresses known to hostsWithIp (hosts may come in pages; phase 2 needs them all). */
  addHost(h: Pick<Identifiers, 'id' | 'ip' | 'scope'>): void {
    this.#hostIps.add(h);
  }

  cmdbWith(kind: IdentKind, value: string): string[] {
    const v = this.#index.get(kind)!.get(value);
    return v === undefined ? [] : typeof v === 'string' ? [v] : v;
  }
  cmdb(id: string): Identifiers | undefined {
    return this.#cmdb.get(id);
  }
  hostsWithIp(ip: string): HostEntry[] {
    return this.#hostIps.get(ip);
  }
  claimedBy(cmdbId: string): string[] {
    return this.#claims.get(cmdbId) ?? [];
  }
  claim(cmdbId: string, hostId: string): void {
    push(this.#claims, cmdbId, hostId);
  }
  linked(hostId: string): string[] {
    return (this.#links.get(hostId) ?? []).filter((id) => this.#cmdb.has(id));
  }
  unlinked(hostId: string): Set<string> {
    return this.#unlinks.get(hostId) ?? EMPTY;
  }
}

const EMPTY = new Set<string>();

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const a = m.get(k);
  if (a) a.push(v);
  else m.set(k, [v]);
}

/** Phase 1 of matchAll for one host: every rule but IP; a link claims its records. */
export function matchFirst(h: Identifiers, ctx: MatchContext & { claim(cmdbId: string, hostId: string): void }): HostMatch {
  const m = matchHost(h, ctx, 1);
  if (m.kind === 'linked') for (const id of m.cmdbAssetIds) ctx.claim(id, h.id);
  return m;
}

/** Phase 2 of matchAll for a host phase 1 left unmatched (`first`), once every host went through phase 1: IP, else what phase 1 left pending. */
export function matchSecond(h: Identifiers, first: HostMatch, ctx: MatchContext): HostMatch {
  if (first.kind !== 'none') return first;
  const m = matchHost(h, ctx, 2);
  if (m.kind !== 'none') return m;
  if (first.details.pending) {
    const p = first.details.pending as { rule: MatchRule; value: string[]; candidates: string[] };
    return { kind: 'ambiguous', ...p, details: { rule: p.rule, ambiguous: { [p.rule]: p.value }, candidates: p.candidates } };
  }
  if (Object.keys(m.details).length || Object.keys(first.details).length) return { kind: 'none', details: { ...first.details, ...m.details } };
  return first;
}

/** Matches hosts in two phases (every rule but IP for all, then IP), claiming records as it goes. */
export function matchAll(hosts: Identifiers[], ctx: MatchContext & { claim(cmdbId: string, hostId: string): void }): Map<string, HostMatch> {
  const out = new Map<string, HostMatch>();
  for (const h of hosts) out.set(h.id, matchFirst(h, ctx));
  for (const h of hosts) out.set(h.id, matchSecond(h, out.get(h.id)!, ctx));
  return out;
}
