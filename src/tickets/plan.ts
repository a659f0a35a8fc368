// Planning remediation tickets (issue 32 §2/§3), vendor-neutral and pure: which open findings are
// ticketed, how they group (per fix and owner group, per fix, per asset), each group's key and marker,
// and what the next run would do to the service desk: create, note what was added and fixed, resolve
// when every finding is fixed, close (a `resolve` with reason `moved` or `excepted`) when every finding
// left without being fixed for another group's request or an approved exception, flag a request a
// person closed while its findings are open.
// A group's key names the asset identity (the correlated asset, else the scanner's host record, which
// follows the machine across IP changes), never an address.
import { createHash } from 'node:crypto';
import { SEVERITY_ORDER, type Severity } from '../core/models.ts';
import type { RemediationTicketsConfig, TicketDraft } from '../core/tickets.ts';

/** A finding as planning reads it. */
export interface TicketFinding {
  id: string;
  sourceId: string;
  hostId: string;
  pluginId: string;
  pluginName: string | null;
  /**
   * The fix that closes it (issue 31 §2, the top-remediations report's key: a plugin's solution normalised,
   * successive upgrades of one product one fix); unknown (no plugin record): the plugin is its own fix.
   */
  fix?: string | null;
  /** That fix as shown (the solution). */
  fixText?: string | null;
  severity: Severity;
  knownExploited: boolean;
  /** The SSVC decision (act, attend, track-star, track), where computed. */
  decision?: string | null;
  /** A group count standing for its findings (selected in SQL already: its decision is not read). */
  groupOnly?: boolean;
  status: 'open' | 'reopened' | 'fixed';
  removed: boolean;
  assetId: string | null;
  department: string | null;
  owner: string | null;
  site: string | null;
  /** An approved risk exception covers it: out of every group (neither ticketed nor fixed). */
  excepted?: boolean;
  /** The approved exception that covers it (read for the findings a known request lists). */
  exception?: { id: string; reason: string } | null;
  solution: string | null;
  cves: string[];
  dueAt: string | null;
  /** The host's name or address, for the request's text only. */
  hostLabel: string | null;
}

/** What the store keeps of a group's request (store/tickets). */
export interface KnownTicket {
  key: string;
  marker: string;
  requestId: string | null;
  state: 'intent' | 'open' | 'resolved' | 'closed-upstream';
  findingIds: string[];
  /** The request is closed in the service desk, as its last sync read it (a person closed it). */
  closedRemotely?: boolean;
  /** Open without findings since an earlier version emptied it (it did not close such requests): closed now. */
  emptiedEarlier?: boolean;
}

/**
 * `create` a request; `note` what was added and fixed (or, on a request a person closed while its
 * findings are open, say so once); `resolve` it when every finding is fixed (reason `fixed`), or close it
 * when every finding left it unfixed for another group's request or an approved exception (reason
 * `moved` or `excepted`: noted with where they went, set to `movedStatus`); `reopen` a request we
 * resolved when a finding comes back (or open a new one when it is closed for good and the settings say `new`).
 */
export type TicketActionKind = 'create' | 'note' | 'resolve' | 'reopen';

export interface TicketAction {
  kind: TicketActionKind;
  key: string;
  marker: string;
  requestId: string | null;
  title: string;
  /** The group's open findings now. */
  findingIds: string[];
  added: string[];
  /** Findings of the request that are fixed now (or gone from the store). */
  fixed: string[];
  /** Findings of the request still open but no longer ticketed here (out of the selection, moved or excepted). */
  left: string[];
  /**
   * Of a `resolve`: why (every finding fixed; or all gone unfixed, some to other groups' requests; or all
   * excepted; or `emptied`: left without findings by an earlier version, which did not close such requests).
   */
  reason?: 'fixed' | 'moved' | 'excepted' | 'emptied';
  /** Of a close: the groups its findings moved to (their requests are named when applied). */
  movedTo?: { key: string; findingIds: string[] }[];
  /** Of a close: the approved exceptions that took its findings out. */
  exceptions?: { id: string; reason: string; findingIds: string[] }[];
  severity: Severity;
  /** A create past the per-run cap: planned, not written this run. */
  deferred: boolean;
  /** An intent stored by an earlier run without its request id: the service desk is searched first. */
  recover: boolean;
  draft: TicketDraft | null;
}

export interface TicketPlan {
  grouping: RemediationTicketsConfig['grouping'];
  findings: number;
  groups: number;
  actions: TicketAction[];
  counts: Record<TicketActionKind, number> & { deferred: number };
}

