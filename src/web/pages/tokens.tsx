// API tokens: create one with a scope (read, operate, admin) and see its value once, list them with their
// scope and last use, revoke one. The same as `tributary tokens create|list|revoke` and /api/v1/tokens.
import { useState } from 'react';
import { isTokenScope, SCOPE_COVERS, TOKEN_SCOPES, type TokenScope } from '../../core/token-scopes.ts';
import { type ApiToken, describeError, type TokenCreateBody, call } from '../api.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { Alert, ago, DataTable, dateTime, LoadedItems, PageHeader, useLoad, usePageTitle } from '../ui.tsx';

type Created = { id: string; name: string; scope: TokenScope; token: string; expiresAt: string | null };

export function TokensPage() {
  usePageTitle('API tokens');
  const [version, setVersion] = useState(0);
  const tokens = useLoad((s) => call('GET /api/v1/tokens', {}, s), `tokens:${version}`);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<TokenScope>('read');
  const [expiresIn, setExpiresIn] = useState('');
  const [created, setCreated] = useState<Created | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const create = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body: TokenCreateBody = { name: name.trim(), scope, ...(expiresIn ? { expiresIn } : {}) };
      setCreated(await call('POST /api/v1/tokens', { body }));
      setName('');
      setVersion((v) => v + 1);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  const revoke = async (t: ApiToken) => {
    setError(null);
    try {
      await call('DELETE /api/v1/tokens/:id', { params: { id: t.id } });
      if (created?.id === t.id) setCreated(null);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(describeError(err));
    }
  };

  return (
    <div>
      <PageHeader
        crumbs={<span>Settings</span>}
        title="API tokens"
        subtitle="Tokens for scripts and other tools (Authorization: Bearer). A request its token's scope does not allow is refused."
      />
      <section aria-labelledby="new-token" className="card">
        <h2 id="new-token">New token</h2>
        <form className="inline-form" onSubmit={create}>
          <label className="inline" htmlFor="token-name">
            Name
          </label>
          <input id="token-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} placeholder="e.g. siem" />
          <label className="inline" htmlFor="token-scope">
            Scope
          </label>
          <select id="token-scope" value={scope} onChange={(e) => isTokenScope(e.target.value) && setScope(e.target.value)}>
            {TOKEN_SCOPES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
          <label className="inline" htmlFor="token-expires">
            Expires
          </label>
          <select id="token-expires" value={expiresIn} onChange={(e) => setExpiresIn(e.target.value)}>
            <option value="">never</option>
            <option value="30d">in 30 days</option>
            <option value="90d">in 90 days</option>
            <option value="365d">in a year</option>
          </select>
          <button type="submit" className="primary" disabled={busy || name.trim() === ''}>
            {busy ? 'Creating…' : 'Create token'}
          </button>
        </form>
        <p className="help">
          <strong>{scope}</strong>: {SCOPE_COVERS[scope]}.
        </p>
        {error && <Alert tone="error">{error}</Alert>}
        {created && (
          <div aria-live="polite">
            <Alert tone="success" title={`Token '${created.name}' (${created.scope}) created`}>
              <code className="secret-value">{created.token}</code> <CopyButton text={created.token} label="Copy the API token" />
              <div className="help">Shown only now: copy it into the tool that uses it.</div>
            </Alert>
          </div>
        )}
      </section>
      <section aria-labelledby="token-list" className="card">
        <h2 id="token-list">Tokens</h2>
        <LoadedItems loaded={tokens}>
          {(items) => (
            <DataTable
              caption="API tokens"
              rows={items}
              columns={[
                { key: 'name', label: 'Name', render: (t) => t.name },
                { key: 'scope', label: 'Scope', render: (t) => t.scope },
                { key: 'created', label: 'Created', render: (t) => dateTime(t.createdAt) },
                { key: 'lastUsed', label: 'Last used', render: (t) => (t.lastUsedAt ? ago(t.lastUsedAt) : 'never') },
                { key: 'expires', label: 'Expires', render: (t) => (t.expiresAt ? dateTime(t.expiresAt) : 'never') },
                {
                  key: 'actions',
                  label: <span className="sr-only">Actions</span>,
                  render: (t) => (
                    <button type="button" className="danger-outline" onClick={() => revoke(t)} aria-label={`Revoke the token ${t.name}`}>
                      Revoke
                    </button>
                  ),
                },
              ]}
            />
          )}
        </LoadedItems>
      </section>
    </div>
  );
}
