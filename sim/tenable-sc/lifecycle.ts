// Finding lifecycle between syncs, kept as a short list of operations instead of per-finding state:
// a finding's status is replayed from its base state through the ops, each op selecting findings by
// a deterministic hash, so patching 10 % of a million findings costs one list entry.
import { mix, toUnit } from './hash.ts';
import { FLAG_PATCHABLE, FLAG_RESURFACED, type HostSkeleton } from './hosts.ts';
import { PLUGINS } from './catalog.ts';
import type { MitigatedLastSeen } from './options.ts';

export interface LifecycleOp {
  kind: 'scan' | 'patch' | 'reopen' | 'move';
  /** When the scan saw the hosts: the lastSeen (or mitigation time) it gives their findings. */
  at: number;
  /** The scan result behind the op (scan-results.ts): its findings show only once its import finished. */
  result: ScanTimes | null;
  salt: number;
  fraction: number;
  hosts: Set<number> | null;
  pluginIds: Set<number> | null;
}

/** A scan result's times (epoch seconds, the console's clock). */
export interface ScanTimes {
  createdTime: number;
  startTime: number;
  finishTime: number;
  importStart: number;
  importFinish: number;
}

/** A scan whose hosts are seen `startedAgo` seconds ago and whose import may still be under way. */
export interface LateScanInput {
  startedAgo: number;
  durationSeconds: number;
  importSeconds: number;
}

/**
 * The scan result of a control-API scan, patch or reopen: it ran during the hour before `at`, saw its
 * hosts at its end, and its import is done when the clock stands at `at` (the control API moves the
 * clock in jumps; /_sim/scan makes scans whose import ends later).
 */
export function scanEndingAt(at: number): ScanTimes {
  return { createdTime: at - 3605, startTime: at - 3600, finishTime: at, importStart: at, importFinish: at };
}

export interface SelectorInput {
  fraction?: number;
  hosts?: number[];
  pluginIds?: number[];
}

export class Lifecycle {
  readonly ops: LifecycleOp[] = [];
  private readonly anchor: number;
  private advancedSeconds = 0;
  /** Bumped on every change so cached counts can tell they are stale. */
  version = 0;

  // Scratch output of evaluate(); avoids allocating an object per finding in counting loops.
  open = false;
  lastSeen = 0;
  resurfaced = false;
  /** When a finding that is not open was found fixed (0 when open). */
  mitigatedAt = 0;

  private readonly mitigatedLastSeen: MitigatedLastSeen;

  constructor(anchor: number, mitigatedLastSeen: MitigatedLastSeen = 'fixed-scan') {
    this.anchor = anchor;
    this.mitigatedLastSeen = mitigatedLastSeen;
  }

  now(): number {
    return this.anchor + this.advancedSeconds;
  }

  /** Moves the clock and records a scan that refreshes lastSeen of open findings on the selected hosts. */
  advance(seconds: number, rescan: SelectorInput): void {
    this.advancedSeconds += Math.max(0, Math.floor(seconds));
    this.push('scan', rescan, 1);
  }

  /**
   * A scan that started `startedAgo` seconds before now and saw its hosts halfway through; its import
   * finishes `importSeconds` after it ends, maybe after now: until then its findings keep their old state.
   */
  lateScan(selector: SelectorInput, t: LateScanInput): void {
    const start = this.now() - Math.floor(t.startedAgo);
    const finish = start + Math.floor(t.durationSeconds);
    const importStart = finish + 60;
    const result = { createdTime: start - 5, startTime: start, finishTime: finish, importStart, importFinish: importStart + Math.floor(t.importSeconds) };
    this.push('scan', selector, 1, { at: start + Math.floor(t.durationSeconds / 2), result });
  }

  patch(selector: SelectorInput): void {
    this.push('patch', selector, 0.1);
  }

  reopen(selector: SelectorInput): void {
    this.push('reopen', selector, 0.5);
  }

  /** The selected hosts get a new address from now on (DHCP, a move): findings seen after it carry it. */
  move(selector: SelectorInput): void {
    this.push('move', selector, 0.01);
    // Not a scan: no scan result (the next scan's findings carry the new address).
    this.ops[this.ops.length - 1]!.result = null;
  }

