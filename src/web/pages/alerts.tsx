// Alerts: webhooks told once per rule and sync or feed import of open findings newly known exploited,
// newly in the SSVC decision Act, newly past due, failed or partial syncs and coverage that got worse.
// Add one (its signing secret shown once), send a test message, remove one, and read the delivery log
// with each delivery's attempts and last error. The same as `tributary alerts` and /api/v1/alerts.
import { useState } from 'react';
import { ALERT_FORMATS, ALERT_KINDS, type AlertFormat, type AlertKind, KIND_LABELS, SIGNATURE_HEADER } from '../../core/alerts.ts';
import type { AlertCreated, AlertDelivery, AlertView } from '../../core/api-shapes-alerts.ts';
import { isOneOf } from '../../core/models.ts';
import { call, describeError } from '../api.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { Alert, ago, DataTable, dateTime, LoadedItems, PageHeader, Spinner, useLoad, usePageTitle } from '../ui.tsx';

const FORMAT_LABELS: Record<AlertFormat, string> = {
  json: 'JSON (signed)',
  slack: 'Slack incoming webhook',
  teams: 'Microsoft Teams (Adaptive Card)',
};

function deliveryStatus(d: AlertDelivery) {
  const tries = `${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`;
  return `${d.status}, ${tries}`;
}