/** Whether the settings ticket this finding. */
export function selected(s: RemediationTicketsConfig, f: TicketFinding): boolean {
  if (f.removed || f.status === 'fixed' || f.excepted) return false;
  if (s.decisions) {
    // Selection by SSVC decision (`ticketDecisions`): severity and known-exploited aside.
    if (!f.groupOnly && !(s.decisions as readonly string[]).includes(f.decision ?? '')) return false;
  } else {
    const bySeverity = SEVERITY_ORDER.indexOf(f.severity) >= SEVERITY_ORDER.indexOf(s.minSeverity);
    if (!bySeverity && !(s.knownExploited && f.knownExploited)) return false;
  }
  if (s.departments.length && !s.departments.some((d) => d.toLowerCase() === (f.department ?? '').toLowerCase())) return false;
  if (s.sites.length && !s.sites.some((d) => d.toLowerCase() === (f.site ?? '').toLowerCase())) return false;
  return true;
}

/** The machine a finding is on: its correlated asset, else its host record (never an IP address). */
export const assetIdentity = (f: TicketFinding): string => (f.assetId ? `asset:${f.assetId}` : `host:${f.hostId}`);

/** The owner group: the department from the CMDB, else the owner, else none. */
export const ownerGroup = (f: TicketFinding): string => f.department ?? f.owner ?? '';

/** A finding's fix in a key: the fix's key where its plugin record gives one, else the plugin. */
const fixOfFinding = (f: TicketFinding): string => f.fix ?? f.pluginId;

/**
 * What a group's subject names: the host (per asset); the check's name when the group has one plugin;
 * the fix (the newest upgrade's text) when it merges several.
 */
function fixLabel(s: RemediationTicketsConfig, fs: TicketFinding[]): string {
  const first = fs[0]!;
  if (s.grouping === 'asset') return first.hostLabel ?? first.hostId;
  const plugins = new Set(fs.map((f) => f.pluginId));
  const texts = plugins.size < 2 ? [] : [...new Set(fs.map((f) => f.fixText).filter((t): t is string => !!t && !t.startsWith('(no solution given)')))];
  if (texts.length) return texts.sort((a, b) => b.localeCompare(a, undefined, { numeric: true }))[0]!.replace(/\.$/, '');
  return first.pluginName ?? `plugin ${first.pluginId}`;
}

export function groupKey(grouping: RemediationTicketsConfig['grouping'], f: TicketFinding): string {
  switch (grouping) {
    case 'fix':
      return `fix=${fixOfFinding(f)}`;
    case 'asset':
      return `on=${assetIdentity(f)}`;
    default:
      return `fix=${fixOfFinding(f)};owner=${ownerGroup(f).toLowerCase()}`;
  }
}

