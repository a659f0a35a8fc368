// Small shared pieces: data loading hook, time and number formatting, status badges, alerts,
// the one table every list and grid is drawn with (sortable, with server-side cursor paging), and the severities.
import { formatBytes } from '../core/format.ts';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, type ReactNode, useCallback, useEffect } from 'react';
import { describeError, type ModelRecord, type RunStatus } from './api.ts';

// ---- loading ----

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads data through TanStack Query under `key` (a URL, or a URL with a version to load again after a
 * change): one request however many components ask for the same key at once, the cached answer shown
 * at once when a page comes back, polled every `pollMs` while mounted; the last answer wins.
 */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  key: string,
  opts: { pollMs?: number | ((data: T | undefined) => number | false) } = {},
): Loaded<T> {
  const { pollMs } = opts;
  const q = useQuery({
    queryKey: ['load', key],
    queryFn: ({ signal }) => load(signal),
    // While a new key loads the previous answer stays on screen (a list's next page, a changed filter).
    placeholderData: keepPreviousData,
    // A number polls always; a function decides from the last answer (a run polls while it runs).
    refetchInterval: typeof pollMs === 'function' ? (q) => pollMs(q.state.data) : (pollMs ?? false),
  });
  const { refetch } = q;
  const reload = useCallback(() => void refetch(), [refetch]);
  return { data: q.data ?? null, error: q.error ? describeError(q.error) : null, loading: q.isFetching, reload };
}

/**
 * After a change (a link, an approval): marks every loaded answer stale, so what is on screen loads
 * again and what a page showed before loads again when it comes back instead of its cached answer.
 */
export function useChanged(): () => Promise<void> {
  const client = useQueryClient();
  return useCallback(() => client.invalidateQueries(), [client]);
}

/** Names the browser tab `title · Tributary` whenever the title changes (null: not yet, the page has no name to give). */
export function usePageTitle(title: string | null): void {
  useEffect(() => {
    if (title !== null) document.title = `${title} · Tributary`;
  }, [title]);
}

// ---- formatting ----

const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const s = Math.round((Date.parse(iso) - now) / 1000);
  const a = Math.abs(s);
  if (a < 45) return s <= 0 ? 'just now' : 'in a moment';
  if (a < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (a < 86400) return rtf.format(Math.round(s / 3600), 'hour');
  return rtf.format(Math.round(s / 86400), 'day');
}

/** What people call a host: its host name, else its FQDN, else its first IP address, else its id. */
export function hostLabel(h: Pick<ModelRecord<'hosts'>, 'id' | 'hostname' | 'fqdn' | 'ipAddresses'>): string {
  return h.hostname ?? h.fqdn ?? h.ipAddresses?.[0] ?? h.id;
}

// The one place the UI turns a stored timestamp (ISO 8601, UTC) into words: in the browser's own time
// zone, a time always with its zone ("28 Nov 2026, 14:05 CET"), a day alone where a list is narrow
// (the full time, with its zone, in the cell's tooltip). Nothing renders an ISO string as it is stored.
const DATE_TIME = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});
const DATE_ONLY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
const TIME_OF_DAY = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short' });
/** A stored timestamp (`2026-11-28T11:37:06.123Z`, a zone offset instead of Z, or none). */
export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
/** A calendar day as stored (`2026-11-28`): a date, not a moment, so no zone moves it. */
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

const parsed = (iso: string | null | undefined): Date | null => {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
};

