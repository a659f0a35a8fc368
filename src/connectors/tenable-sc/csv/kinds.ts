// Tenable.sc CSV exports: the Vulnerability Detail List (one row per finding per host) and the Host
// Assets list. Rows are turned into the `vulndetails` row shape the API mode reads, then mapped by the
// same pure mappers, so file mode yields the same models, keys and lifecycle.
import type { IncomingRecord } from '../../../core/models.ts';
import { isIP } from 'node:net';
import { type ColumnDef, type CsvRow, detach, type FileKind, ipAddressesOf, RowError, type RowMapper, shown } from '../../../filedrop/csv/columns.ts';
import { parseDate, parseDateMs } from '../../../filedrop/csv/dates.ts';
import { hostKey, rowHostKey } from '../map/identity.ts';
import { hostNames, osFromCpe } from '../map/sumip.ts';
import { macs } from '../map/values.ts';
import { hostFromFindingRow, mapVulndetailsRow } from '../map/vulndetails.ts';

/** Header spellings: Tenable.sc first, then other Tenable products' (Nessus, Tenable VM) and common variants. */
export const VULN_COLUMNS: ColumnDef[] = [
  { field: 'pluginID', headers: ['Plugin', 'Plugin ID', 'PluginID', 'Plugin Id'] },
  { field: 'pluginName', headers: ['Plugin Name', 'Name', 'Vulnerability Name', 'Title'] },
  { field: 'family', headers: ['Family', 'Plugin Family'] },
  { field: 'severity', headers: ['Severity', 'Risk', 'Severity Level', 'Vulnerability Severity'] },
  { field: 'ip', headers: ['IP Address', 'IP', 'Host IP', 'IPv4', 'IPv4 Address', 'Host', 'Asset IP', 'IP Addresses'] },
  { field: 'protocol', headers: ['Protocol'] },
  { field: 'port', headers: ['Port'] },
  { field: 'exploitAvailable', headers: ['Exploit?', 'Exploit Available', 'Exploitable'] },
  { field: 'repository', headers: ['Repository', 'Repository Name'] },
  { field: 'macAddress', headers: ['MAC Address', 'MAC', 'MAC Addresses'] },
  { field: 'dnsName', headers: ['DNS Name', 'DNS', 'FQDN', 'Host Name', 'Hostname'] },
  { field: 'netbiosName', headers: ['NetBIOS Name', 'NetBIOS'] },
  // `Plugin Output` (SC) is preferred when a file has both.
  { field: 'pluginText', headers: ['Plugin Output', 'Plugin Text', 'Output'] },
  { field: 'synopsis', headers: ['Synopsis'] },
  { field: 'description', headers: ['Description'] },
  { field: 'solution', headers: ['Solution', 'Steps to Remediate', 'Remediation', 'Fix'] },
  { field: 'seeAlso', headers: ['See Also'] },
  { field: 'riskFactor', headers: ['Risk Factor'] },
  { field: 'vprScore', headers: ['Vulnerability Priority Rating', 'VPR', 'VPR Score'] },
  { field: 'baseScore', headers: ['CVSS V2 Base Score', 'CVSS Base Score', 'CVSS', 'CVSS v2.0 Base Score', 'CVSS2 Base Score'] },
  { field: 'cvssV3BaseScore', headers: ['CVSS V3 Base Score', 'CVSS v3.0 Base Score', 'CVSS3 Base Score', 'CVSSv3'] },
  { field: 'epssScore', headers: ['EPSS Score', 'EPSS'] },
  { field: 'cve', headers: ['CVE', 'CVEs'] },
  { field: 'xref', headers: ['Cross References', 'XREF', 'Cross Reference'] },
  { field: 'firstSeen', headers: ['First Discovered', 'First Seen', 'First Found'] },
  { field: 'lastSeen', headers: ['Last Observed', 'Last Seen', 'Last Found'] },
  { field: 'operatingSystem', headers: ['Operating System', 'OS'] },
  { field: 'pluginType', headers: ['Plugin Type'] },
  { field: 'uuid', headers: ['Agent ID', 'Agent UUID'] },
  { field: 'hostUUID', headers: ['Host ID', 'Host UUID'] },
];