export function AlertsPage() {
  usePageTitle('Alerts');
  const [version, setVersion] = useState(0);
  const alerts = useLoad((s) => call('GET /api/v1/alerts', {}, s), `alerts:${version}`);
  const deliveries = useLoad((s) => call('GET /api/v1/alerts/deliveries', { query: { limit: 50 } }, s), `deliveries:${version}`);
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [kinds, setKinds] = useState<AlertKind[]>(['kev', 'sync']);
  const [format, setFormat] = useState<AlertFormat>('json');
  const [maxItems, setMaxItems] = useState('20');
  const [created, setCreated] = useState<AlertCreated | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const toggle = (k: AlertKind, on: boolean) => setKinds((ks) => (on ? ALERT_KINDS.filter((x) => x === k || ks.includes(x)) : ks.filter((x) => x !== k)));
  const create = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      setCreated(await call('POST /api/v1/alerts', { body: { name: name.trim(), url: url.trim(), on: kinds, format, maxItems: Number(maxItems) } }));
      setName('');
      setUrl('');
      setVersion((v) => v + 1);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  const test = async (a: AlertView) => {
    setError(null);
    setNotice(null);
    try {
      const d = await call('POST /api/v1/alerts/:name/test', { params: { name: a.name } });
      if (d.status === 'delivered') setNotice(`Test message of '${a.name}' delivered (HTTP ${d.httpStatus}).`);
      else setError(`Test message of '${a.name}' not delivered: ${d.lastError ?? d.status}`);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(describeError(err));
    }
  };
  const remove = async (a: AlertView) => {
    setError(null);
    setNotice(null);
    try {
      await call('DELETE /api/v1/alerts/:name', { params: { name: a.name } });
      if (created?.alert.name === a.name) setCreated(null);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(describeError(err));
    }
  };

  return (
    <div>
      <PageHeader
        crumbs={<span>Settings</span>}
        title="Alerts"
        subtitle="Webhooks told after each sync and feed import of what is new: one message per alert, kind and run, listing the first items and the total."
      />
      <section aria-labelledby="new-alert" className="card">
        <h2 id="new-alert">New alert</h2>
        <form onSubmit={create}>
          <div className="inline-form">
            <label className="inline" htmlFor="alert-name">
              Name
            </label>
            <input id="alert-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={63} placeholder="e.g. soc-channel" />
            <label className="inline" htmlFor="alert-url">
              Webhook URL
            </label>
            <input id="alert-url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} required maxLength={2048} placeholder="https://…" size={48} />
          </div>
          <fieldset className="checkbox-list">
            <legend>Tell it of</legend>
            {ALERT_KINDS.map((k) => (
              <label key={k} className="checkbox-inline">
                <input type="checkbox" checked={kinds.includes(k)} onChange={(e) => toggle(k, e.target.checked)} /> {KIND_LABELS[k]}
                {k === 'act' ? ' (once the SSVC decisions are computed)' : ''}
              </label>
            ))}
          </fieldset>
          <div className="inline-form">
            <label className="inline" htmlFor="alert-format">
              Format
            </label>
            <select id="alert-format" value={format} onChange={(e) => isOneOf(ALERT_FORMATS, e.target.value) && setFormat(e.target.value)}>
              {ALERT_FORMATS.map((f) => (
                <option key={f} value={f}>
                  {FORMAT_LABELS[f]}
                </option>
              ))}
            </select>
            <label className="inline" htmlFor="alert-max">
              Items per message
            </label>
            <input id="alert-max" type="number" min={1} max={200} value={maxItems} onChange={(e) => setMaxItems(e.target.value)} />
            <button type="submit" className="primary" disabled={busy || name.trim() === '' || url.trim() === '' || kinds.length === 0}>
              {busy ? 'Adding…' : 'Add alert'}
            </button>
          </div>
        </form>
        <p className="help">
          The URL is stored encrypted and shown by its host only. Private addresses are allowed; this service's own upload and feed endpoints are refused.
        </p>
        {error && <Alert tone="error">{error}</Alert>}
        {notice && <Alert tone="success">{notice}</Alert>}
        {created && (
          <div aria-live="polite">
            <Alert tone="success" title={`Alert '${created.alert.name}' added`}>
              Signing secret: <code className="secret-value">{created.secret}</code> <CopyButton text={created.secret} label="Copy the signing secret" />
              <div className="help">
                Shown only now. Each message carries <code>{SIGNATURE_HEADER}: sha256=&lt;hex&gt;</code>, the HMAC-SHA256 of the raw body with this secret:
                compute it on the bytes received and compare in constant time. What is already true now is not reported.
              </div>
            </Alert>
          </div>
        )}
      </section>
      <section aria-labelledby="alert-list" className="card">
        <h2 id="alert-list">Alerts</h2>
        <LoadedItems loaded={alerts}>
          {(items) => (
            <DataTable
              caption="Alerts"
              rows={items}
              rowKey={(a) => a.name}
              columns={[
                { key: 'name', label: 'Name', render: (a) => a.name },
                { key: 'on', label: 'On', render: (a) => a.on.join(', ') },
                { key: 'format', label: 'Format', render: (a) => a.format },
                { key: 'url', label: 'Receiver', render: (a) => <code>{a.url}</code> },
                {
                  key: 'last',
                  label: 'Last delivery',
                  render: (a) => (a.lastDelivery ? `${deliveryStatus(a.lastDelivery)}, ${ago(a.lastDelivery.updatedAt)}` : 'never'),
                },
                { key: 'error', label: 'Last error', render: (a) => a.lastDelivery?.lastError ?? '' },
                {
                  key: 'actions',
                  label: <span className="sr-only">Actions</span>,
                  render: (a) => (
                    <span className="actions">
                      <button type="button" onClick={() => test(a)} aria-label={`Send a test message of ${a.name}`}>
                        Test
                      </button>{' '}
                      <button type="button" className="danger-outline" onClick={() => remove(a)} aria-label={`Remove the alert ${a.name}`}>
                        Remove
                      </button>
                    </span>
                  ),
                },
              ]}
            />
          )}
        </LoadedItems>
      </section>
      <section aria-labelledby="delivery-log" className="card">
        <h2 id="delivery-log">Delivery log</h2>
        {deliveries.error && <Alert tone="error">{deliveries.error}</Alert>}
        {!deliveries.data ? (
          deliveries.error ? null : (
            <Spinner />
          )
        ) : deliveries.data.items.length === 0 ? (
          <p className="muted">Nothing sent yet.</p>
        ) : (
          <DataTable
            caption="Deliveries, newest first"
            rows={deliveries.data.items}
            columns={[
              { key: 'at', label: 'Created', render: (d) => dateTime(d.createdAt) },
              { key: 'alert', label: 'Alert', render: (d) => d.alert },
              { key: 'kind', label: 'Kind', render: (d) => d.kind },
              { key: 'cause', label: 'After', render: (d) => (d.cause === 'sync' ? `sync ${d.runId ?? ''}` : d.cause) },
              { key: 'items', label: 'Items', render: (d) => (d.total > d.items ? `${d.items} of ${d.total}` : String(d.total)) },
              { key: 'status', label: 'Status', render: (d) => d.status },
              { key: 'attempts', label: 'Attempts', render: (d) => String(d.attempts) },
              { key: 'http', label: 'HTTP', render: (d) => (d.httpStatus === null ? '' : String(d.httpStatus)) },
              { key: 'error', label: 'Last error', render: (d) => d.lastError ?? '' },
              { key: 'next', label: 'Next attempt', render: (d) => (d.status === 'pending' && d.nextAttemptAt ? dateTime(d.nextAttemptAt) : '') },
            ]}
          />
        )}
      </section>
    </div>
  );
}
