// Tenable.sc CSV exports: the Vulnerability Detail List (one row per finding per host) and the Host
// Assets list. Rows are turned into the `vulndetails` row shape the API mode reads, then mapped by the
// same pure mappers, so file mode yields the same models, keys and lifecycle.
import { addAll, type FieldsOf, type RecordOf } from '../../../core/models.ts';
import { isIP } from 'node:net';
import { type ColumnDef, type CsvRow, detach, type FileKind, ipAddressesOf, RowError, type RowMapper, shown } from '../../../filedrop/csv/columns.ts';
import { parseDate, parseDateMs } from '../../../filedrop/csv/dates.ts';
import { scoreOf } from '../map/host-fields.ts';
import { type HostIds, HostResolver, netbiosOf, splitRowFacts } from '../map/host-resolver.ts';
import { hostKey } from '../map/identity.ts';
import { hostNames, osFromCpe } from '../map/sumip.ts';
import { macs, remembered } from '../map/values.ts';
import { type DetailOptions, mapPlugin } from '../map/plugins.ts';
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
  // Plugin detail (plugins.ts); dates that are no date ("N/A") are left out, never reject the row.
  { field: 'exploitFrameworks', headers: ['Exploit Frameworks'] },
  { field: 'cvssVector', headers: ['CVSS V2 Vector'] },
  { field: 'cvssV3Vector', headers: ['CVSS V3 Vector'] },
  { field: 'cvssV4BaseScore', headers: ['CVSS V4 Base Score'] },
  { field: 'cvssV4Vector', headers: ['CVSS V4 Vector'] },
  { field: 'vulnPubDate', headers: ['Vuln Publication Date', 'Vulnerability Publication Date'] },
  { field: 'patchPubDate', headers: ['Patch Publication Date'] },
  { field: 'pluginPubDate', headers: ['Plugin Publication Date'] },
  { field: 'pluginModDate', headers: ['Plugin Modification Date'] },
  { field: 'checkType', headers: ['Check Type'] },
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
  const epoch = remembered(dateCache, raw, 4096, (text) => {
    const ms = parseDateMs(text);
    if (ms === undefined) throw new RowError(`${header} '${text}' is not a date this import reads (e.g. Feb 9, 2024 10:48:42 UTC)`);
    return ms === null ? null : String(Math.floor(ms / 1000));
  });
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
  for (const f of ['description', 'seeAlso', 'riskFactor', 'exploitFrameworks', 'cvssVector', 'cvssV3Vector', 'cvssV4BaseScore', 'cvssV4Vector', 'checkType'])
    copy(f);
  for (const f of ['vulnPubDate', 'patchPubDate', 'pluginPubDate', 'pluginModDate']) {
    const ms = parseDateMs(row.get(f));
    if (typeof ms === 'number') r[f] = String(Math.floor(ms / 1000));
  }
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

/** The host resolver the kinds' mappers share (seeded with the stored hosts by the stream's `prepare`). */
export const HOST_RESOLVER = 'tenable-sc:host-resolver';

function resolverOf(shared: Map<string, unknown>): HostResolver {
  let r = shared.get(HOST_RESOLVER) as HostResolver | undefined;
  if (!r) {
    r = new HostResolver();
    shared.set(HOST_RESOLVER, r);
  }
  return r;
}

function vulnMapper(opts: FileKindOptions, shared: Map<string, unknown>): RowMapper {
  const resolver = resolverOf(shared);
  /** Per plugin, the CVE cells its record was written with: written again only for a new one (an export may write a finding as one row per CVE; the store unites them). */
  const pluginsSeen = new Map<string, Set<string>>();
  /** Per host: what was last emitted for it in this file, so a host's 50 rows write it once (or when it changes). */
  const emitted = new Map<string, { sig: string; last: number }>();
  const dropHost = (): void => {};
  return {
    map(row, add) {
      const r = vulndetailsRowOf(row);
      // The host record is written below (once per host and change), so the resolver's own is dropped.
      const key = resolver.rowHost(r, dropHost);
      const out = mapVulndetailsRow(r, { sourceType: 'cumulative', ...opts, file: true, hostKey: key });
      addAll(out, add);
      if (out.vulnerabilities) {
        const cves = pluginsSeen.get(r.pluginID as string) ?? new Set<string>();
        const cell = String(r.cve ?? '');
        if (cves.size === 0 || !cves.has(cell)) {
          if (cves.size < 64) cves.add(cell);
          pluginsSeen.set(r.pluginID as string, cves);
          add('plugins', mapPlugin(r));
        }
      }
      const lastEpoch = typeof r.lastSeen === 'string' ? Number(r.lastSeen) : 0;
      const sig = `${r.ip}|${r.macAddress ?? ''}|${r.dnsName ?? ''}|${r.netbiosName ?? ''}|${r.operatingSystem ?? ''}|${r.uuid ?? ''}|${r.hostUUID ?? ''}`;
      const prev = emitted.get(key);
      if (prev && prev.sig === sig && prev.last >= lastEpoch) return;
      const last = prev && prev.last > lastEpoch ? prev.last : lastEpoch;
      emitted.set(key, { sig, last });
      const host = hostFromFindingRow(r, key);
      // One machine at several addresses (Tenable's asset tracking: MAC, NetBIOS name…) keeps them all.
      const ips = resolver.addressesOf(key);
      if (ips.length > 1) host.fields.ipAddresses = ips;
      host.fields.scannerLastSeen = last ? new Date(last * 1000).toISOString() : undefined;
      for (const r of splitRowFacts(host)) add('hosts', r);
    },
  };
}

