// A service desk source's remediation tickets (issue 32): the plan (what the next run would create, note,
// resolve or reopen, with the findings behind each), Apply (writes it; the operate scope), and the audit
// log of every write.
import { useState } from 'react';
import { call, describeError } from '../api.ts';
import { Link } from '../router.tsx';
import { Alert, Badge, DataTable, dateTime, num, SeverityBadge, Spinner, useLoad } from '../ui.tsx';

const KIND_LABELS: Record<string, string> = { create: 'Create', note: 'Note', resolve: 'Resolve', reopen: 'Reopen' };

function FindingList({ label, ids }: { label: string; ids: string[] }) {
  if (!ids.length) return null;
  const shown = ids.slice(0, 20);
  return (
    <div>
      <b>
        {label} ({num(ids.length)}):
      </b>{' '}
      {shown.map((id, i) => (
        <span key={id}>
          {i > 0 && ', '}
          <Link href={`/inventory/vulnerabilities/${encodeURIComponent(id)}`}>{id}</Link>
        </span>
      ))}
      {ids.length > shown.length && <span> … and {num(ids.length - shown.length)} more</span>}
    </div>
  );
}

export function TicketsPanel({ source }: { source: string }) {
  const [version, setVersion] = useState(0);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);
  const plan = useLoad((s) => call('GET /api/v1/sources/:name/tickets/plan', { params: { name: source } }, s), `tickets-plan:${source}|${version}`);
  const log = useLoad(
    (s) => call('GET /api/v1/sources/:name/tickets/log', { params: { name: source }, query: { limit: 50 } }, s),
    `tickets-log:${source}|${version}`,
  );
  const apply = async () => {
    setBusy(true);
    setMessage(null);
    try {
      const r = await call('POST /api/v1/sources/:name/tickets/apply', { params: { name: source } });
      const parts = [
        `${r.created} created`,
        `${r.noted} noted`,
        `${r.resolved} resolved`,
        ...(r.closed ? [`${r.closed} closed (findings moved or excepted)`] : []),
        `${r.reopened} reopened`,
        ...(r.adopted ? [`${r.adopted} found by their marker`] : []),
        ...(r.deferred ? [`${r.deferred} deferred to the next run`] : []),
        ...(r.failed ? [`${r.failed} failed`] : []),
      ];
      setMessage({
        tone: r.failed ? 'error' : 'success',
        text: `Applied: ${parts.join(', ')}.${r.errors.length ? ` ${r.errors.slice(0, 3).join('; ')}` : ''}`,
      });
    } catch (err) {
      setMessage({ tone: 'error', text: `Could not apply the plan: ${describeError(err)}` });
    } finally {
      setBusy(false);
      setVersion((v) => v + 1);
    }
  };
  if (plan.error && !plan.data)
    return (
      <Alert tone="error" title="Could not load the remediation-ticket plan">
        {plan.error}
      </Alert>
    );
  if (!plan.data) return <Spinner />;
  const p = plan.data;
  const pending = p.actions.filter((a) => !a.deferred).length;
  return (
    <div>
      <section className="card" aria-labelledby="tickets-plan">
        <h2 id="tickets-plan">Plan</h2>
        {!p.enabled && (
          <Alert tone="info" title="Remediation tickets are off for this source">
            This is what enabling them would write. Turn them on with <code>remediationTickets.enabled</code> in the source's configuration.
          </Alert>
        )}
        <p>
          {num(p.findings)} ticketed finding(s) in {num(p.groups)} group(s) (grouping {p.grouping}): {p.counts.create} to create
          {p.counts.deferred ? ` (+${p.counts.deferred} past the per-run cap)` : ''}, {p.counts.note} to note, {p.counts.resolve} to resolve, {p.counts.reopen}{' '}
          to reopen.
        </p>
        {message && <Alert tone={message.tone}>{message.text}</Alert>}
        <p>
          <button type="button" className="primary" onClick={apply} disabled={busy || !p.enabled || pending === 0}>
            {busy ? 'Applying…' : `Apply (${pending} write${pending === 1 ? '' : 's'})`}
          </button>
        </p>
        <DataTable
          caption="Planned actions"
          rows={p.actions}
          rowKey={(a) => a.key}
          empty="Nothing to write: every request agrees with its findings."
          columns={[
            {
              key: 'kind',
              label: 'Action',
              render: (a) => (
                <>
                  <Badge tone={a.kind === 'resolve' ? 'ok' : a.kind === 'reopen' ? 'warn' : 'info'}>
                    {a.kind === 'resolve' && a.reason && a.reason !== 'fixed' ? `Close (${a.reason})` : (KIND_LABELS[a.kind] ?? a.kind)}
                  </Badge>
                  {a.deferred && <span> (next run)</span>}
                </>
              ),
            },
            { key: 'title', label: 'Request', render: (a) => a.title || a.marker },
            { key: 'requestId', label: 'Request id', render: (a) => a.requestId ?? '—' },
            { key: 'severity', label: 'Severity', render: (a) => <SeverityBadge severity={a.severity} /> },
            { key: 'findings', label: 'Open findings', render: (a) => num(a.findingIds.length) },
          ]}
          rowDetail={(a) => (
            <div className="ticket-findings">
              <FindingList label={a.kind === 'create' ? 'Findings' : 'Added'} ids={a.kind === 'create' ? a.findingIds : a.added} />
              <FindingList label="Fixed" ids={a.fixed} />
              <FindingList label="No longer ticketed" ids={a.left} />
            </div>
          )}
        />
      </section>
      <section className="card" aria-labelledby="tickets-log">
        <h2 id="tickets-log">Audit log</h2>
        {log.error && <Alert tone="error">{log.error}</Alert>}
        {log.data && (
          <DataTable
            caption="Audit log"
            rows={log.data.items}
            rowKey={(e) => String(e.seq)}
            empty="No write yet."
            columns={[
              { key: 'at', label: 'When', render: (e) => dateTime(e.at) },
              { key: 'action', label: 'What', render: (e) => <Badge tone={e.ok ? 'ok' : 'bad'}>{e.action}</Badge> },
              { key: 'requestId', label: 'Request', render: (e) => e.requestId ?? '—' },
              { key: 'runId', label: 'Run', render: (e) => <code>{e.runId}</code> },
              { key: 'detail', label: 'Answer', render: (e) => e.detail ?? '' },
            ]}
          />
        )}
      </section>
    </div>
  );
}
