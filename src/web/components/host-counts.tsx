// Open findings per severity for the hosts on a page of the hosts list (GET /api/v1/hosts/finding-counts,
// from the summaries), as columns linking to each host's open findings of that severity.
import { useMemo } from 'react';
import { type HostFindingCounts, type Rec, call } from '../api.ts';
import { Link } from '../router.tsx';
import { type Column, num, useLoad } from '../ui.tsx';

export function useHostCounts(rows: Rec[] | undefined): Record<string, HostFindingCounts> {
  const ids = useMemo(() => (rows ?? []).map((r) => r.id).sort(), [rows]);
  const counts = useLoad(
    async (s) => (ids.length ? call('GET /api/v1/hosts/finding-counts', { query: { id: ids } }, s) : { items: [] }),
    `counts:${ids.join(',')}`,
  );
  return useMemo(() => Object.fromEntries((counts.data?.items ?? []).map((c) => [c.hostId, c])), [counts.data]);
}

const LEVELS = [
  ['critical', 'Crit.', 'Critical'],
  ['high', 'High', 'High'],
  ['medium', 'Med.', 'Medium'],
  ['low', 'Low', 'Low'],
] as const;

/** One narrow column per severity: the host's open findings of it, linking to them. */
export function severityCountColumns(counts: Record<string, HostFindingCounts>): Column<Rec>[] {
  return LEVELS.map(([sev, short, long]) => ({
    key: `open-${sev}`,
    label: short,
    className: 'num',
    render: (r: Rec) => {
      const c = counts[r.id];
      if (!c) return <span className="muted">…</span>;
      const n = c[sev];
      if (n === 0) return <span className="muted">0</span>;
      return (
        <Link
          href={`/inventory/hosts/${r.id}`}
          className={sev === 'critical' || sev === 'high' ? 'bad-text' : undefined}
          title={`${num(n)} open ${long.toLowerCase()} findings`}
        >
          {num(n)}
        </Link>
      );
    },
  }));
}