function hostAssetMapper(shared: Map<string, unknown>): RowMapper {
  const resolver = resolverOf(shared);
  return {
    map(row, add) {
      const ips = ipAddressesOf(row.get('ip'), 'IP Address');
      const uuid = row.get('uuid')?.toLowerCase() ?? null;
      if (ips.length === 0 && !uuid) throw new RowError('IP Address is empty (a host needs an address or a UUID)');
      const ip = ips[0] ?? '';
      let dns = row.get('dnsName') ?? '';
      if (dns === ip) dns = '';
      const repo = row.get('repository') ?? '';
      const netbios = row.get('netbiosName');
      const m = macs(row.get('macAddress'));
      const names = hostNames(dns, netbios);
      const ids: HostIds = { scope: repo, macs: m, netbios: netbiosOf(netbios), fqdn: hostNames(dns, null).fqdn, ips };
      // The export's UUID column may be the host's own id (SC 6.x) or its Tenable UUID: whichever a
      // known host has; else taken as the Tenable UUID.
      let uuidKind: 'hostUuid' | 'tenableUuid' | null = null;
      if (uuid) uuidKind = resolver.find({ scope: repo, hostUuid: uuid }) ? 'hostUuid' : 'tenableUuid';
      if (uuidKind) ids[uuidKind] = uuid;
      const { key } = resolver.resolve(ids, hostKey({ uuid, repositoryId: repo, ip, dnsName: dns }));
      const fields: FieldsOf<'hosts'> = {};
      if (ips.length) fields.ipAddresses = ips;
      if (m.length) fields.macAddresses = m;
      if (netbios) fields.netbiosName = netbios;
      if (names.hostname) fields.hostname = names.hostname;
      if (names.fqdn) fields.fqdn = names.fqdn;
      const os = row.get('os') ?? osFromCpe(row.get('osCpe'));
      if (os) fields.os = os;
      if (repo) fields.repository = repo;
      if (uuidKind && uuid) fields[uuidKind] = uuid;
      const acr = scoreOf(row.get('acr'));
      if (acr !== null) fields.acrScore = acr;
      const aes = scoreOf(row.get('aes'));
      if (aes !== null) fields.aesScore = aes;
      const lastRaw = row.get('lastSeen');
      if (lastRaw) {
        const last = parseDate(lastRaw);
        if (last === undefined) throw new RowError(`Last Seen '${lastRaw}' is not a date this import reads`);
        if (last) fields.scannerLastSeen = last;
      }
      const rec: RecordOf<'hosts'> = { key, fields };
      if (uuid) rec.externalId = uuid;
      resolver.noteFacts(key, fields);
      add('hosts', rec);
    },
  };
}

export type FileKindOptions = { includeInformational: boolean } & DetailOptions;

export function tenableScFileKinds(opts: FileKindOptions): FileKind[] {
  return [
    {
      name: 'vulnerability-detail-list',
      label: 'Vulnerability Detail List',
      columns: VULN_COLUMNS,
      required: ['pluginID', 'ip', 'severity'],
      signature: ['pluginID', 'pluginName', 'severity', 'ip', 'port', 'protocol', 'pluginText', 'family', 'cve'],
      minSignature: 3,
      writes: ['hosts', 'software', 'ports', 'vulnerabilities', 'compliance', 'plugins'],
      group: 'scan',
      hostIndex: true,
      // Plugins are a catalog: an export that no longer names one leaves its record as it is.
      sweeps: ['hosts', 'software', 'ports', 'vulnerabilities', 'compliance'],
      // An export covers the repositories its rows name (a team may export per repository).
      scope: { hostField: 'repository', column: 'repository', of: (row) => row.get('repository') },
      mapper: (shared) => vulnMapper(opts, shared),
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
      // A host list is the state of its scope's hosts: a host it lacks is removed.
      sweeps: ['hosts'],
      scope: { hostField: 'repository', column: 'repository', of: (row) => row.get('repository') },
      mapper: (shared) => hostAssetMapper(shared),
    },
  ];
}
