// A server-side paged, sortable table of one inventory model (with a host column for per-host records),
// and the model descriptions it is driven by.
import { type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { call, type HostLabel, type ModelName, type ModelRecord, qs, type Rec, routeUrl } from '../api.ts';
import { Link, setQuery, useLocation } from '../router.tsx';
import { Alert, type Column, DataTable, num, Pager, useLoad } from '../ui.tsx';
import { ExportButton } from './export-button.tsx';
import { severityCountColumns, useHostCounts } from './host-counts.tsx';

/** How the UI lists the records of model `M`: its columns typed by the model's records. */
export interface ModelView<M extends ModelName = ModelName> {
  model: M;
  title: string;
  singular: string;
  columns: Column<ModelRecord<M>>[];
  /** Fields the search box can search in (first = default). */
  search: { field: string; label: string }[];
  defaultSort?: string;
  /** Records hang off a host: show the host's name. */
  perHost?: boolean;
  /** Hosts: show each host's open findings per severity after the first column. */
  hostCounts?: boolean;
  /** What does not fit a row's one line, shown under it on demand (a finding's synopsis, solution and proof); null: nothing more. */
  detail?(row: ModelRecord<M>): ReactNode | null;
  /** A short name of the row for the details toggle's label ("Show details of …"). */
  rowName?(row: ModelRecord<M>): string;
}

/** A list of any model's records: its columns take any record (a model's columns do, Column's methods taking a record of that model). */
export type AnyModelView = Omit<ModelView, 'model' | 'columns' | 'detail' | 'rowName'> & {
  model: ModelName;
  columns: Column<Rec>[];
  detail?(row: Rec): ReactNode | null;
  rowName?(row: Rec): string;
};

/** A model's view, its columns typed by the model's records, for the lists of any model. */
export const modelView = (view: { [M in ModelName]: ModelView<M> }[ModelName]): AnyModelView => view;

/** Host labels by host id. */
export type HostLabels = Record<string, HostLabel>;

/** The host column of per-host records: name (or first address) linking to the host page. */
export function hostColumn(labels: HostLabels): Column<Rec> {
  return {
    key: 'hostId',
    label: 'Host',
    render: (r) => {
      const id = r.hostId;
      if (typeof id !== 'string' || !id) return <span className="muted">—</span>;
      const l = labels[id];
      return <Link href={`/inventory/hosts/${id}`}>{l ? (l.hostname ?? l.ipAddresses[0] ?? 'host') : 'host…'}</Link>;
    },
  };
}

/** Looks up host names for the host ids on a page of per-host records. */
export function useHostLabels(rows: Rec[] | undefined): HostLabels {
  const ids = useMemo(() => [...new Set((rows ?? []).map((r) => r.hostId).filter((x): x is string => typeof x === 'string' && x !== ''))].sort(), [rows]);
  const labels = useLoad(
    async (s) => (ids.length ? call('GET /api/v1/hosts/labels', { query: { id: ids } }, s) : { items: [] }),
    `host-labels:${ids.join(',')}`,
  );
  return useMemo(() => Object.fromEntries((labels.data?.items ?? []).map((h) => [h.id, h])), [labels.data]);
}

export interface RecordListProps {
  view: AnyModelView;
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
  /** Keep the page number in this URL query parameter (reload and back keep it); else in memory. */
  pageParam?: string;
  /** More controls beside the total and the export (saved views). */
  toolbar?: ReactNode;
}

/**
 * A server-side paged, sorted table of one model, with the total the filters match. A page is fetched
 * by the cursor the previous page gave when known (fast), else by its offset (a reloaded or shared URL).
 */
export function RecordList(props: RecordListProps) {
  const { view, pageParam } = props;
  const { query } = useLocation();
  const filterParams = { ...(props.fixed ?? {}), ...(props.filters ?? {}) };
  const params = { ...filterParams, sort: props.sort ?? undefined, limit: props.limit };
  const base = `/api/v1/${view.model}${qs(params)}`;
  const [localPage, setLocalPage] = useState(1);
  const asked = pageParam ? Math.max(1, Math.floor(Number(query.get(pageParam))) || 1) : localPage;
  const previousBase = useRef(base);
  // Filters or order just changed: page 1 (the URL follows in the effect below).
  const pageNo = previousBase.current !== base ? 1 : asked;
  const setPage = (n: number) => (pageParam ? setQuery({ [pageParam]: n > 1 ? String(n) : null }) : setLocalPage(n));
  // Cursors of the pages reached from page 1 under this query (page number → cursor).
  const cursors = useRef<{ base: string; byPage: Map<number, string> }>({ base, byPage: new Map() });
  if (cursors.current.base !== base) cursors.current = { base, byPage: new Map() };
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new query starts at page 1 (not on first render: a reloaded URL keeps its page)
  useEffect(() => {
    if (previousBase.current !== base) {
      previousBase.current = base;
      setPage(1);
    }
  }, [base]);
  const cursor = pageNo > 1 ? cursors.current.byPage.get(pageNo) : undefined;
  const paging = pageNo === 1 ? {} : cursor ? { cursor } : { offset: (pageNo - 1) * props.limit };
  const pageInput = { params: { model: view.model }, query: { ...params, ...paging } };
  const url = routeUrl('GET /api/v1/:model', pageInput);
  const loaded = useLoad(async (s) => ({ url, page: await call('GET /api/v1/:model', pageInput, s) }), url);
  const page = { ...loaded, data: loaded.data?.page ?? null };
  if (loaded.data?.url === url && loaded.data.page.nextCursor) cursors.current.byPage.set(pageNo + 1, loaded.data.page.nextCursor);
  const countInput = { params: { model: view.model }, query: filterParams };
  const countUrl = routeUrl('GET /api/v1/:model/count', countInput);
  const total = useLoad((s) => call('GET /api/v1/:model/count', countInput, s), countUrl);
  const labels = useHostLabels(view.perHost && !props.hideHost ? page.data?.items : undefined);
  const counts = useHostCounts(view.hostCounts ? page.data?.items : undefined);
  let columns = view.perHost && !props.hideHost ? [view.columns[0], hostColumn(labels), ...view.columns.slice(1)] : view.columns;
  if (view.hostCounts) columns = [columns[0], ...severityCountColumns(counts), ...columns.slice(1)];
  // Rows opened to show their details (by id); a new page or filter closes them.
  const [open, setOpen] = useState<Set<string>>(new Set());
  // biome-ignore lint/correctness/useExhaustiveDependencies: the URL of the page shown is what closes them
  useEffect(() => setOpen(new Set()), [url]);
  const detail = view.detail;
  if (detail) {
    const toggle: Column<Rec> = {
      key: '_detail',
      label: <span className="sr-only">Details</span>,
      className: 'toggle',
      render: (r) => {
        if (detail(r) === null) return null;
        const isOpen = open.has(r.id);
        const name = view.rowName?.(r) ?? r.id;
        return (
          <button
            type="button"
            className="expand"
            aria-expanded={isOpen}
            aria-label={`${isOpen ? 'Hide' : 'Show'} details of ${name}`}
            title={isOpen ? 'Hide details' : 'Show details'}
            onClick={() =>
              setOpen((o) => {
                const n = new Set(o);
                if (n.has(r.id)) n.delete(r.id);
                else n.add(r.id);
                return n;
              })
            }
          >
            {isOpen ? '▾' : '▸'}
          </button>
        );
      },
    };
    columns = [toggle, ...columns];
  }
  const totalCount = total.data?.count;
  return (
    <div>
      {page.error && (
        <Alert tone="error" title={`Could not load the ${view.title.toLowerCase()}`}>
          {page.error}
        </Alert>
      )}
      <div className="list-toolbar">
        <p className="list-total" aria-live="polite">
          {totalCount === undefined ? (
            <span className="muted">Counting…</span>
          ) : (
            <>
              <strong data-testid="list-total">{num(totalCount)}</strong> {totalCount === 1 ? view.singular : view.title.toLowerCase()}
            </>
          )}
        </p>
        {props.toolbar}
        <ExportButton model={view.model} title={view.title} filters={params} />
      </div>
      <DataTable
        compact
        rowDetail={detail ? (r) => (open.has(r.id) ? detail(r) : null) : undefined}
        caption={props.caption}
        columns={columns}
        rows={page.data?.items ?? []}
        sort={props.sort}
        onSort={props.onSort}
        busy={page.loading}
        empty={page.loading ? 'Loading…' : (props.empty ?? `No ${view.title.toLowerCase()} match.`)}
      />
      <Pager
        page={pageNo}
        count={page.data?.items.length ?? 0}
        total={total.data?.count ?? null}
        limit={props.limit}
        onLimit={props.onLimit}
        hasPrev={pageNo > 1}
        hasNext={!!page.data?.nextCursor}
        onPrev={() => setPage(pageNo - 1)}
        onNext={() => page.data?.nextCursor && setPage(pageNo + 1)}
      />
    </div>
  );
}
