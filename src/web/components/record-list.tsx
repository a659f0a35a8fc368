// A server-side paged, sortable table of one inventory model (with a host column for per-host records),
// and the model descriptions it is driven by.
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { get, type Page, qs, type Rec } from '../api.ts';
import { Link } from '../router.tsx';
import { Alert, type Column, DataTable, Pager, useLoad } from '../ui.tsx';
import { ExportButton } from './export-button.tsx';
import { severityCountColumns, useHostCounts } from './host-counts.tsx';

export interface ModelView {
  model: string;
  title: string;
  singular: string;
  columns: Column<Rec>[];
  /** Fields the search box can search in (first = default). */
  search: { field: string; label: string }[];
  defaultSort?: string;
  /** Records hang off a host: show the host's name. */
  perHost?: boolean;
  /** Hosts: show each host's open findings per severity after the first column. */
  hostCounts?: boolean;
}

export type HostLabels = Record<string, { hostname: string | null; ipAddresses: string[] }>;

/** The host column of per-host records: name (or first address) linking to the host page. */
export function hostColumn(labels: HostLabels): Column<Rec> {
  return {
    key: 'hostId',
    label: 'Host',
    render: (r) => {
      const id = r.hostId as string | null;
      if (!id) return <span className="muted">—</span>;
      const l = labels[id];
      return <Link href={`/inventory/hosts/${id}`}>{l ? (l.hostname ?? l.ipAddresses[0] ?? 'host') : 'host…'}</Link>;
    },
  };
}

/** Looks up host names for the host ids on a page of per-host records. */
export function useHostLabels(rows: Rec[] | undefined): HostLabels {
  const ids = useMemo(() => [...new Set((rows ?? []).map((r) => r.hostId as string | null).filter((x): x is string => !!x))].sort(), [rows]);
  const labels = useLoad(
    async (s) =>
      ids.length
        ? get<{ items: { id: string; hostname: string | null; ipAddresses: string[] }[] }>(`/api/v1/hosts/labels${qs({ id: ids })}`, s)
        : { items: [] },
    ids.join(','),
  );
  return useMemo(() => Object.fromEntries((labels.data?.items ?? []).map((h) => [h.id, h])), [labels.data]);
}

export interface RecordListProps {
  view: ModelView;
  /** Filters always applied (e.g. hostId on a host page). */
  fixed?: Record<string, string>;
  /** Extra filters from the page's own controls. */
  filters?: Record<string, string | string[]>;
  sort: string | null;
  onSort: (s: string | null) => void;
  limit: number;
  onLimit: (n: number) => void;
  caption: string;
  hideHost?: boolean;
  empty?: ReactNode;
}

/** A server-side paged, sorted table of one model; cursors are kept as a stack for Previous. */
export function RecordList(props: RecordListProps) {
  const { view } = props;
  const params = { ...(props.fixed ?? {}), ...(props.filters ?? {}), sort: props.sort ?? undefined, limit: props.limit };
  const base = `/api/v1/${view.model}${qs(params)}`;
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new query starts at page 1
  useEffect(() => setCursors([null]), [base]);
  const cursor = cursors[cursors.length - 1];
  const url = cursor ? `${base}&cursor=${encodeURIComponent(cursor)}` : base;
  const page = useLoad((s) => get<Page<Rec>>(url, s), url);
  const labels = useHostLabels(view.perHost && !props.hideHost ? page.data?.items : undefined);
  const counts = useHostCounts(view.hostCounts ? page.data?.items : undefined);
  let columns = view.perHost && !props.hideHost ? [view.columns[0], hostColumn(labels), ...view.columns.slice(1)] : view.columns;
  if (view.hostCounts) columns = [columns[0], ...severityCountColumns(counts), ...columns.slice(1)];
  return (
    <div>
      {page.error && (
        <Alert tone="error" title={`Could not load the ${view.title.toLowerCase()}`}>
          {page.error}
        </Alert>
      )}
      <ExportButton model={view.model} title={view.title} filters={params} />
      <DataTable
        caption={props.caption}
        columns={columns}
        rows={page.data?.items ?? []}
        sort={props.sort}
        onSort={props.onSort}
        busy={page.loading}
        empty={page.loading ? 'Loading…' : (props.empty ?? `No ${view.title.toLowerCase()} match.`)}
      />
      <Pager
        page={cursors.length}
        count={page.data?.items.length ?? 0}
        limit={props.limit}
        onLimit={props.onLimit}
        hasPrev={cursors.length > 1}
        hasNext={!!page.data?.nextCursor}
        onPrev={() => setCursors((c) => c.slice(0, -1))}
        onNext={() => page.data?.nextCursor && setCursors((c) => [...c, page.data?.nextCursor ?? null])}
      />
    </div>
  );
}
