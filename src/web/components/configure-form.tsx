// A source's configuration form, generated from the connector's field metadata: sections and
// "Advanced settings", write-only secrets, field-level errors from the server, Save Configuration and
// Test Connection (of the values in the form, saved or not), with the outcome at the top by the buttons.
import { type FormEvent, type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import {
  ApiError,
  type ConnectorMeta,
  type ConnectorSection,
  capitalize,
  describeError,
  type FieldMeta,
  type SourceCheck,
  type SourceView,
  call,
} from '../api.ts';
import { shortName } from '../pages/sources.tsx';
import { Alert, Badge } from '../ui.tsx';
import { CheckResults, FieldNotes } from './form-parts.tsx';

const MASK = '********';
const SCHEDULE: ConnectorSection = { title: 'Schedule', help: null, keys: ['schedule'] };
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

type Values = Record<string, string | boolean>;

function initialValues(connector: ConnectorMeta, source: SourceView | null): Values {
  const v: Values = {};
  for (const f of connector.fields) {
    if (f.secret) {
      v[f.key] = '';
      continue;
    }
    const raw = f.key === 'schedule' ? (source ? source.schedule : null) : source ? source.config[f.key] : undefined;
    const value = raw === undefined || raw === null ? (source && f.key !== 'inputMode' && f.input !== 'boolean' ? null : f.default) : raw;
    if (f.input === 'boolean') v[f.key] = value === true || value === 'true';
    else v[f.key] = value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value, null, 2) : String(value);
  }
  return v;
}

function visible(f: FieldMeta, values: Values): boolean {
  if (!f.showWhen) return true;
  return Object.entries(f.showWhen).every(([k, allowed]) => allowed.includes(String(values[k] ?? '')));
}

/** Server messages name fields by key ("url: …"); show the form's label instead. */
function humanize(message: string, fields: FieldMeta[]): string {
  const m = /^(?:config\.)?([A-Za-z][A-Za-z0-9]*)(:\s*|\s)(.*)$/s.exec(message);
  const f = m && fields.find((x) => x.key === m[1]);
  if (!m || !f) return capitalize(message);
  return m[2].startsWith(':') ? `${f.label}: ${m[3]}` : `${f.label} ${m[3]}`;
}

/** The message under a field: without the field's own name in front. */
function fieldMessage(message: string, field: FieldMeta | undefined): string {
  if (!field) return capitalize(message);
  const m = new RegExp(`^(?:config\\.)?${field.key}:\\s*(.*)$`, 's').exec(message);
  return capitalize(m ? m[1] : humanize(message, [field]));
}

/** The field an API error is about, as a form key ("config.url" → "url"). */
function errorField(err: unknown, keys: string[]): string | null {
  if (!(err instanceof ApiError) || !err.field) return null;
  const f = err.field.replace(/^(config|body)\./, '');
  return keys.includes(f) || f === 'name' ? f : null;
}

