// GET /rest/scanResult: the scan results behind the simulated findings, with the console's field
// selection, filters (usable/manageable, running/completed, optimizeCompletedScans) and createdTime range.
//
// The base data's findings were seen by back-to-back scans of SLOT seconds (a host's last scan falls in
// exactly one), each imported within a minute of its end, the newest just before the simulated now.
// Every scan, patch and reopen of the control API adds the scan result that saw it (lifecycle.ts); its
// findings show in /analysis only once that result's import finished, as on a console.
import { type ApiResult, fail, ok, type SimContext } from './context.ts';
import type { ScanTimes } from './lifecycle.ts';
import { REPOSITORIES } from './rows.ts';
import { ANALYST_GROUP } from './users.ts';

/** One base scan's length; base scans run back to back before the simulated now. */
export const SLOT = 2 * 3600;
/** Base scans cover this much history (the oldest host was last seen 90 days ago). */
const BASE_SLOTS = Math.ceil((100 * 86400) / SLOT);
/** The base scans end a minute before the simulated now (hosts.ts: a host's last scan is at least that old). */
const BASE_END_GAP = 60;
const DEFAULT_SPAN = 30 * 86400;

/** Fields the list may be asked for (Tenable's "Scan Result" page, plus createdTime, which clients ask for). */
const ALLOWED = new Set([
  'id',
  'name',
  'description',
  'status',
  'initiator',
  'owner',
  'ownerGroup',
  'repository',
  'scan',
  'job',
  'details',
  'importStatus',
  'importStart',
  'importFinish',
  'importDuration',
  'downloadAvailable',
  'downloadFormat',
  'dataFormat',
  'resultType',
  'resultSource',
  'running',
  'errorDetails',
  'importErrorDetails',
  'totalIPs',
  'scannedIPs',
  'startTime',
  'finishTime',
  'scanDuration',
  'completedIPs',
  'completedChecks',
  'totalChecks',
  'agentScanUUID',
  'agentScanContainerUUID',
  'timeCompareField',
  'createdTime',
  'canUse',
  'canManage',
]);
const DEFAULT_FIELDS = ['name', 'description', 'status'];
const PROGRESS_FIELDS = ['completedIPs', 'completedChecks', 'totalChecks'];

interface SimScanResult extends ScanTimes {
  id: number;
  name: string;
  hosts: number;
}

/** Base scan k (0 = the newest) of a console anchored at `anchor`. */
function baseResult(anchor: number, k: number, hosts: number): SimScanResult {
  const finishTime = anchor - BASE_END_GAP - k * SLOT;
  const startTime = finishTime - SLOT;
  return {
    id: BASE_SLOTS - k,
    name: `Rolling scan ${String.fromCharCode(65 + (k % 4))}`,
    hosts: Math.max(1, Math.round(hosts / 60)),
    createdTime: startTime - 5,
    startTime,
    finishTime,
    importStart: finishTime + 10,
    importFinish: finishTime + 55,
  };
}

/** Every scan result the console holds, newest last. */
function allResults(ctx: SimContext): SimScanResult[] {
  const out: SimScanResult[] = [];
  for (let k = BASE_SLOTS - 1; k >= 0; k--) out.push(baseResult(ctx.config.now, k, ctx.config.hosts));
  ctx.lifecycle.ops.forEach((op, i) => {
    if (!op.result) return;
    const hosts = op.hosts?.size ?? Math.max(1, Math.round(op.fraction * ctx.config.hosts));
    out.push({ id: BASE_SLOTS + i + 1, name: op.kind === 'scan' ? 'Rescan' : `Rescan (${op.kind})`, hosts, ...op.result });
  });
  return out;
}