/** Day and time in the user's zone, the zone shown: `28 Nov 2026, 11:37 UTC`. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return parsed(iso) ? DATE_TIME.format(parsed(iso)!) : iso;
}

/** The day in the user's zone (`28 Nov 2026`); a stored day (`2026-11-28`) is that day wherever one is. */
export function dateOnly(iso: string | null | undefined): string {
  if (!iso) return '—';
  if (ISO_DAY.test(iso))
    return new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${iso}T00:00:00Z`));
  return parsed(iso) ? DATE_ONLY.format(parsed(iso)!) : iso;
}

/** An exception's expiry: the UTC day it runs through (a stored end of day), not shifted into the user's zone. */
export function expiryDay(iso: string | null | undefined): string {
  return iso ? dateOnly(iso.slice(0, 10)) : '—';
}

/** The time of day in the user's zone with seconds and the zone (`11:37:06 UTC`): a log line's. */
export function timeOfDay(iso: string | null | undefined): string {
  if (!iso) return '—';
  return parsed(iso) ? TIME_OF_DAY.format(parsed(iso)!) : iso;
}

/** A timestamp as a `<time>`: the day alone (`day`) or day and time, the full time with its zone in the tooltip. */
export function When({ iso, day, className }: { iso: string | null | undefined; day?: boolean; className?: string }) {
  if (!iso) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={dateTime(iso)} className={className}>
      {day ? dateOnly(iso) : dateTime(iso)}
    </time>
  );
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export const num = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : n.toLocaleString('en-US'));

export const bytes = formatBytes;

export function cell(v: unknown): ReactNode {
  if (v === null || v === undefined || v === '') return <span className="muted">—</span>;
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  if (Array.isArray(v)) return v.length ? v.join(', ') : <span className="muted">—</span>;
  if (typeof v === 'object') return <code className="json">{JSON.stringify(v)}</code>;
  if (typeof v === 'number') return num(v);
  // A stored timestamp is never shown as stored.
  if (typeof v === 'string' && ISO_TIMESTAMP.test(v)) return <When iso={v} />;
  return String(v);
}

// ---- badges and alerts ----

type Tone = 'ok' | 'bad' | 'warn' | 'info' | 'neutral';
const RUN_TONE: Record<RunStatus, Tone> = { running: 'info', succeeded: 'ok', failed: 'bad', partial: 'warn', interrupted: 'warn' };
const RUN_LABEL: Record<RunStatus, string> = { running: 'Running', succeeded: 'Succeeded', failed: 'Failed', partial: 'Partial', interrupted: 'Interrupted' };

export function Badge({ tone, children, title }: { tone: Tone; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

export function RunBadge({ status }: { status: RunStatus }) {
  return <Badge tone={RUN_TONE[status]}>{RUN_LABEL[status] ?? status}</Badge>;
}

const SEV_TONE: Record<string, string> = { critical: 'sev-critical', high: 'sev-high', medium: 'sev-medium', low: 'sev-low', info: 'sev-info' };
export function SeverityBadge({ severity }: { severity: unknown }) {
  const s = String(severity ?? '');
  return <span className={`sev ${SEV_TONE[s] ?? ''}`}>{s ? s[0].toUpperCase() + s.slice(1) : '—'}</span>;
}

export function Alert({ tone, title, children }: { tone: 'error' | 'success' | 'info' | 'warning'; title?: string; children?: ReactNode }) {
  return (
    <div className={`alert alert-${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {title && <strong className="alert-title">{title}</strong>}
      {children && <div>{children}</div>}
    </div>
  );
}

/** A loaded list's states: its error, a spinner while it loads, "None yet." when empty, else the list drawn by `children`. */
export function LoadedItems<T>({ loaded, children }: { loaded: Loaded<{ items: T[] }>; children: (items: T[]) => ReactNode }) {
  return (
    <>
      {loaded.error && <Alert tone="error">{loaded.error}</Alert>}
      {!loaded.data ? loaded.error ? null : <Spinner /> : loaded.data.items.length === 0 ? <p className="muted">None yet.</p> : children(loaded.data.items)}
    </>
  );
}

