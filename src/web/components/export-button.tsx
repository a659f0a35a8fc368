// Export of a list with its current filters: a format choice and a download link to
// /api/v1/export/{model} (the server streams every matching record, not just the page shown). The
// formats, their labels and the models each writes come from the server's format registry.
import { useState } from 'react';
import { call, qs } from '../api.ts';
import { useLoad } from '../ui.tsx';

type Params = Record<string, string | string[] | number | undefined>;

export function ExportButton(props: { model: string; title: string; filters: Params }) {
  const menu = useLoad((s) => call('GET /api/v1/export/formats', {}, s), 'export-formats');
  const formats = (menu.data?.items ?? []).filter((f) => f.models.includes(props.model));
  const [choice, setChoice] = useState<string | null>(null);
  const chosen = formats.find((f) => f.id === choice) ?? formats[0];
  if (!chosen) return null;
  // Paging and sort belong to the table, not to the export.
  const { limit: _limit, sort: _sort, cursor: _cursor, ...filters } = props.filters;
  const href = `/api/v1/export/${props.model}${qs({ ...filters, ...chosen.params, format: chosen.format })}`;
  return (
    <div className="export-bar">
      <label className="inline" htmlFor={`export-${props.model}`}>
        Export as
      </label>
      <select id={`export-${props.model}`} value={chosen.id} onChange={(e) => setChoice(e.target.value)}>
        {formats.map((f) => (
          <option key={f.id} value={f.id}>
            {f.label}
          </option>
        ))}
      </select>
      <a className="button" href={href} download aria-label={`Export ${props.title.toLowerCase()} with the current filters`}>
        Export
      </a>
    </div>
  );
}