/** The console's view of a result at `now`: where its scan and import stand. */
function wire(ctx: SimContext, r: SimScanResult, now: number, optimize: boolean): Record<string, unknown> {
  const running = now < r.finishTime;
  const importing = !running && now >= r.importStart && now < r.importFinish;
  const imported = now >= r.importFinish;
  const t = (v: number, shown: boolean) => String(shown ? v : -1);
  const mine = r.id % 2 === 0;
  const a = ctx.users.analyst;
  // Half the results are the analyst's own (usable and manageable), half a colleague's shared with the group (usable).
  const owner = mine
    ? { id: a.id, username: a.username, firstname: a.firstname, lastname: a.lastname }
    : { id: '9', username: 'scan-operator', firstname: 'Scan', lastname: 'Operator' };
  const repo = REPOSITORIES[r.id % 2]!;
  const w: Record<string, unknown> = {
    id: String(r.id),
    name: r.name,
    description: '',
    status: running ? 'Running' : 'Completed',
    initiator: owner,
    owner,
    ownerGroup: { id: ANALYST_GROUP.id, name: ANALYST_GROUP.name, description: ANALYST_GROUP.description },
    repository: { id: String(repo.id), name: repo.name, description: repo.description },
    scan: { id: String((r.id % 4) + 1), name: r.name, description: '' },
    job: { id: String(1000 + r.id) },
    details: 'Basic Network Scan',
    importStatus: running ? 'No Results' : imported ? 'Finished' : importing ? 'Importing' : 'Import Pending',
    importStart: t(r.importStart, !running && now >= r.importStart),
    importFinish: t(r.importFinish, imported),
    importDuration: imported ? String(r.importFinish - r.importStart) : '-1',
    downloadAvailable: running ? 'false' : 'true',
    downloadFormat: 'v2',
    dataFormat: 'IPv4',
    resultType: 'active',
    resultSource: 'internal',
    running: running ? 'true' : 'false',
    errorDetails: '',
    importErrorDetails: '',
    totalIPs: String(r.hosts),
    scannedIPs: String(running ? 0 : r.hosts),
    createdTime: String(r.createdTime),
    startTime: String(r.startTime),
    finishTime: t(r.finishTime, !running),
    scanDuration: String(Math.min(now, r.finishTime) - r.startTime),
    completedIPs: String(running ? 0 : r.hosts),
    completedChecks: running ? '0' : String(r.hosts * 180_000),
    totalChecks: String(r.hosts * 180_000),
    agentScanUUID: '',
    agentScanContainerUUID: '',
    timeCompareField: 'createdTime',
    canUse: 'true',
    canManage: mine ? 'true' : 'false',
  };
  if (optimize && !running) for (const f of PROGRESS_FIELDS) delete w[f];
  return w;
}

function epochParam(v: string | null, fallback: number): number | null {
  if (v === null || v.trim() === '') return fallback;
  const n = Number(v);
  return Number.isInteger(n) ? n : null;
}

/**
 * The list: `fields` (id always; name, description and status when none is asked for), `startTime` and
 * `endTime` on createdTime (default the last 30 days), `filter` of usable, manageable (default both:
 * an object with both lists; a result the user may manage is in both), running, completed and
 * optimizeCompletedScans (no progress counts for finished scans). `forbidden`: the user's role may not
 * read scan results (the simulator's stand-in for that refusal; the docs do not show its wire form).
 */
export function scanResultList(ctx: SimContext, query: URLSearchParams, forbidden: boolean): ApiResult {
  if (forbidden) return fail(403, 143, 'Permission denied: this role cannot view Scan Results.');
  const now = ctx.lifecycle.now();
  const asked = (query.get('fields') ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  for (const f of asked) {
    if (f === 'progress') return fail(403, 146, "Invalid field 'progress': it is only available on a single Scan Result (/scanResult/{id}).");
    if (!ALLOWED.has(f)) return fail(403, 146, `Invalid field '${f}'.`);
  }
  const fields = ['id', ...(asked.length ? asked : DEFAULT_FIELDS)];
  const filters = new Set(
    (query.get('filter') ?? '')
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean),
  );
  const from = epochParam(query.get('startTime'), now - DEFAULT_SPAN);
  const to = epochParam(query.get('endTime'), now);
  if (from === null || to === null) return fail(403, 146, 'Invalid startTime or endTime: an epoch time in seconds is expected.');
  const onlyRunning = filters.has('running') && !filters.has('completed');
  const onlyCompleted = filters.has('completed') && !filters.has('running');
  const optimize = filters.has('optimizeCompletedScans') || query.get('optimizeCompletedScans') === 'true';
  const usable: Record<string, unknown>[] = [];
  const manageable: Record<string, unknown>[] = [];
  for (const r of allResults(ctx)) {
    // A result is created when its scan is launched: one launched after now does not exist yet.
    if (r.createdTime < from || r.createdTime > to || r.createdTime > now) continue;
    const running = now < r.finishTime;
    if ((onlyRunning && !running) || (onlyCompleted && running)) continue;
    const w = wire(ctx, r, now, optimize);
    const row: Record<string, unknown> = {};
    for (const f of fields) if (f in w) row[f] = w[f];
    usable.push(row);
    if (w.canManage === 'true') manageable.push(row);
  }
  const both = !filters.has('usable') && !filters.has('manageable');
  const response: Record<string, unknown> = {};
  if (both || filters.has('usable')) response.usable = usable;
  if (both || filters.has('manageable')) response.manageable = manageable;
  return ok(response);
}
