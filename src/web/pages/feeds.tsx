// Offline feeds (Settings > Feeds): the CISA KEV catalog and FIRST EPSS scores imported, with version,
// date, records and staleness, and an import form for one file (the same as `tributary feeds import` and
// POST /api/v1/feeds); "Replace a newer feed" is `--replace` (?replace=true), for undoing a wrong import.
import { counted } from '../../core/format.ts';
import { useState } from 'react';
import { describeError, type FeedImport, importFeed, call } from '../api.ts';
import { Alert, Badge, bytes, dateOnly, dateTime, num, PageHeader, Spinner, useLoad, usePageTitle, DataTable } from '../ui.tsx';

export function FeedsPage() {
  usePageTitle('Feeds');
  const [version, setVersion] = useState(0);
  const feeds = useLoad((s) => call('GET /api/v1/feeds', {}, s), `/api/v1/feeds:${version}`);
  const [file, setFile] = useState<File | null>(null);
  const [replace, setReplace] = useState(false);
  const [result, setResult] = useState<FeedImport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!file) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      setResult(await importFeed(file, replace));
      setVersion((v) => v + 1);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div>
      <PageHeader
        crumbs={<span>Settings</span>}
        title="Feeds"
        subtitle="The CISA Known Exploited Vulnerabilities catalog and FIRST EPSS scores every source's findings are read against. They change only here, with `tributary feeds import` or POST /api/v1/feeds; never from a source's bucket."
      />
      <section aria-labelledby="feed-import" className="card">
        <h2 id="feed-import">Import a feed file</h2>
        <form className="inline-form" onSubmit={submit}>
          <label className="inline" htmlFor="feed-file">
            Feed file
          </label>
          <input id="feed-file" type="file" accept=".json,.csv,.gz" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
          <label className="checkbox-inline">
            <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} /> Replace a newer feed
          </label>
          <button type="submit" className="primary" disabled={busy || !file}>
            {busy ? 'Importing…' : 'Import'}
          </button>
        </form>
        <p className="help">
          known_exploited_vulnerabilities.json or epss_scores-YYYY-MM-DD.csv.gz, recognised by content. A file older than the current feed is refused unless
          "Replace a newer feed" is ticked; one dated more than a day ahead is always refused.
        </p>
        {error && <Alert tone="error">{error}</Alert>}
        {result && (
          <div aria-live="polite">
            <Alert tone="success" title="Feed imported">
              {result.imported.map((i) => (
                <div key={i.kind}>
                  {i.status === 'imported' ? 'Imported' : 'Already imported, nothing changed:'} {i.name} {i.version} of {dateOnly(i.released.slice(0, 10))} (
                  {num(i.records)} records)
                </div>
              ))}
              <div className="help">{num(result.findingsUpdated)} findings updated.</div>
            </Alert>
          </div>
        )}
      </section>
      <section aria-labelledby="feed-list" className="card">
        <h2 id="feed-list">Current feeds</h2>
        {feeds.error && <Alert tone="error">{feeds.error}</Alert>}
        {!feeds.data ? (
          feeds.error ? null : (
            <Spinner />
          )
        ) : feeds.data.items.length === 0 ? (
          <p className="muted">No feeds imported yet.</p>
        ) : (
          <DataTable
            caption="Current feeds"
            rows={feeds.data.items}
            rowKey={(f) => f.kind}
            columns={[
              { key: 'feed', label: 'Feed', render: (f) => f.name },
              { key: 'version', label: 'Version', render: (f) => f.version },
              { key: 'dated', label: 'Dated', render: (f) => dateOnly(f.released.slice(0, 10)) },
              { key: 'records', label: 'Records', render: (f) => num(f.records) },
              { key: 'size', label: 'Size', render: (f) => bytes(f.size) },
              { key: 'imported', label: 'Imported', render: (f) => dateTime(f.importedAt) },
              {
                key: 'age',
                label: 'Age',
                render: (f) => (f.stale ? <Badge tone="warn">stale: {counted(f.ageDays, 'day')}</Badge> : counted(f.ageDays, 'day')),
              },
            ]}
          />
        )}
      </section>
    </div>
  );
}
