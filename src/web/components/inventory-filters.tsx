// Filter controls of the inventory search form; they write to the URL query.
import { useEffect, useState } from 'react';
import { capitalize } from '../api.ts';
import { setQuery } from '../router.tsx';

export function SelectFilter(props: {
  id: string;
  label: string;
  value: string;
  options: (string | { value: string; label: string })[];
  onChange: (v: string | null) => void;
}) {
  return (
    <div className="field inline-field">
      <label htmlFor={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value || null)}>
        <option value="">Any</option>
        {props.options.map((o) => {
          const v = typeof o === 'string' ? o : o.value;
          const l = typeof o === 'string' ? capitalize(o) : o.label;
          return (
            <option key={v} value={v}>
              {l}
            </option>
          );
        })}
      </select>
    </div>
  );
}

/** One severity, or a floor (`>=high`: high and critical; severities compare in their order). */
const SEVERITY_OPTIONS = [
  'critical',
  { value: '>=high', label: 'High or above' },
  'high',
  { value: '>=medium', label: 'Medium or above' },
  'medium',
  { value: '>=low', label: 'Low or above' },
  'low',
  'info',
];

export function VulnFilters({ query }: { query: URLSearchParams }) {
  const [cve, setCve] = useState(query.get('cve') ?? '');
  useEffect(() => setCve(query.get('cve') ?? ''), [query]);
  return (
    <>
      <SelectFilter
        id="f-severity"
        label="Severity"
        value={query.get('severity') ?? ''}
        options={SEVERITY_OPTIONS}
        onChange={(v) => setQuery({ severity: v })}
      />
      <SelectFilter
        id="f-decision"
        label="Decision"
        value={query.get('decision') ?? ''}
        options={[
          { value: 'act', label: 'Act' },
          { value: '>=attend', label: 'Attend or Act' },
          { value: 'attend', label: 'Attend' },
          { value: 'track-star', label: 'Track*' },
          { value: 'track', label: 'Track' },
        ]}
        onChange={(v) => setQuery({ decision: v })}
      />
      <SelectFilter
        id="f-status"
        label="Status"
        value={query.get('status') ?? ''}
        options={[{ value: 'open,reopened', label: 'Open or reopened' }, 'open', 'reopened', 'fixed']}
        onChange={(v) => setQuery({ status: v })}
      />
      <div className="field inline-field">
        <label htmlFor="f-cve">CVE</label>
        <input
          id="f-cve"
          value={cve}
          placeholder="CVE-2021-44228"
          onChange={(e) => setCve(e.target.value)}
          onBlur={() => setQuery({ cve: cve.trim() || null })}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              setQuery({ cve: cve.trim() || null });
            }
          }}
        />
      </div>
      <SelectFilter
        id="f-excepted"
        label="Risk exception"
        value={query.get('excepted') ?? ''}
        options={[
          { value: 'true', label: 'Excepted' },
          { value: 'false', label: 'Not excepted' },
        ]}
        onChange={(v) => setQuery({ excepted: v })}
      />
      <label className="checkbox-inline">
        <input
          type="checkbox"
          checked={query.get('knownExploited') === 'true'}
          onChange={(e) => setQuery({ knownExploited: e.target.checked ? 'true' : null })}
        />{' '}
        Known exploited only
      </label>
    </>
  );
}

/** A text filter written to the URL on Enter or when the field is left. */
export function TextFilter(props: { id: string; label: string; param: string; query: URLSearchParams; placeholder?: string }) {
  const { param, query } = props;
  const [text, setText] = useState(query.get(param) ?? '');
  useEffect(() => setText(query.get(param) ?? ''), [query, param]);
  const commit = () => setQuery({ [param]: text.trim() || null });
  return (
    <div className="field inline-field">
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        value={text}
        placeholder={props.placeholder}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            commit();
          }
        }}
      />
    </div>
  );
}

/** How correlation linked an asset's records (the rules, strongest first; `none`: one system only). */
const MATCH_RULES = [
  { value: 'manual', label: 'Manual link' },
  { value: 'serial', label: 'Serial number' },
  { value: 'bios-uuid', label: 'BIOS UUID' },
  { value: 'mac', label: 'MAC address' },
  { value: 'fqdn', label: 'FQDN' },
  { value: 'hostname', label: 'Host name' },
  { value: 'ip', label: 'IP address' },
];

/** The assets list's filters: the match rule, in one system only, owner and department (contains). */
export function AssetFilters({ query }: { query: URLSearchParams }) {
  const single = query.get('matchRule') === 'none';
  return (
    <>
      <SelectFilter
        id="f-match-rule"
        label="Linked by"
        value={single ? '' : (query.get('matchRule') ?? '')}
        options={MATCH_RULES}
        onChange={(v) => setQuery({ matchRule: v })}
      />
      <label className="checkbox-inline">
        <input type="checkbox" checked={single} onChange={(e) => setQuery({ matchRule: e.target.checked ? 'none' : null })} /> In one system only
      </label>
      <TextFilter id="f-owner" label="Owner" param="owner" query={query} />
      <TextFilter id="f-department" label="Department" param="department" query={query} />
    </>
  );
}