export function Spinner({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

export function PageHeader({ title, subtitle, actions, crumbs }: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode; crumbs?: ReactNode }) {
  return (
    <header className="page-header">
      {crumbs && (
        <nav aria-label="Breadcrumb" className="crumbs">
          {crumbs}
        </nav>
      )}
      <div className="page-header-row">
        <div>
          <h1>{title}</h1>
          {subtitle && <p className="subtitle">{subtitle}</p>}
        </div>
        {actions && <div className="actions">{actions}</div>}
      </div>
    </header>
  );
}

// ---- data table ----

/**
 * A column of a table of `T`. `render` and `cellClassName` are methods, so a column of one model's
 * records (its fields typed) also serves a list of any model's (RecordList's `Rec`): the list only ever
 * hands it that model's records.
 */
export interface Column<T> {
  key: string;
  /** The header cell's content (a node, for a header read only by screen readers). */
  label: ReactNode;
  /** Server-side sortable. */
  sortable?: boolean;
  render?(row: T): ReactNode;
  className?: string;
  /** A class for one row's cell on top of `className` (a count drawn in red when not zero). */
  cellClassName?(row: T): string | undefined;
  /** The column names its row (a `th scope="row"`), as the first column of a two-way table does. */
  rowHeader?: boolean;
}

/** A row's field by its column's key: the one untyped read of a table that draws rows of any shape. */
function fieldOf(row: unknown, key: string): unknown {
  return row !== null && typeof row === 'object' ? Reflect.get(row, key) : undefined;
}

/** A cell's content: the column's rendering, else the field's value; in a compact table clipped to one line, a plain value's full text in its tooltip. */
function cellContent<T>(c: Column<T>, r: T, compact: boolean | undefined): ReactNode {
  const raw = fieldOf(r, c.key);
  const plain = c.render ? c.render(r) : cell(raw);
  if (!compact) return plain;
  const full =
    c.render || raw === null || raw === undefined ? undefined : Array.isArray(raw) ? raw.join(', ') : typeof raw === 'object' ? undefined : String(raw);
  return (
    <div className="clip" title={full}>
      {plain}
    </div>
  );
}

/**
 * Every table of the web UI: a caption (read by screen readers, shown when `showCaption`), header cells,
 * one row per item keyed by `rowKey` (the item's `id` by default), and an empty text; sorting when `onSort`
 * is given. `wholeRow` draws one item as a single cell across the columns (a record no longer stored).
 */
export function DataTable<T>(props: {
  caption: ReactNode;
  showCaption?: boolean;
  columns: Column<T>[];
  rows: T[];
  rowKey?: (row: T, index: number) => string;
  sort?: string | null;
  onSort?: (sort: string | null) => void;
  empty?: ReactNode;
  onRowClick?: (row: T) => void;
  wholeRow?: (row: T) => ReactNode | null;
  /** A second row under an item, across the columns, for what does not fit in them (a file's rejection reasons). */
  rowDetail?: (row: T) => ReactNode | null;
  busy?: boolean;
  /**
   * One line per row (a long list to scan): each cell is clipped to its width with an ellipsis, the
   * full text of a plain value in its tooltip; what needs more room goes in `rowDetail`, on demand.
   */
  compact?: boolean;
}) {
  const { columns, rows, sort, onSort, compact } = props;
  const sortField = sort ? sort.replace(/^-/, '') : null;
  const desc = sort?.startsWith('-') ?? false;
  const keyOf = props.rowKey ?? ((r: T) => String(fieldOf(r, 'id')));
  return (
    <div className="table-wrap">
      <table aria-busy={props.busy ? 'true' : undefined} className={compact ? 'compact' : undefined}>
        <caption className={props.showCaption ? undefined : 'sr-only'}>{props.caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => {
              const active = sortField === c.key;
              const aria = active ? (desc ? 'descending' : 'ascending') : undefined;
              return (
                <th key={c.key} scope="col" aria-sort={aria} className={c.className}>
                  {c.sortable && onSort ? (
                    <button type="button" className="sort" onClick={() => onSort(active ? (desc ? null : `-${c.key}`) : c.key)}>
                      {c.label}
                      <span aria-hidden="true" className="sort-mark">
                        {active ? (desc ? '▼' : '▲') : '↕'}
                      </span>
                      <span className="sr-only">{active ? (desc ? ', sorted descending' : ', sorted ascending') : ', sort'}</span>
                    </button>
                  ) : (
                    c.label
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="empty">
                {props.empty ?? 'Nothing here yet.'}
              </td>
            </tr>
          ) : (
            rows.map((r, i) => {
              const whole = props.wholeRow?.(r);
              const detail = props.rowDetail?.(r);
              const key = keyOf(r, i);
              return (
                <Fragment key={key}>
                  <tr className={props.onRowClick ? 'clickable' : undefined} onClick={props.onRowClick ? () => props.onRowClick?.(r) : undefined}>
                    {whole !== undefined && whole !== null ? (
                      <td colSpan={columns.length} className="muted">
                        {whole}
                      </td>
                    ) : (
                      columns.map((c) => {
                        const content = cellContent(c, r, compact);
                        const className = [c.className, c.cellClassName?.(r)].filter(Boolean).join(' ') || undefined;
                        return c.rowHeader ? (
                          <th key={c.key} scope="row" className={className}>
                            {content}
                          </th>
                        ) : (
                          <td key={c.key} className={className}>
                            {content}
                          </td>
                        );
                      })
                    )}
                  </tr>
                  {detail !== undefined && detail !== null && (
                    <tr className="detail-row">
                      <td colSpan={columns.length}>{detail}</td>
                    </tr>
                  )}
                </Fragment>
              );
            })
          )}
        </tbody>
      </table>
    </div>
  );
}

export function Pager(props: {
  page: number;
  hasPrev: boolean;
  hasNext: boolean;
  onPrev: () => void;
  onNext: () => void;
  count: number;
  limit: number;
  onLimit: (n: number) => void;
  /** How many records match in all, when known ("1–50 of 12,345"). */
  total?: number | null;
}) {
  const from = (props.page - 1) * props.limit + (props.count ? 1 : 0);
  const to = (props.page - 1) * props.limit + props.count;
  const known = props.total !== undefined && props.total !== null;
  return (
    <nav className="pager" aria-label="Pagination">
      <span className="muted pager-info">
        {props.count ? `Showing ${num(from)}–${num(to)}` : 'No results'}
        {props.count && known ? ` of ${num(props.total)}` : ''}
        {props.hasNext && !known ? ' (more available)' : ''}
      </span>
      <label className="inline">
        Rows per page
        <select value={props.limit} onChange={(e) => props.onLimit(Number(e.target.value))}>
          {[25, 50, 100, 250].map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <button type="button" onClick={props.onPrev} disabled={!props.hasPrev}>
        Previous page
      </button>
      <span aria-live="polite">Page {props.page}</span>
      <button type="button" onClick={props.onNext} disabled={!props.hasNext}>
        Next page
      </button>
    </nav>
  );
}

// ---- severities ----

/** The severities, most severe first, in the order every chart and table shows them. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