export const HOST_COLUMNS: ColumnDef[] = [
  { field: 'ip', headers: ['IP Address', 'IP', 'IPv4', 'IPv4 Address', 'IP Addresses', 'Host IP'] },
  { field: 'dnsName', headers: ['DNS Name', 'DNS', 'FQDN', 'Hostname', 'Host Name', 'Name'] },
  { field: 'netbiosName', headers: ['NetBIOS Name', 'NetBIOS'] },
  { field: 'os', headers: ['OS', 'Operating System', 'Operating Systems'] },
  { field: 'osCpe', headers: ['OS CPE'] },
  { field: 'macAddress', headers: ['MAC Address', 'MAC', 'MAC Addresses'] },
  { field: 'uuid', headers: ['UUID', 'Host UUID', 'Tenable UUID', 'Host ID', 'Asset UUID', 'Agent UUID'] },
  { field: 'lastSeen', headers: ['Last Seen', 'Last Observed', 'Last Scan', 'Last Scanned', 'Last Scan Time'] },
  { field: 'firstSeen', headers: ['First Seen', 'First Discovered'] },
  { field: 'repository', headers: ['Repository', 'Repository Name'] },
  { field: 'systemType', headers: ['System Type'] },
  { field: 'source', headers: ['Source'] },
  { field: 'acr', headers: ['ACR', 'Asset Criticality Rating'] },
  { field: 'aes', headers: ['AES', 'Asset Exposure Score'] },
];

const SEVERITY_WORDS: Record<string, string> = { info: '0', informational: '0', none: '0', low: '1', medium: '2', moderate: '2', high: '3', critical: '4' };

export function severityId(v: string): string | null {
  const s = v.trim().toLowerCase();
  if (/^[0-4]$/.test(s)) return s;
  return SEVERITY_WORDS[s] ?? null;
}

/** The cell without the literal `Plugin Output: ` prefix SC puts in front of the text. */
export function stripPluginOutputPrefix(v: string): string {
  return v.replace(/^\s*Plugin (?:Output|Text):[ \t]*/i, '');
}

function need(row: CsvRow, field: string, header: string): string {
  const v = row.get(field);
  if (!v) throw new RowError(`${header} is empty`);
  return v;
}

/** Dates repeat a lot in an export (one scan, many rows): parsed ones are remembered (bounded), as epoch seconds. */
const dateCache = new Map<string, string | null>();

/** An export date as epoch seconds (the API mode's wire form, text); a text that is no date rejects the row. */
function epochOf(row: CsvRow, field: string, header: string): string | undefined {
  const raw = row.get(field);
  if (raw === undefined || raw === null) return undefined;
  let epoch = dateCache.get(raw);
  if (epoch === undefined) {
    const ms = parseDateMs(raw);
    if (ms === undefined) throw new RowError(`${header} '${raw}' is not a date this import reads (e.g. Feb 9, 2024 10:48:42 UTC)`);
    epoch = ms === null ? null : String(Math.floor(ms / 1000));
    if (dateCache.size >= 4096) dateCache.clear();
    dateCache.set(raw, epoch);
  }
  return epoch ?? undefined;
}

