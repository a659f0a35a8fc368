// Export of a list with its current filters: a format choice and a download link to
// /api/v1/export/{model} (the server streams every matching record, not just the page shown).
import { useState } from 'react';
import { qs } from '../api.ts';

type Params = Record<string, string | string[] | number | undefined>;

/** Formats per model: the structured ones only where the model has a mapping. */
function formatsFor(model: string): { value: string; label: string; params: Params }[] {
  const out = [
    { value: 'csv', label: 'CSV', params: {} },
    { value: 'jsonl', label: 'JSON Lines', params: {} },
  ];
  if (['vulnerabilities', 'compliance', 'hosts', 'cmdb-assets', 'assets'].includes(model)) {
    out.push({ value: 'ocsf', label: 'OCSF 1.1 (Security Lake, Splunk)', params: {} });
    out.push({ value: 'ocsf-parquet', label: 'OCSF 1.1 as Parquet (Security Lake)', params: {} });
  }
  if (['vulnerabilities', 'compliance', 'hosts', 'cmdb-assets', 'assets', 'software'].includes(model)) {
    out.push({ value: 'ocsf-1.3', label: 'OCSF 1.3', params: { ocsfVersion: '1.3.0' } });
    out.push({ value: 'ecs', label: 'ECS (Elasticsearch)', params: {} });
  }
  return out;
}

export function ExportButton(props: { model: string; title: string; filters: Params }) {
  const formats = formatsFor(props.model);
  const [format, setFormat] = useState(formats[0].value);
  const chosen = formats.find((f) => f.value === format) ?? formats[0];
  // Paging and sort belong to the table, not to the export.
  const { limit: _limit, sort: _sort, cursor: _cursor, ...filters } = props.filters;
  const href = `/api/v1/export/${props.model}${qs({ ...filters, ...chosen.params, format: chosen.value.replace(/-1\.3$/, '') })}`;
  return (
    <div className="export-bar">
      <label className="inline" htmlFor={`export-${props.model}`}>
        Export as
      </label>
      <select id={`export-${props.model}`} value={chosen.value} onChange={(e) => setFormat(e.target.value)}>
        {formats.map((f) => (
          <option key={f.value} value={f.value}>
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
