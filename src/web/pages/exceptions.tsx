// Risk exceptions (issue 31 §3): every exception with its state as read now (expired once past its
// date), filtered by state; approve or reject a proposed one (by a user other than its requester unless
// the server allows self-approval), revoke a proposed or approved one, and read each one's history.
// The same as `tributary exceptions` and /api/v1/exceptions; exceptions are proposed from a finding's page.
import { useState } from 'react';
import { EXCEPTION_STATES, type RiskException } from '../../core/api-shapes-exceptions.ts';
import { isOneOf } from '../../core/models.ts';
import { call, describeError } from '../api.ts';
import { exceptionTarget, STATE_TONE } from '../components/finding-exceptions.tsx';
import { setQuery, useLocation } from '../router.tsx';
import { Alert, Badge, DataTable, dateTime, PageHeader, Spinner, useLoad, usePageTitle } from '../ui.tsx';

function History({ id }: { id: string }) {
  const one = useLoad((s) => call('GET /api/v1/exceptions/:id', { params: { id } }, s), `exception:${id}`);
  if (one.error) return <Alert tone="error">{one.error}</Alert>;
  if (!one.data) return <Spinner />;
  return (
    <ol className="timeline" aria-label={`History of exception ${id}`}>
      {one.data.history.map((c) => (
        <li key={c.n}>
          <time dateTime={c.at}>{dateTime(c.at)}</time> <strong>{c.by}</strong> {c.action}
          <span className="muted">
            {' '}
            ({c.from ?? 'new'} → {c.to})
          </span>
          {c.note ? ` — ${c.note}` : ''}
        </li>
      ))}
    </ol>
  );
}

export function ExceptionsPage() {
  usePageTitle('Risk exceptions');
  const loc = useLocation();
  const stateParam = loc.query.get('state');
  const state = isOneOf(EXCEPTION_STATES, stateParam) ? stateParam : undefined;
  const [version, setVersion] = useState(0);
  const list = useLoad((s) => call('GET /api/v1/exceptions', { query: { state } }, s), `exceptions:${state ?? 'all'}:${version}`);
  const policy = useLoad((s) => call('GET /api/v1/exceptions/policy', {}, s), 'exceptions-policy');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);

  const decide = async (e: RiskException, action: 'approve' | 'reject' | 'revoke') => {
    setError(null);
    setNotice(null);
    try {
      const r = await call(`POST /api/v1/exceptions/:id/${action}`, { params: { id: e.id }, body: {} });
      setNotice(`Exception ${r.id} is ${r.state}.`);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(describeError(err));
    }
  };

  return (
    <div>
      <PageHeader
        crumbs={<span>Reports</span>}
        title="Risk exceptions"
        subtitle="Accepted or deferred risks. An approved exception takes its findings out of the overdue counts and coverage's urgent list until it expires. Propose one from a finding's page."
      />
      <section className="card" aria-labelledby="exception-list">
        <h2 id="exception-list">Exceptions</h2>
        <label className="inline" htmlFor="exception-state">
          State
        </label>{' '}
        <select id="exception-state" value={state ?? ''} onChange={(e) => setQuery({ state: e.target.value || null })}>
          <option value="">any</option>
          {EXCEPTION_STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        {policy.data && (
          <p className="help">
            {policy.data.requireOtherApprover ? 'Approval needs a user other than the requester' : 'Any user may approve, the requester too'}; approving needs
            the {policy.data.approverScope} scope.
          </p>
        )}
        {error && <Alert tone="error">{error}</Alert>}
        {notice && (
          <div aria-live="polite">
            <Alert tone="success">{notice}</Alert>
          </div>
        )}
        {list.error && <Alert tone="error">{list.error}</Alert>}
        {!list.data ? (
          list.error ? null : (
            <Spinner />
          )
        ) : list.data.items.length === 0 ? (
          <p className="muted">No exception{state ? ` is ${state}` : ' yet'}.</p>
        ) : (
          <DataTable
            caption="Risk exceptions"
            rows={list.data.items}
            rowKey={(e) => e.id}
            columns={[
              { key: 'state', label: 'State', render: (e) => <Badge tone={STATE_TONE[e.state]}>{e.state}</Badge> },
              { key: 'covers', label: 'Covers', rowHeader: true, render: (e) => exceptionTarget(e) },
              { key: 'reason', label: 'Reason', render: (e) => e.reason },
              { key: 'expires', label: 'Expires', render: (e) => dateTime(e.expiresAt) },
              { key: 'requested', label: 'Requested by', render: (e) => `${e.requestedBy}, ${dateTime(e.createdAt)}` },
              { key: 'decided', label: 'Decided by', render: (e) => (e.approvedBy ? `${e.approvedBy}, ${dateTime(e.decidedAt)}` : '—') },
              {
                key: 'actions',
                label: <span className="sr-only">Actions</span>,
                render: (e) => (
                  <span className="actions">
                    {e.state === 'proposed' && (
                      <>
                        <button type="button" className="primary" onClick={() => decide(e, 'approve')} aria-label={`Approve the exception: ${e.reason}`}>
                          Approve
                        </button>{' '}
                        <button type="button" onClick={() => decide(e, 'reject')} aria-label={`Reject the exception: ${e.reason}`}>
                          Reject
                        </button>{' '}
                      </>
                    )}
                    {(e.state === 'proposed' || e.state === 'approved') && (
                      <button type="button" className="danger-outline" onClick={() => decide(e, 'revoke')} aria-label={`Revoke the exception: ${e.reason}`}>
                        Revoke
                      </button>
                    )}{' '}
                    <button type="button" onClick={() => setOpen(open === e.id ? null : e.id)} aria-expanded={open === e.id}>
                      History
                    </button>
                  </span>
                ),
              },
            ]}
          />
        )}
        {open && <History id={open} />}
      </section>
    </div>
  );
}