  /**
   * The address of host `sk` at time `at` (default now) when moves changed it, else null (its own): the
   * n-th move gives 10.(150+n).x.y, x.y its index's (a machine keeps one identity, its address changes).
   */
  movedAddress(sk: HostSkeleton, at = Number.POSITIVE_INFINITY): string | null {
    let n = 0;
    for (const op of this.ops) if (op.kind === 'move' && op.at <= at && this.hostSelected(op, sk)) n++;
    return n ? `10.${150 + n}.${(sk.index >>> 8) & 255}.${sk.index & 255}` : null;
  }

  reset(): void {
    this.ops.length = 0;
    this.advancedSeconds = 0;
    this.version++;
  }

  private push(kind: LifecycleOp['kind'], s: SelectorInput, defaultFraction: number, scan?: { at: number; result: ScanTimes }): void {
    const targeted = (s.hosts?.length ?? 0) > 0 || (s.pluginIds?.length ?? 0) > 0;
    const fraction = s.fraction ?? (targeted ? 1 : defaultFraction);
    const at = scan?.at ?? this.now();
    this.ops.push({
      kind,
      at,
      // A rescan of no host is no scan: it leaves no scan result.
      result: scan?.result ?? (fraction > 0 ? scanEndingAt(at) : null),
      salt: 7919 * (this.ops.length + 1),
      fraction,
      hosts: s.hosts?.length ? new Set(s.hosts) : null,
      pluginIds: s.pluginIds?.length ? new Set(s.pluginIds) : null,
    });
    this.version++;
  }

  private hostSelected(op: LifecycleOp, sk: HostSkeleton): boolean {
    if (op.hosts && !op.hosts.has(sk.index)) return false;
    return op.fraction >= 1 || toUnit(mix(sk.seedHash, op.salt)) < op.fraction;
  }

  private findingSelected(op: LifecycleOp, sk: HostSkeleton, slot: number): boolean {
    if ((sk.flags[slot] & FLAG_PATCHABLE) === 0) return false;
    if (op.hosts && !op.hosts.has(sk.index)) return false;
    if (op.pluginIds && !op.pluginIds.has(PLUGINS[sk.plugin[slot]].id)) return false;
    return op.fraction >= 1 || toUnit(mix(mix(sk.seedHash, op.salt), slot)) < op.fraction;
  }

  /** Replays the ops for one finding; results land in open / lastSeen / resurfaced. */
  evaluate(sk: HostSkeleton, slot: number): void {
    let open = slot < sk.openSlots;
    let lastSeen = sk.lastSeen[slot];
    let resurfaced = (sk.flags[slot] & FLAG_RESURFACED) !== 0;
    // A finding mitigated in the base data was found fixed at its lastSeen.
    let mitigatedAt = open ? 0 : lastSeen;
    const now = this.now();
    for (const op of this.ops) {
      if (op.result && op.result.importFinish > now) continue;
      if (op.kind === 'scan') {
        if (open && this.hostSelected(op, sk)) lastSeen = op.at;
      } else if (op.kind === 'move') {
        // An address change alone changes no finding.
      } else if (op.kind === 'patch') {
        // A mitigated finding's lastSeen becomes the time the scan found it fixed, or (option) stays
        // its last vulnerable sighting.
        if (open && this.findingSelected(op, sk, slot)) {
          open = false;
          mitigatedAt = op.at;
          if (this.mitigatedLastSeen === 'fixed-scan') lastSeen = op.at;
        }
      } else if (!open && this.findingSelected(op, sk, slot)) {
        open = true;
        lastSeen = op.at;
        resurfaced = true;
        mitigatedAt = 0;
      }
    }
    this.open = open;
    this.lastSeen = lastSeen;
    this.resurfaced = resurfaced;
    this.mitigatedAt = mitigatedAt;
  }

  /** Last time any scan covered the host. */
  hostLastSeen(sk: HostSkeleton): number {
    let last = sk.lastScan;
    const now = this.now();
    for (const op of this.ops) if (op.kind === 'scan' && !(op.result && op.result.importFinish > now) && this.hostSelected(op, sk)) last = op.at;
    return last;
  }
}
