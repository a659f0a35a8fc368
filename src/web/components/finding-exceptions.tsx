// A finding's risk exceptions (issue 31 §3), on its page: the scanner's own accepted or recast risk beside
// ours, the exceptions that cover it (state as read now, reason, expiry, who asked and who decided), and
// a form to propose one for this finding, its plugin on its host, or its plugin everywhere.
import { useState } from 'react';
import type { RiskException } from '../../core/api-shapes-exceptions.ts';
import { EXCEPTION_STATES, type ExceptionScope, isOneOf } from '../../core/models.ts';
import { call, describeError, type ModelRecord } from '../api.ts';
import { Link } from '../router.tsx';
import { Alert, Badge, DataTable, dateTime, expiryDay, Spinner, useLoad } from '../ui.tsx';

/** The tone of an exception's state badge. */
export const STATE_TONE: Record<RiskException['state'], 'ok' | 'bad' | 'warn' | 'info' | 'neutral'> = {
  approved: 'ok',
  proposed: 'info',
  rejected: 'bad',
  expired: 'warn',
  revoked: 'neutral',
};

/** What an exception covers, in words. */
export function exceptionTarget(e: RiskException): React.ReactNode {
  if (e.scope === 'finding') return e.findingId ? <Link href={`/inventory/vulnerabilities/${e.findingId}`}>one finding</Link> : 'a finding';
  if (e.scope === 'plugin') return `plugin ${e.pluginId} everywhere`;
  return `plugin ${e.pluginId} on ${e.assetIds.length} asset${e.assetIds.length === 1 ? '' : 's'}`;
}

/** A date input's value: today plus `days`. */
const dateIn = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

export function FindingExceptions({ finding }: { finding: ModelRecord<'vulnerabilities'> }) {
  const id = String(finding.id);
  const [version, setVersion] = useState(0);
  const list = useLoad((s) => call('GET /api/v1/exceptions', { query: { findingId: id } }, s), `exceptions:${id}:${version}`);
  const [scope, setScope] = useState<ExceptionScope>('finding');
  const [reason, setReason] = useState('');
  const [expires, setExpires] = useState(dateIn(90));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const hostId = finding.hostId ? String(finding.hostId) : null;

  const propose = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const body =
        scope === 'finding'
          ? { findingId: id, reason, expiresAt: expires }
          : { scope, pluginId: String(finding.pluginId), ...(scope === 'plugin-assets' && hostId ? { assetIds: [hostId] } : {}), reason, expiresAt: expires };
      const made = await call('POST /api/v1/exceptions', { body });
      setDone(`Exception proposed (${made.id}); another user approves it on the Risk exceptions page.`);
      setReason('');
      setVersion((v) => v + 1);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  const items = list.data?.items ?? [];
  return (
    <section className="card" aria-labelledby="finding-exceptions">
      <h2 id="finding-exceptions">Risk exceptions</h2>
      <dl className="props props-inline">
        <div className="prop">
          <dt>Here</dt>
          <dd>
            {finding.excepted ? (
              <Badge tone="ok">Excepted until {expiryDay(finding.exceptionExpiresAt)}</Badge>
            ) : finding.exceptionState ? (
              <Badge tone={isOneOf(EXCEPTION_STATES, finding.exceptionState) ? STATE_TONE[finding.exceptionState] : 'neutral'}>
                {String(finding.exceptionState)}
              </Badge>
            ) : (
              'None'
            )}
          </dd>
        </div>
        <div className="prop">
          <dt>Accepted risk (scanner)</dt>
          <dd>{finding.acceptedRisk ? <Badge tone="ok">Yes</Badge> : 'No'}</dd>
        </div>
        <div className="prop">
          <dt>Recast risk (scanner)</dt>
          <dd>{finding.recastRisk ? <Badge tone="info">Yes</Badge> : 'No'}</dd>
        </div>
      </dl>
      {list.error && <Alert tone="error">{list.error}</Alert>}
      {!list.data ? (
        list.error ? null : (
          <Spinner />
        )
      ) : items.length === 0 ? (
        <p className="muted">No exception covers this finding.</p>
      ) : (
        <DataTable
          caption="Exceptions that cover this finding"
          rows={items}
          rowKey={(e) => e.id}
          columns={[
            { key: 'state', label: 'State', render: (e) => <Badge tone={STATE_TONE[e.state]}>{e.state}</Badge> },
            { key: 'covers', label: 'Covers', render: (e) => exceptionTarget(e) },
            { key: 'reason', label: 'Reason', render: (e) => e.reason },
            { key: 'expires', label: 'Expires', render: (e) => dateTime(e.expiresAt) },
            { key: 'by', label: 'Requested by', render: (e) => e.requestedBy },
            { key: 'decided', label: 'Decided by', render: (e) => e.approvedBy ?? '—' },
          ]}
        />
      )}
      <details>
        <summary>Propose an exception</summary>
        <form className="stack-form" onSubmit={propose} aria-label="Propose a risk exception">
          <fieldset>
            <legend>Covers</legend>
            {(
              [
                ['finding', 'This finding'],
                ['plugin-assets', 'This plugin on this host'],
                ['plugin', 'This plugin everywhere'],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className="inline">
                <input type="radio" name="exception-scope" value={value} checked={scope === value} onChange={() => setScope(value)} /> {label}
              </label>
            ))}
          </fieldset>
          <label htmlFor="exception-reason">Reason</label>
          <textarea id="exception-reason" value={reason} onChange={(e) => setReason(e.target.value)} required maxLength={4000} rows={3} />
          <label htmlFor="exception-expires">Expires (through the end of the day, UTC)</label>
          <input id="exception-expires" type="date" value={expires} min={dateIn(1)} onChange={(e) => setExpires(e.target.value)} required />
          <button type="submit" className="primary" disabled={busy || reason.trim() === '' || !expires}>
            {busy ? 'Proposing…' : 'Propose exception'}
          </button>
        </form>
        {error && <Alert tone="error">{error}</Alert>}
        {done && (
          <div aria-live="polite">
            <Alert tone="success">{done}</Alert>
          </div>
        )}
      </details>
    </section>
  );
}