/** The marker a request carries in its subject: short, stable, unique per ticketing source and key. */
export function markerOf(ticketSourceId: string, key: string): string {
  return `TRB-${createHash('sha256').update(`${ticketSourceId}\n${key}`).digest('hex').slice(0, 12)}`;
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
const maxSeverity = (fs: TicketFinding[]): Severity =>
  fs.reduce<Severity>((m, f) => (SEVERITY_ORDER.indexOf(f.severity) > SEVERITY_ORDER.indexOf(m) ? f.severity : m), 'info');

/** Subject of a group from the template, with its marker kept whole within the service desk's 250 characters. */
export function subjectOf(s: RemediationTicketsConfig, fs: TicketFinding[], marker: string): string {
  const first = fs[0]!;
  const hosts = new Set(fs.map(assetIdentity)).size;
  const fix = fixLabel(s, fs);
  const owner = ownerGroup(first) || 'no owner';
  const text = s.template.subject
    .replaceAll('{fix}', fix)
    .replaceAll('{owner}', owner)
    .replaceAll('{hosts}', String(hosts))
    .replaceAll('{findings}', String(fs.length))
    .replaceAll('{severity}', maxSeverity(fs))
    .replace(/[\r\n]+/g, ' ');
  const tail = ` [${marker}]`;
  return `${text.slice(0, 250 - tail.length)}${tail}`;
}

function describe(fs: TicketFinding[], marker: string): string {
  const hostCount = new Set(fs.map(assetIdentity)).size;
  // Named where their details were read (the first findings of a large group).
  const hosts = [...new Set(fs.filter((f) => f.hostLabel).map((f) => f.hostLabel!))].sort();
  const cves = [...new Set(fs.flatMap((f) => f.cves))].sort();
  const solutions = [...new Set(fs.map((f) => f.solution).filter((x): x is string => !!x))];
  const due = fs
    .map((f) => f.dueAt)
    .filter((d): d is string => !!d)
    .sort()[0];
  return [
    `<div>${fs.length} open finding(s) on ${hostCount} host(s).</div>`,
    hosts.length ? `<div><b>Hosts:</b> ${hosts.slice(0, 200).map(esc).join(', ')}${hostCount > hosts.length || hosts.length > 200 ? ', …' : ''}</div>` : '',
    cves.length ? `<div><b>CVEs:</b> ${cves.slice(0, 100).map(esc).join(', ')}${cves.length > 100 ? ', …' : ''}</div>` : '',
    solutions.length ? `<div><b>Solution:</b> ${solutions.slice(0, 3).map(esc).join('<br>')}</div>` : '',
    due ? `<div><b>SLA due:</b> ${esc(due.slice(0, 10))}</div>` : '',
    `<div>Kept by Tributary (${marker}): noted as findings change, resolved when the scanner confirms every fix.</div>`,
  ].join('');
}

export function draftOf(s: RemediationTicketsConfig, fs: TicketFinding[], marker: string): TicketDraft {
  const sev = maxSeverity(fs);
  const dept = fs[0]!.department;
  const due = fs
    .map((f) => f.dueAt)
    .filter((d): d is string => !!d)
    .sort()[0];
  return {
    marker,
    subject: subjectOf(s, fs, marker),
    description: describe(fs, marker),
    priority: s.template.priority[sev] ?? null,
    group: dept ? (s.template.groups[dept] ?? null) : null,
    category: s.template.category ?? null,
    assetIds: [],
    dueAt: due ?? null,
    severity: sev,
  };
}

/**
 * The plan: `findings` are the ticketing candidates and every finding a known request lists (to tell
 * fixed from merely no longer selected); `known` the stored rows. Creates are ordered by severity (then
 * size) and past `maxCreatesPerRun` deferred.
 */
export function planTickets(s: RemediationTicketsConfig, ticketSourceId: string, findings: TicketFinding[], known: KnownTicket[]): TicketPlan {
  const byKey = new Map<string, TicketFinding[]>();
  const byId = new Map(findings.map((f) => [f.id, f]));
  let count = 0;
  for (const f of findings) {
    if (!selected(s, f)) continue;
    count++;
    const k = groupKey(s.grouping, f);
    const list = byKey.get(k);
    if (list) list.push(f);
    else byKey.set(k, [f]);
  }
  const knownByKey = new Map(known.map((k) => [k.key, k]));
  const actions: TicketAction[] = [];
  const base = (key: string, marker: string, fs: TicketFinding[]) => ({
    key,
    marker,
    title: fs.length ? subjectOf(s, fs, marker) : '',
    findingIds: fs.map((f) => f.id).sort(),
    severity: fs.length ? maxSeverity(fs) : ('info' as Severity),
  });
  for (const [key, fs] of byKey) {
    const k = knownByKey.get(key);
    const marker = k?.marker ?? markerOf(ticketSourceId, key);
    const b = base(key, marker, fs);
    if (!k || k.state === 'intent') {
      actions.push({
        ...b,
        kind: 'create',
        requestId: null,
        added: b.findingIds,
        fixed: [],
        left: [],
        deferred: false,
        recover: k?.state === 'intent',
        draft: draftOf(s, fs, marker),
      });
      continue;
    }
    // A request a person closed while its findings were open was noted once: it is left alone, never reopened.
    if (k.state === 'closed-upstream') continue;
    const had = new Set(k.findingIds);
    const now = new Set(b.findingIds);
    const added = b.findingIds.filter((id) => !had.has(id));
    const gone = k.findingIds.filter((id) => !now.has(id));
    // An open request a person closed (as the last sync read it) is noted, and flagged, even without a change.
    if (!added.length && !gone.length && !(k.state === 'open' && k.closedRemotely)) continue;
    const fixed = gone.filter((id) => isFixed(byId.get(id)));
    const left = gone.filter((id) => !isFixed(byId.get(id)));
    // Findings back on a request we resolved: it is reopened (its text is ready for a new one, see `reopen`).
    if (k.state === 'resolved') {
      actions.push({ ...b, kind: 'reopen', requestId: k.requestId, added, fixed, left, deferred: false, recover: false, draft: draftOf(s, fs, marker) });
      continue;
    }
    actions.push({ ...b, kind: 'note', requestId: k.requestId, added, fixed, left, deferred: false, recover: false, draft: null });
  }
  for (const k of known) {
    if (byKey.has(k.key) || k.state !== 'open') continue;
    if (k.findingIds.length === 0) {
      // Emptied by an earlier version (it noted the findings that left and kept the request open; where
      // they went was not kept): nothing is left to do here, so it is closed as a moved request is.
      // A request emptied now because its findings left the selection stays open (noted).
      if (k.emptiedEarlier && !k.closedRemotely)
        actions.push({
          key: k.key,
          marker: k.marker,
          title: '',
          findingIds: [],
          severity: 'info',
          kind: 'resolve',
          requestId: k.requestId,
          added: [],
          fixed: [],
          left: [],
          reason: 'emptied',
          movedTo: [],
          exceptions: [],
          deferred: false,
          recover: false,
          draft: null,
        });
      continue;
    }
    const fixed = k.findingIds.filter((id) => isFixed(byId.get(id)));
    const left = k.findingIds.filter((id) => !isFixed(byId.get(id)));
    // Where the unfixed ones went: another group (its owner, department or the grouping changed), an exception.
    const movedTo = new Map<string, string[]>();
    const exceptions = new Map<string, { id: string; reason: string; findingIds: string[] }>();
    let elsewhere = 0;
    for (const id of left) {
      const f = byId.get(id)!;
      if (selected(s, f) && byKey.has(groupKey(s.grouping, f))) {
        const to = groupKey(s.grouping, f);
        movedTo.set(to, [...(movedTo.get(to) ?? []), id]);
      } else if (f.excepted) {
        const x = f.exception ?? { id: '?', reason: 'approved risk exception' };
        const e = exceptions.get(x.id) ?? { ...x, findingIds: [] };
        e.findingIds.push(id);
        exceptions.set(x.id, e);
      } else elsewhere++;
    }
    // Resolved when every finding is fixed; closed when the rest all went to other requests or exceptions;
    // findings merely no longer ticketed (out of the selection) leave it open, noted.
    const reason = left.length === 0 ? 'fixed' : elsewhere ? undefined : movedTo.size ? 'moved' : 'excepted';
    actions.push({
      key: k.key,
      marker: k.marker,
      title: '',
      findingIds: [],
      severity: 'info',
      kind: reason ? 'resolve' : 'note',
      requestId: k.requestId,
      added: [],
      fixed,
      left,
      ...(reason ? { reason } : {}),
      ...(reason && reason !== 'fixed'
        ? {
            movedTo: [...movedTo].map(([key, findingIds]) => ({ key, findingIds })).sort((x, y) => x.key.localeCompare(y.key)),
            exceptions: [...exceptions.values()].sort((x, y) => x.id.localeCompare(y.id)),
          }
        : {}),
      deferred: false,
      recover: false,
      draft: null,
    });
  }
  // Creates: most severe and largest first; recovered intents first of all (they may exist already).
  const creates = actions
    .filter((a) => a.kind === 'create')
    .sort(
      (x, y) =>
        Number(y.recover) - Number(x.recover) ||
        SEVERITY_ORDER.indexOf(y.severity) - SEVERITY_ORDER.indexOf(x.severity) ||
        y.findingIds.length - x.findingIds.length ||
        x.key.localeCompare(y.key),
    );
  let budget = s.maxCreatesPerRun;
  for (const a of creates) {
    // A recovered intent may find its request by the marker: it counts against the cap only if created.
    if (budget > 0 || a.recover) {
      if (!a.recover) budget--;
    } else a.deferred = true;
  }
  // A close waits while a request its findings moved to is not created this run (past the cap): they
  // would be ticketed nowhere in between. The next run plans it again.
  const waiting = new Set(creates.filter((a) => a.deferred).map((a) => a.key));
  if (waiting.size) {
    const held = (a: TicketAction) => a.movedTo?.some((m) => waiting.has(m.key)) ?? false;
    for (let i = actions.length - 1; i >= 0; i--) if (held(actions[i]!)) actions.splice(i, 1);
  }
  const rank: Record<TicketActionKind, number> = { create: 0, reopen: 1, note: 2, resolve: 3 };
  actions.sort((x, y) => rank[x.kind] - rank[y.kind] || (x.kind === 'create' ? creates.indexOf(x) - creates.indexOf(y) : x.key.localeCompare(y.key)));
  const counts = { create: 0, note: 0, resolve: 0, reopen: 0, deferred: 0 };
  for (const a of actions) {
    if (a.deferred) counts.deferred++;
    else counts[a.kind]++;
  }
  return { grouping: s.grouping, findings: count, groups: byKey.size, actions, counts };
}

/** Fixed: the scanner says so (the patched set), or the finding is gone from the store. */
const isFixed = (f: TicketFinding | undefined): boolean => !f || f.status === 'fixed' || f.removed;
