// /_sim control API (not part of Tenable.sc): lifecycle moves between syncs (scans, patches, reopens,
// address changes), runtime faults, counters.
import type { SimContext } from './context.ts';
import { compileFilters } from './filters.ts';
import { indexOfIp } from './hosts.ts';
import type { SelectorInput } from './lifecycle.ts';

export interface ControlResult {
  status: number;
  body: unknown;
}

class BadControlInput extends Error {}

function selector(ctx: SimContext, body: Record<string, unknown>, fractionKey = 'fraction'): SelectorInput {
  const fraction = body[fractionKey];
  if (fraction !== undefined && (typeof fraction !== 'number' || fraction < 0 || fraction > 1))
    throw new BadControlInput(`${fractionKey} must be a number in [0, 1]`);
  const hosts = Array.isArray(body.hosts)
    ? body.hosts.map((ip) => {
        const index = indexOfIp(String(ip));
        if (index < 0 || index >= ctx.config.hosts) throw new BadControlInput(`unknown host ${String(ip)}`);
        return index;
      })
    : undefined;
  const pluginIds = Array.isArray(body.pluginIDs) ? body.pluginIDs.map(Number) : undefined;
  return { fraction: fraction as number | undefined, hosts, pluginIds };
}

function summary(ctx: SimContext): Record<string, unknown> {
  const all = compileFilters([], undefined, ctx.lifecycle.now(), ctx.features.epss);
  return {
    now: ctx.lifecycle.now(),
    cumulative: ctx.dataset.totalFindings(all, 'cumulative'),
    patched: ctx.dataset.totalFindings(all, 'patched'),
    ops: ctx.lifecycle.ops.map((op) => ({
      kind: op.kind,
      at: op.at,
      fraction: op.fraction,
      hosts: op.hosts?.size ?? null,
      result: op.result,
      pluginIDs: op.pluginIds ? [...op.pluginIds] : null,
    })),
  };
}

export function resetStats(ctx: SimContext): void {
  ctx.stats.total = 0;
  ctx.stats.byRoute = {};
  ctx.stats.byStatus = {};
}

export function handleControl(ctx: SimContext, method: string, path: string, body: unknown): ControlResult {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  try {
    switch (`${method} ${path}`) {
      case 'GET /_sim/stats':
        return { status: 200, body: { ...ctx.stats, faultsInjected: ctx.faults.injected } };
      case 'DELETE /_sim/stats':
      case 'POST /_sim/stats/reset':
        resetStats(ctx);
        return { status: 200, body: { ok: true } };
      case 'GET /_sim/state':
        return { status: 200, body: { ...ctx.config, ...summary(ctx) } };
      case 'POST /_sim/advance': {
        const seconds = b.seconds === undefined ? 86400 : Number(b.seconds);
        if (!Number.isFinite(seconds) || seconds < 0) throw new BadControlInput('seconds must be a non-negative number');
        ctx.lifecycle.advance(seconds, selector(ctx, b, 'rescanFraction'));
        if (typeof b.patchFraction === 'number' && b.patchFraction > 0) ctx.lifecycle.patch({ fraction: b.patchFraction });
        if (typeof b.reopenFraction === 'number' && b.reopenFraction > 0) ctx.lifecycle.reopen({ fraction: b.reopenFraction });
        // Hosts that get a new address with this scan (by their current or first address).
        if (Array.isArray(b.moveHosts) && b.moveHosts.length) ctx.lifecycle.move(selector(ctx, { hosts: b.moveHosts }));
        return { status: 200, body: summary(ctx) };
      }
      case 'POST /_sim/scan': {
        // A scan still running or importing: its findings show once its import finished (lifecycle.ts).
        const n = (k: string, dflt: number) => {
          const v = b[k] === undefined ? dflt : Number(b[k]);
          if (!Number.isFinite(v) || v < 0) throw new BadControlInput(`${k} must be a non-negative number of seconds`);
          return v;
        };
        ctx.lifecycle.lateScan(selector(ctx, b), {
          startedAgo: n('startedAgo', 3600),
          durationSeconds: n('durationSeconds', 1800),
          importSeconds: n('importSeconds', 600),
        });
        return { status: 200, body: summary(ctx) };
      }
      case 'POST /_sim/patch':
        ctx.lifecycle.patch(selector(ctx, b));
        return { status: 200, body: summary(ctx) };
      case 'POST /_sim/move':
        ctx.lifecycle.move(selector(ctx, b));
        return { status: 200, body: summary(ctx) };
      case 'POST /_sim/reopen':
        ctx.lifecycle.reopen(selector(ctx, b));
        return { status: 200, body: summary(ctx) };
      case 'GET /_sim/faults':
        return { status: 200, body: ctx.faults.current() };
      case 'POST /_sim/faults':
        if (b.clear === true) ctx.faults.clear();
        ctx.faults.update(b);
        return { status: 200, body: ctx.faults.current() };
      case 'DELETE /_sim/faults':
        ctx.faults.clear();
        return { status: 200, body: {} };
      case 'POST /_sim/reset':
        ctx.lifecycle.reset();
        ctx.faults.clear();
        resetStats(ctx);
        return { status: 200, body: summary(ctx) };
      default:
        return { status: 404, body: { error: `unknown control endpoint ${method} ${path}` } };
    }
  } catch (e) {
    if (e instanceof BadControlInput) return { status: 400, body: { error: e.message } };
    throw e;
  }
}
