// Pieces of the configure form: a field's error and help text, and the outcome of Test Connection (one
// line per named check, with its hint).
import { type CheckResult, capitalize } from '../api.ts';

/** A field's error (when it has one) and help text, with the ids its input points at. */
export function FieldNotes({
  errorId,
  error,
  helpId,
  help,
}: {
  errorId: string | undefined;
  error: string | undefined;
  helpId: string | undefined;
  help: string | null | undefined;
}) {
  return (
    <>
      {errorId && (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      )}
      {help && (
        <p className="help" id={helpId}>
          {help}
        </p>
      )}
    </>
  );
}

/** The outcome of Test Connection: one line per named check, with its hint. */
export function CheckResults({ check }: { check: { ok: boolean; checks: CheckResult[]; unsaved: boolean } }) {
  return (
    <section className={`check-results ${check.ok ? 'check-ok' : 'check-bad'}`} aria-labelledby="check-title">
      <h2 id="check-title">{check.ok ? 'Connection test passed' : 'Connection test failed'}</h2>
      <p className="muted small">{check.unsaved ? 'Tested with the values in this form; they are not saved yet.' : 'Tested with the saved configuration.'}</p>
      <ul className="checks">
        {check.checks.map((c) => (
          <li key={c.id} className={c.ok ? 'ok' : 'bad'}>
            <span className="check-mark" aria-hidden="true">
              {c.ok ? '✓' : '✗'}
            </span>
            <div>
              <div>
                <span className="sr-only">{c.ok ? 'Passed: ' : 'Failed: '}</span>
                {capitalize(c.message)}
              </div>
              {c.hint && <div className="hint">Hint: {c.hint}</div>}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