/** A CSV row as a `vulndetails` row (string values, {name} objects), validated. */
export function vulndetailsRowOf(row: CsvRow): Record<string, unknown> {
  const pluginID = need(row, 'pluginID', 'Plugin');
  if (!/^\d+$/.test(pluginID)) throw new RowError(`Plugin '${pluginID}' is not a plugin id (a number)`);
  const ip = need(row, 'ip', 'IP Address');
  if (!isIP(ip)) throw new RowError(`IP Address '${shown(ip)}' is not an IPv4 or IPv6 address`);
  const sevText = need(row, 'severity', 'Severity');
  const sev = severityId(sevText);
  if (sev === null) throw new RowError(`Severity '${sevText}' is not one of Info, Low, Medium, High, Critical`);
  const portText = row.get('port');
  if (portText && !(/^\d+$/.test(portText) && Number(portText) <= 65535)) throw new RowError(`Port '${portText}' is not a port number`);
  const r: Record<string, unknown> = {
    pluginID,
    severity: sev,
    ip,
    port: portText ?? '0',
    protocol: row.get('protocol') ?? '',
  };
  const copy = (field: string, to = field) => {
    const v = row.get(field);
    if (v) r[to] = v;
  };
  copy('pluginName');
  copy('dnsName');
  copy('netbiosName');
  copy('macAddress');
  copy('cve');
  copy('xref');
  copy('baseScore');
  copy('cvssV3BaseScore');
  copy('vprScore');
  copy('epssScore');
  copy('operatingSystem');
  copy('pluginType');
  copy('solution');
  copy('synopsis');
  copy('exploitAvailable');
  const uuid = row.get('uuid');
  const hostUuid = row.get('hostUUID');
  if (uuid) r.uuid = uuid;
  if (hostUuid) r.hostUUID = hostUuid;
  const fam = row.get('family');
  if (fam) r.family = { name: fam };
  const repo = row.get('repository');
  if (repo) {
    // The export names the repository; its name takes the place of the id in the address key.
    r.repository = { name: repo };
    r.repositoryID = repo;
  }
  const text = row.raw('pluginText');
  if (text) r.pluginText = detach(stripPluginOutputPrefix(text));
  // The API mode's wire form (epoch seconds) for the mappers.
  const first = epochOf(row, 'firstSeen', 'First Discovered');
  const last = epochOf(row, 'lastSeen', 'Last Observed');
  if (first) r.firstSeen = first;
  if (last) r.lastSeen = last;
  return r;
}

/** Index of the hosts a vulnerability export named, so a Host Assets row finds the same host record. */
type HostIndex = Map<string, string | null>;
const INDEX = 'tenable-sc:host-index';

function indexOf(shared: Map<string, unknown>): HostIndex {
  let idx = shared.get(INDEX) as HostIndex | undefined;
  if (!idx) {
    idx = new Map();
    shared.set(INDEX, idx);
  }
  return idx;
}

function remember(idx: HostIndex, k: string, hostKeyValue: string): void {
  const old = idx.get(k);
  if (old === undefined) idx.set(k, hostKeyValue);
  else if (old !== null && old !== hostKeyValue) idx.set(k, null); // ambiguous (same address in two repositories)
}

function vulnMapper(includeInformational: boolean, shared: Map<string, unknown>): RowMapper {
  const idx = indexOf(shared);
  /** Per host: what was last emitted for it in this file, so a host's 50 rows write it once (or when it changes). */
  const emitted = new Map<string, { sig: string; last: number }>();
  return {
    map(row, add) {
      const r = vulndetailsRowOf(row);
      const out = mapVulndetailsRow(r, { sourceType: 'cumulative', includeInformational });
      for (const [model, recs] of Object.entries(out)) for (const rec of recs ?? []) add(model as 'hosts', rec);
      const key = rowHostKey(r);
      const lastEpoch = typeof r.lastSeen === 'string' ? Number(r.lastSeen) : 0;
      const sig = `${r.ip}|${r.macAddress ?? ''}|${r.dnsName ?? ''}|${r.netbiosName ?? ''}|${r.operatingSystem ?? ''}`;
      const prev = emitted.get(key);
      if (prev && prev.sig === sig && prev.last >= lastEpoch) return;
      const last = prev && prev.last > lastEpoch ? prev.last : lastEpoch;
      emitted.set(key, { sig, last });
      if (!prev) {
        remember(idx, `${r.ip}|${String(r.dnsName ?? '').toLowerCase()}`, key);
        remember(idx, String(r.ip), key);
      }
      const host = hostFromFindingRow(r);
      const names = hostNames(r.dnsName, r.netbiosName);
      if (names.hostname) host.fields.hostname = names.hostname;
      if (names.fqdn) host.fields.fqdn = names.fqdn;
      if (last) host.fields.scannerLastSeen = new Date(last * 1000).toISOString();
      add('hosts', host);
    },
  };
}