export function ConfigureForm(props: {
  connector: ConnectorMeta;
  source: SourceView | null;
  onSaved: (s: SourceView) => void;
  flash?: string | null;
  onChecked?: () => void;
}) {
  const { connector, source } = props;
  const isNew = source === null;
  const [name, setName] = useState('');
  const [values, setValues] = useState<Values>(() => initialValues(connector, source));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [summary, setSummary] = useState<{ tone: 'error' | 'success'; title: string; text?: string } | null>(
    props.flash ? { tone: 'success', title: props.flash } : null,
  );
  const [busy, setBusy] = useState<'save' | 'test' | null>(null);
  const [check, setCheck] = useState<(Pick<SourceCheck, 'ok' | 'checks'> & { at: number; unsaved: boolean }) | null>(null);
  /** What a test obtained that the save must keep (a one-time code's tokens), held by the server. */
  const [connectionTest, setConnectionTest] = useState<string | null>(null);
  const summaryRef = useRef<HTMLDivElement>(null);
  const initial = useMemo(() => initialValues(connector, source), [connector, source]);
  const dirty = isNew || Object.keys(values).some((k) => values[k] !== initial[k]);
  const keys = connector.fields.map((f) => f.key);

  useEffect(() => {
    if (summary || check) summaryRef.current?.focus();
  }, [summary, check]);

  const set = (key: string, v: string | boolean) => {
    setValues((old) => ({ ...old, [key]: v }));
    if (errors[key]) setErrors(({ [key]: _gone, ...rest }) => rest);
  };

  const payload = () => {
    const config: Record<string, unknown> = {};
    let schedule: string | null | undefined;
    for (const f of connector.fields) {
      const v = values[f.key];
      if (f.key === 'schedule') {
        schedule = typeof v === 'string' ? v.trim() : null;
        if (isNew && !schedule) schedule = undefined;
        continue;
      }
      if (f.secret) {
        // Write-only: sent only when typed; otherwise the stored value stays.
        if (typeof v === 'string' && v !== '') config[f.key] = v;
        continue;
      }
      if (f.input === 'boolean') config[f.key] = v === true;
      else if (typeof v === 'string') {
        const t = f.input === 'textarea' ? v : v.trim();
        if (t === '') {
          if (!isNew && initial[f.key] !== '') config[f.key] = '';
        } else config[f.key] = f.input === 'number' && /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
      }
    }
    return { config, schedule };
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setSummary(null);
    const errs: Record<string, string> = {};
    if (isNew && !NAME_RE.test(name.trim()))
      errs.name = name.trim() ? 'Use letters, digits, ".", "_" or "-" (up to 63 characters), starting with a letter or digit.' : 'Give the source a name.';
    if (Object.keys(errs).length) {
      setErrors(errs);
      setSummary({ tone: 'error', title: 'The configuration was not saved', text: 'Correct the highlighted fields.' });
      return;
    }
    setBusy('save');
    setErrors({});
    setCheck(null);
    try {
      const { config, schedule } = payload();
      const kept = connectionTest ? { connectionTest } : {};
      const saved = isNew
        ? await call('POST /api/v1/sources', {
            body: { name: name.trim(), type: connector.type, config, ...(schedule !== undefined ? { schedule } : {}), ...kept },
          })
        : await call('PATCH /api/v1/sources/:name', { params: { name: source.name }, body: { config, schedule, ...kept } });
      setConnectionTest(null);
      setValues(initialValues(connector, saved));
      props.onSaved(saved);
    } catch (err) {
      const field = errorField(err, keys);
      const msg = err instanceof Error ? err.message : String(err);
      if (field)
        setErrors({
          [field]: fieldMessage(
            msg,
            connector.fields.find((f) => f.key === field),
          ),
        });
      setSummary({
        tone: 'error',
        title: 'The configuration was not saved',
        text: err instanceof ApiError && err.status === 400 ? humanize(msg, connector.fields) : describeError(err),
      });
    } finally {
      setBusy(null);
    }
  };

  /** Checks the values in the form: unsaved ones without storing them, else the saved configuration. */
  const test = async () => {
    setBusy('test');
    setCheck(null);
    // A banner from before ("Configuration saved", a refused save) is about something else now.
    setSummary(null);
    setErrors({});
    try {
      const { config, schedule } = payload();
      const r = isNew
        ? await call('POST /api/v1/sources/check', {
            body: { type: connector.type, name: name.trim() || undefined, config, ...(schedule ? { schedule } : {}) },
          })
        : dirty
          ? await call('POST /api/v1/sources/:name/check', { params: { name: source.name }, body: { config, schedule } })
          : await call('POST /api/v1/sources/:name/check', { params: { name: source.name } });
      if (r.connectionTest) setConnectionTest(r.connectionTest);
      setCheck({ ok: r.ok, checks: r.checks, at: Date.now(), unsaved: dirty });
      if (!dirty) props.onChecked?.();
    } catch (err) {
      const field = errorField(err, keys);
      if (field)
        setErrors({
          [field]: fieldMessage(
            err instanceof Error ? err.message : String(err),
            connector.fields.find((f) => f.key === field),
          ),
        });
      const msg = err instanceof ApiError && err.status === 400 ? humanize(err.message, connector.fields) : describeError(err);
      setCheck({ ok: false, checks: [{ id: 'request', ok: false, message: msg, hint: null }], at: Date.now(), unsaved: dirty });
    } finally {
      setBusy(null);
    }
  };

  const renderField = (f: FieldMeta): ReactNode => {
    if (!visible(f, values)) return null;
    const id = `field-${f.key}`;
    const helpId = f.help ? `${id}-help` : undefined;
    const errId = errors[f.key] ? `${id}-error` : undefined;
    const described = [errId, helpId].filter(Boolean).join(' ') || undefined;
    const invalid = errors[f.key] ? true : undefined;
    const value = values[f.key];
    let control: ReactNode;
    if (f.input === 'boolean') {
      return (
        <div className={`field checkbox${invalid ? ' has-error' : ''}`} key={f.key}>
          <input
            id={id}
            type="checkbox"
            checked={value === true}
            onChange={(e) => set(f.key, e.target.checked)}
            aria-describedby={described}
            aria-invalid={invalid}
          />
          <div>
            <label htmlFor={id}>{f.label}</label>
            <FieldNotes errorId={errId} error={errors[f.key]} helpId={helpId} help={f.help} />
          </div>
        </div>
      );
    }
    if (f.input === 'select') {
      control = (
        <select id={id} value={String(value)} onChange={(e) => set(f.key, e.target.value)} aria-describedby={described} aria-invalid={invalid}>
          {value === '' && <option value="">Choose…</option>}
          {(f.options ?? []).map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      );
    } else if (f.input === 'textarea') {
      control = (
        <textarea
          id={id}
          rows={4}
          value={String(value)}
          onChange={(e) => set(f.key, e.target.value)}
          aria-describedby={described}
          aria-invalid={invalid}
          spellCheck={false}
        />
      );
    } else if (f.secret) {
      const isSet = source?.config[f.key] === MASK;
      control = (
        <div className="secret">
          <span className="secret-state" id={`${id}-state`}>
            {isSet ? <Badge tone="ok">Set</Badge> : <Badge tone="neutral">Not set</Badge>}
            <span className="muted small">
              {isSet ? ' Stored encrypted; type a new value only to replace it.' : ' Write-only: never shown again once saved.'}
            </span>
          </span>
          <input
            id={id}
            type="password"
            autoComplete="new-password"
            value={String(value)}
            placeholder={isSet ? 'Leave empty to keep the stored value' : ''}
            onChange={(e) => set(f.key, e.target.value)}
            aria-describedby={[`${id}-state`, described].filter(Boolean).join(' ')}
            aria-invalid={invalid}
            spellCheck={false}
          />
        </div>
      );
    } else {
      control = (
        <input
          id={id}
          type="text"
          inputMode={f.input === 'number' ? 'numeric' : undefined}
          value={String(value)}
          placeholder={f.default !== null && f.default !== undefined ? String(f.default) : undefined}
          onChange={(e) => set(f.key, e.target.value)}
          aria-describedby={described}
          aria-invalid={invalid}
          spellCheck={false}
          autoComplete="off"
        />
      );
    }
    // A changed address (or region, or proxy) takes the stored secrets it decides the destination of
    // only when they are entered again: say so before the server refuses.
    const reenter = !isNew && value !== initial[f.key] ? (f.sendsSecrets ?? []).filter((k) => source?.config[k] === MASK && values[k] === '') : [];
    const labels = reenter.map((k) => byKey.get(k)?.label ?? k);
    return (
      <div className={`field${invalid ? ' has-error' : ''}`} key={f.key}>
        <label htmlFor={id}>{f.label}</label>
        {control}
        {reenter.length > 0 && (
          <p className="field-note" role="note">
            Changing {f.label} changes where the stored {labels.join(' and ')} {labels.length > 1 ? 'are' : 'is'} sent: enter{' '}
            {labels.length > 1 ? 'them' : 'it'} again before saving.
          </p>
        )}
        <FieldNotes errorId={errId} error={errors[f.key]} helpId={helpId} help={f.help} />
      </div>
    );
  };

  const byKey = new Map(connector.fields.map((f) => [f.key, f]));
  const everyField = { title: null, help: null, keys: connector.fields.map((f) => f.key).filter((k) => k !== 'schedule') };
  const sections: ConnectorSection[] = [...(connector.sections ?? [everyField]), SCHEDULE];
  const placed = new Set(sections.flatMap((sec) => sec.keys));
  const advanced = connector.fields.filter((f) => !placed.has(f.key) && visible(f, values));
  return (
    <form onSubmit={save} noValidate className="config-form" aria-label={`${shortName(connector)} configuration`}>
      <div className="form-actions form-actions-top">
        <button type="submit" className="primary" disabled={busy !== null}>
          {busy === 'save' ? 'Saving…' : 'Save Configuration'}
        </button>
        <button type="button" onClick={test} disabled={busy !== null} aria-describedby="test-help">
          {busy === 'test' ? 'Testing…' : 'Test Connection'}
        </button>
        <span id="test-help" className="help inline-help">
          {dirty
            ? 'Test Connection checks the values in this form without saving them.'
            : 'Test Connection checks the saved credentials against the upstream system.'}
        </span>
      </div>
      <div ref={summaryRef} tabIndex={-1} className="summary-anchor" aria-live="polite">
        {summary && (
          <Alert tone={summary.tone} title={summary.title}>
            {summary.text}
          </Alert>
        )}
        {check && <CheckResults check={check} />}
      </div>
      {isNew && (
        <div className={`field${errors.name ? ' has-error' : ''}`}>
          <label htmlFor="field-name">Source name</label>
          <input
            id="field-name"
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              if (errors.name) setErrors(({ name: _n, ...rest }) => rest);
            }}
            aria-describedby={errors.name ? 'field-name-error field-name-help' : 'field-name-help'}
            aria-invalid={errors.name ? true : undefined}
            autoComplete="off"
            spellCheck={false}
          />
          {errors.name && (
            <p className="field-error" id="field-name-error">
              {errors.name}
            </p>
          )}
          <p className="help" id="field-name-help">
            A short name used in the command line, the API and on every imported record, e.g. <code>sc-prod</code>. It cannot be changed later.
          </p>
        </div>
      )}
      {sections.map((sec, i) => {
        const fields = sec.keys.map((k) => byKey.get(k)).filter((f): f is FieldMeta => !!f && visible(f, values));
        if (fields.length === 0) return null;
        return (
          <fieldset key={sec.title ?? i}>
            <legend>{sec.title ?? connector.title}</legend>
            {sec.help && <p className="help section-help">{sec.help}</p>}
            {fields.map(renderField)}
          </fieldset>
        );
      })}
      {advanced.length > 0 && (
        <details className="advanced" open={advanced.some((f) => errors[f.key]) || undefined}>
          <summary>Advanced settings</summary>
          {advanced.map(renderField)}
        </details>
      )}
    </form>
  );
}
