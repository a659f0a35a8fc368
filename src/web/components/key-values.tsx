// A value of any shape for people: an object as a key/value list (nested ones indented), a list of
// objects as one such list each, anything else as a table cell shows it; never raw JSON.
import type { ReactNode } from 'react';
import { cell } from '../ui.tsx';

/** `operating_system` or `lastSeen` → "Operating system", "Last seen". */
export function words(key: string): string {
  const w = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return w ? w[0]!.toUpperCase() + w.slice(1) : key;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Key/value rows as a definition list. */
export function Props({ rows, label, className = 'props' }: { rows: [string, ReactNode][]; label?: string; className?: string }) {
  return (
    <dl className={className} aria-label={label}>
      {rows.map(([k, v]) => (
        <div key={k} className="prop">
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One value: nested objects as key/value lists, lists of objects as one list per item. */
export function KeyValues({ value }: { value: unknown }): ReactNode {
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return cell(null);
    return <Props className="props nested" rows={entries.map(([k, v]) => [words(k), <KeyValues key={k} value={v} />])} />;
  }
  if (Array.isArray(value) && value.some((v) => isObject(v) || Array.isArray(v)))
    return (
      <ul className="nested-list">
        {value.map((v, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: upstream values have no identity of their own
          <li key={i}>
            <KeyValues value={v} />
          </li>
        ))}
      </ul>
    );
  return cell(value);
}