function hostAssetMapper(shared: Map<string, unknown>): RowMapper {
  const idx = indexOf(shared);
  return {
    map(row, add) {
      const ips = ipAddressesOf(row.get('ip'), 'IP Address');
      const uuid = row.get('uuid') ?? null;
      if (ips.length === 0 && !uuid) throw new RowError('IP Address is empty (a host needs an address or a UUID)');
      const ip = ips[0] ?? '';
      let dns = row.get('dnsName') ?? '';
      if (dns === ip) dns = '';
      const repo = row.get('repository') ?? '';
      const byName = idx.get(`${ip}|${dns.toLowerCase()}`);
      const known = byName !== undefined ? byName : idx.get(ip);
      // The host a vulnerability export named at this address (unambiguous, same repository if named).
      const key = known && (!repo || known.startsWith(`addr:${repo}|`) || known.startsWith('uuid:')) ? known : hostKey({ uuid, repositoryId: repo, ip, dnsName: dns });
      const fields: Record<string, unknown> = {};
      if (ips.length) fields.ipAddresses = ips;
      const m = macs(row.get('macAddress'));
      if (m.length) fields.macAddresses = m;
      const netbios = row.get('netbiosName');
      if (netbios) fields.netbiosName = netbios;
      const names = hostNames(dns, netbios);
      if (names.hostname) fields.hostname = names.hostname;
      if (names.fqdn) fields.fqdn = names.fqdn;
      const os = row.get('os') ?? osFromCpe(row.get('osCpe'));
      if (os) fields.os = os;
      if (repo) fields.repository = repo;
      const lastRaw = row.get('lastSeen');
      if (lastRaw) {
        const last = parseDate(lastRaw);
        if (last === undefined) throw new RowError(`Last Seen '${lastRaw}' is not a date this import reads`);
        if (last) fields.scannerLastSeen = last;
      }
      const rec: IncomingRecord = { key, fields };
      if (uuid) rec.externalId = uuid.toLowerCase();
      add('hosts', rec);
    },
  };
}

export function tenableScFileKinds(opts: { includeInformational: boolean }): FileKind[] {
  return [
    {
      name: 'vulnerability-detail-list',
      label: 'Vulnerability Detail List',
      columns: VULN_COLUMNS,
      required: ['pluginID', 'ip', 'severity'],
      signature: ['pluginID', 'pluginName', 'severity', 'ip', 'port', 'protocol', 'pluginText', 'family', 'cve'],
      minSignature: 3,
      writes: ['hosts', 'software', 'ports', 'vulnerabilities', 'compliance'],
      group: 'scan',
      sweeps: ['hosts', 'software', 'ports', 'vulnerabilities', 'compliance'],
      mapper: (shared) => vulnMapper(opts.includeInformational, shared),
    },
    {
      name: 'host-assets',
      label: 'Host Assets',
      columns: HOST_COLUMNS,
      required: ['ip|uuid'],
      signature: ['ip', 'dnsName', 'netbiosName', 'os', 'osCpe', 'macAddress', 'uuid', 'lastSeen', 'repository', 'systemType', 'acr', 'aes'],
      minSignature: 2,
      excludes: ['Plugin', 'Plugin ID', 'Plugin Name', 'Severity'],
      writes: ['hosts'],
      group: 'scan',
      // Hosts are swept with the vulnerability snapshot (this file is re-read with it), never by a host list alone.
      sweeps: [],
      mapper: (shared) => hostAssetMapper(shared),
    },
  ];
}
