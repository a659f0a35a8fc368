// Inventory: one searchable, sortable, server-side paginated table per model, with the filters that
// matter per model (vulnerabilities: severity, known exploited, status, CVE, source). The state lives
// in the URL so a filtered view can be bookmarked and shared.
import { type FormEvent, useEffect, useState } from 'react';
import { type SourceView, call } from '../api.ts';
import { ComplianceSummary } from '../components/compliance-summary.tsx';
import { AssetFilters, SelectFilter, VulnFilters } from '../components/inventory-filters.tsx';
import { RecordList } from '../components/record-list.tsx';
import { SavedViews } from '../components/saved-views.tsx';
import { navigate, setQuery, useLocation } from '../router.tsx';
import { PageHeader, useLoad, usePageTitle } from '../ui.tsx';
import { MODEL_VIEWS } from './model-views.tsx';

export { ComplianceSummary } from '../components/compliance-summary.tsx';
export { type HostLabels, hostColumn, type ModelView, RecordList, type RecordListProps, useHostLabels } from '../components/record-list.tsx';
export { MODEL_VIEWS, VULN_COLUMNS } from './model-views.tsx';

export function InventoryPage({ model }: { model: string }) {
  const view = MODEL_VIEWS.find((v) => v.model === model) ?? MODEL_VIEWS[0];
  const { query } = useLocation();
  usePageTitle(`${view.title} · Inventory`);
  const sources = useLoad((s) => call('GET /api/v1/sources', {}, s), 'sources');
  const connectors = useLoad((s) => call('GET /api/v1/connectors', {}, s), 'connectors');
  // The Source filter offers the sources whose connector writes this model (all, where one does not say).
  const writes = (s: SourceView) => {
    const models = connectors.data?.items.find((c) => c.type === s.type)?.models;
    return !models || models.includes(view.model);
  };
  const sourceOptions = (sources.data?.items ?? []).filter(writes);
  // Correlated assets belong to no one source.
  const bySource = view.model !== 'assets';

  const q = query.get('q') ?? '';
  const searchIn = query.get('in') ?? view.search[0].field;
  const sort = query.has('sort') ? query.get('sort') || null : (view.defaultSort ?? null);
  const limit = Number(query.get('limit') ?? 50) || 50;
  const src = query.get('source') ?? '';
  const showRemoved = query.get('removed') === 'all';
  const [draft, setDraft] = useState(q);
  useEffect(() => setDraft(q), [q]);

  const filters: Record<string, string | string[]> = {};
  const where: string[] = [];
  if (q) where.push(`${searchIn}~${q}`);
  if (src) filters.source = src;
  // The API lists live records by default (findings open or reopened, nothing removed); `all` widens it.
  if (showRemoved) filters.all = 'true';
  if (view.model === 'vulnerabilities') {
    for (const k of ['severity', 'status', 'knownExploited', 'overdue', 'excepted', 'decision'] as const) {
      const v = query.get(k);
      // `>=attend`: Attend or Act, compared in the decisions' order by the API.
      if (v && k === 'decision' && v.startsWith('>=')) {
        where.push(`decision${v}`);
        continue;
      }
      // `>=high`: a floor, compared in severity order by the API.
      if (v && k === 'severity' && v.startsWith('>=')) where.push(`severity${v}`);
      // Open or reopened: every finding not fixed.
      else if (v && k === 'status' && v === 'open,reopened') where.push('status!=fixed');
      else if (v) filters[k] = v;
    }
    const cve = query.get('cve');
    if (cve) filters.cves = cve.trim().toUpperCase();
  }
  if (view.model === 'compliance') {
    const r = query.get('result');
    if (r) filters.result = r;
  }
  if (view.model === 'assets') {
    const rule = query.get('matchRule');
    if (rule) filters.matchRule = rule;
    for (const k of ['owner', 'department'] as const) {
      const v = query.get(k)?.trim();
      if (v) where.push(`${k}~${v}`);
    }
  }
  if (view.model === 'tickets') {
    const st = query.get('status');
    if (st) filters.status = st;
  }
  if (where.length) filters.where = where;

  const search = (e: FormEvent) => {
    e.preventDefault();
    setQuery({ q: draft.trim() || null });
  };

  return (
    <div className="list-page">
      <PageHeader crumbs={<span>Inventory</span>} title={view.title} />
      <form className="filters" onSubmit={search} aria-label={`Search and filter ${view.title.toLowerCase()}`}>
        <div className="field inline-field">
          <label htmlFor="search-q">Search</label>
          <input
            id="search-q"
            type="search"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder={`${view.search.find((s) => s.field === searchIn)?.label ?? ''} contains…`}
          />
        </div>
        {view.search.length > 1 && (
          <div className="field inline-field">
            <label htmlFor="search-in">Search in</label>
            <select id="search-in" value={searchIn} onChange={(e) => setQuery({ in: e.target.value })}>
              {view.search.map((s) => (
                <option key={s.field} value={s.field}>
                  {s.label}
                </option>
              ))}
            </select>
          </div>
        )}
        <button type="submit">Search</button>
        {view.model === 'vulnerabilities' && <VulnFilters query={query} />}
        {view.model === 'assets' && <AssetFilters query={query} />}
        {view.model === 'compliance' && (
          <SelectFilter
            id="f-result"
            label="Result"
            value={query.get('result') ?? ''}
            options={['passed', 'failed', 'warning', 'error']}
            onChange={(v) => setQuery({ result: v })}
          />
        )}
        {bySource && (
          <div className="field inline-field">
            <label htmlFor="f-source">Source</label>
            <select id="f-source" value={src} onChange={(e) => setQuery({ source: e.target.value || null })}>
              <option value="">All sources</option>
              {sourceOptions.map((s) => (
                <option key={s.name} value={s.name}>
                  {s.name}
                </option>
              ))}
            </select>
          </div>
        )}
        <label className="checkbox-inline">
          <input type="checkbox" checked={showRemoved} onChange={(e) => setQuery({ removed: e.target.checked ? 'all' : null })} />{' '}
          {view.model === 'vulnerabilities' ? 'Include fixed' : 'Include removed'}
        </label>
        {(q ||
          src ||
          showRemoved ||
          ['severity', 'status', 'knownExploited', 'overdue', 'excepted', 'decision', 'cve', 'result', 'matchRule', 'owner', 'department'].some((k) =>
            query.get(k),
          )) && (
          <button type="button" className="link" onClick={() => navigate(`/inventory/${view.model}`, { replace: true })}>
            Clear filters
          </button>
        )}
      </form>
      {view.model === 'compliance' && <ComplianceSummary source={src} />}
      <RecordList
        pageParam="page"
        view={view}
        filters={filters}
        sort={sort}
        onSort={(s) => setQuery({ sort: s ?? '' })}
        limit={limit}
        onLimit={(n) => setQuery({ limit: String(n) })}
        caption={`${view.title}, sorted by ${sort ?? 'id'}`}
        toolbar={<SavedViews />}
      />
    </div>
  );
}
