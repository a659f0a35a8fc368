// Saved views of a list: a menu of the user's named views of this list (each a link to the list with its
// filters and sort, so it can be shared as a URL too), saving the current filters and sort under a name,
// and deleting one. Stored per user by the server (GET/POST/DELETE /api/v1/views).
import { type FormEvent, useState } from 'react';
import { call, describeError } from '../api.ts';
import { Link, useLocation } from '../router.tsx';
import { useLoad } from '../ui.tsx';

/** The list's query as a view keeps it: its filters and sort, not the page it was on. */
export function viewQuery(query: URLSearchParams): string {
  const q = new URLSearchParams(query);
  q.delete('page');
  q.sort();
  return q.toString();
}

export function SavedViews() {
  const { path, query } = useLocation();
  const views = useLoad((s) => call('GET /api/v1/views', { query: { path } }, s), `views:${path}`);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const current = viewQuery(query);
  const items = views.data?.items ?? [];
  const active = items.find((v) => v.query === current);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await call('POST /api/v1/views', { body: { name: name.trim(), path, query: current } });
      setName('');
      views.reload();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  const remove = async (id: string) => {
    setError(null);
    try {
      await call('DELETE /api/v1/views/:id', { params: { id } });
      views.reload();
    } catch (err) {
      setError(describeError(err));
    }
  };

  return (
    <details className="views-menu">
      <summary className="button">
        {active ? `View: ${active.name}` : 'Saved views'}
        {items.length ? ` (${items.length})` : ''}
      </summary>
      <fieldset className="views-panel" aria-label="Saved views">
        {items.length === 0 ? (
          <p className="muted small">No saved views of this list yet.</p>
        ) : (
          <ul className="views-list">
            {items.map((v) => (
              <li key={v.id}>
                <Link href={v.query ? `${v.path}?${v.query}` : v.path} aria-current={v === active ? 'true' : undefined}>
                  {v.name}
                </Link>
                <button type="button" className="link small" aria-label={`Delete view ${v.name}`} onClick={() => void remove(v.id)}>
                  Delete
                </button>
              </li>
            ))}
          </ul>
        )}
        <form onSubmit={save} className="views-save">
          <label htmlFor="view-name" className="small">
            Save the current filters and sort as
          </label>
          <input id="view-name" value={name} maxLength={100} placeholder="View name" onChange={(e) => setName(e.target.value)} />
          <button type="submit" disabled={busy || !name.trim()}>
            Save view
          </button>
        </form>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
      </fieldset>
    </details>
  );
}
