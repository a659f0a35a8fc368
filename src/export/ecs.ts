// Elastic Common Schema mapping (NDJSON for Elasticsearch's _bulk API): findings as vulnerability
// state documents (`vulnerability.*`, `resource.*`, `host.*`: what Elastic Security's vulnerability
// findings page reads), hosts and assets as host documents, software as `package.*`, compliance
// results as `rule.*` with an outcome. Values only the upstream has go under its one namespace
// (e.g. `tenable.*`); our record id is `event.id` and the bulk `_id`.
import type { ConnectorProduct } from '../core/connector.ts';
import { bool, compact, cvssV3Version, dnsName, domainOf, findingTitle, ipAddresses, list, macAddresses, num, perRecord, type Rec, str } from './values.ts';

export const ECS_VERSION = '8.17.0';

type Doc = Record<string, unknown>;

/** `host.*` of a machine record (host, CMDB asset or correlated asset). */
export function ecsHostFields(machine: Rec | null, fallbackId: string | null = null): Doc | null {
  if (!machine) return fallbackId ? { id: fallbackId } : null;
  return hostFieldsOf(machine);
}

const hostFieldsOf = perRecord((machine) => compact(buildHostFields(machine)));

function buildHostFields(machine: Rec): Doc {
  const fqdn = str(machine, 'fqdn');
  const short = str(machine, 'hostname') ?? str(machine, 'netbiosName') ?? list(machine, 'hostnames')[0] ?? str(machine, 'name');
  const ips = ipAddresses(machine);
  return {
    id: str(machine, 'id'),
    name: short ?? fqdn ?? ips[0] ?? null,
    hostname: dnsName(short) ?? short,
    domain: domainOf(fqdn),
    ip: ips,
    // ECS spells MAC addresses as uppercase pairs separated by hyphens.
    mac: macAddresses(machine, 'macAddresses', '-').map((m) => m.toUpperCase()),
    os: { full: str(machine, 'os') },
  };
}

function base(rec: Rec, category: string, product: ConnectorProduct, model: string): Doc {
  return {
    '@timestamp': str(rec, 'lastSeen') ?? str(rec, 'firstSeen'),
    ecs: { version: ECS_VERSION },
    event: { kind: 'state', category: [category], type: ['info'], id: str(rec, 'id'), dataset: `tributary.${model}`, start: str(rec, 'firstSeen') },
    observer: { vendor: product.vendor, product: product.name, name: str(rec, 'source') },
  };
}

/** What a machine record has beyond ECS `host.*` (in host documents; findings carry `host.*` only). */
const extrasOf = perRecord((machine) =>
  compact({
    host_uuid: str(machine, 'hostUuid'),
    uuid: str(machine, 'tenableUuid'),
    bios_uuid: str(machine, 'biosUuid'),
    acr_score: num(machine, 'acrScore'),
    aes_score: num(machine, 'aesScore'),
    netbios_name: str(machine, 'netbiosName'),
    manufacturer: str(machine, 'manufacturer'),
    model: str(machine, 'model'),
    serial_number: str(machine, 'serialNumber'),
    last_logged_on_user: str(machine, 'lastLoggedOnUser'),
    repository: str(machine, 'repository'),
    credentialed: bool(machine, 'credentialed'),
    scanner_last_seen: str(machine, 'scannerLastSeen'),
  }),
);

/**
 * `vulnerability.severity` as Elastic Security reads it: Kibana's vulnerability pages know LOW, MEDIUM,
 * HIGH, CRITICAL and UNKNOWN (VULNERABILITIES_SEVERITY in kbn-cloud-security-posture/common/constants.ts,
 * matched upper-cased by getNormalizedSeverity). Informational has no level there: it stays INFO, which
 * Kibana shows as it is, greyed like UNKNOWN, rather than a level that would say something else.
 */
export const ELASTIC_SEVERITY: Record<string, string> = { info: 'INFO', low: 'LOW', medium: 'MEDIUM', high: 'HIGH', critical: 'CRITICAL' };

/**
 * `resource.*` of a finding: the host it is on, by id and name. Not ECS: the fields Elastic Security's
 * vulnerability findings page reads to name what is affected (as its own integrations write them).
 */
export function ecsResource(host: Doc | null): Doc | null {
  if (host === null) return null;
  return host.name === undefined ? { id: host.id } : { id: host.id, name: host.name };
}

/**
 * A finding as an ECS vulnerability document, with the fields Elastic Security's vulnerability findings
 * page reads (Kibana's VULNERABILITY_FIELDS; test/export/ecs.test.ts lists them): ECS's and its own
 * `vulnerability.title` and `resource.*`. `package.*` would need the affected package, which a finding
 * does not carry; `cloud.*` does not apply to a scanned host.
 */
export function ecsVulnerability(rec: Rec, host: Rec | null, product: ConnectorProduct): Doc {
  const cves = list(rec, 'cves');
  const pluginId = str(rec, 'pluginId');
  const v3 = num(rec, 'cvssV3BaseScore');
  const v2 = num(rec, 'cvssV2BaseScore');
  const severity = str(rec, 'severity');
  const family = str(rec, 'pluginFamily');
  const hostFields = ecsHostFields(host, str(rec, 'hostId'));
  return compact({
    ...base(rec, 'vulnerability', product, 'vulnerabilities'),
    vulnerability: {
      // The CVE(s); a finding without one is named by its plugin, in the upstream's enumeration.
      id: cves.length === 1 ? cves[0] : cves.length ? cves : pluginId,
      title: findingTitle(str(rec, 'pluginName'), pluginId),
      enumeration: cves.length ? 'CVE' : product.namespace,
      classification: v3 !== null || v2 !== null ? 'CVSS' : null,
      category: family ? [family] : null,
      severity: severity ? ELASTIC_SEVERITY[severity] : null,
      description: str(rec, 'synopsis') ?? str(rec, 'pluginName'),
      score: { base: v3 ?? v2, version: v3 !== null ? cvssV3Version(str(rec, 'cvssV3Vector')) : v2 !== null ? '2.0' : null },
      scanner: { vendor: product.vendor },
    },
    resource: ecsResource(hostFields),
    host: hostFields,
    [product.namespace]: {
      plugin_id: pluginId,
      plugin_name: str(rec, 'pluginName'),
      plugin_family: family,
      status: str(rec, 'status'),
      removed: rec.removed === true,
      cves,
      cvss_v2_base_score: v2,
      cvss_v3_base_score: v3,
      vpr_score: num(rec, 'vprScore'),
      vpr_key_drivers: (rec.vprKeyDrivers as Record<string, unknown> | null | undefined) ?? null,
      vuln_uniqueness: str(rec, 'vulnUniqueness'),
      seol_date: str(rec, 'seolDate'),
      epss_score: num(rec, 'epssScore'),
      epss_percentile: num(rec, 'epssPercentile'),
      known_exploited: bool(rec, 'knownExploited'),
      known_exploited_by: str(rec, 'knownExploitedBy'),
      epss_source: str(rec, 'epssSource'),
      exploit_available: bool(rec, 'exploitAvailable'),
      kev_date_added: str(rec, 'kevDateAdded'),
      kev_due_date: str(rec, 'kevDueDate'),
      accepted_risk: bool(rec, 'acceptedRisk'),
      recast_risk: bool(rec, 'recastRisk'),
      first_seen: str(rec, 'firstSeen'),
      last_seen: str(rec, 'lastSeen'),
      fixed_at: str(rec, 'fixedAt'),
      reopened_at: str(rec, 'reopenedAt'),
      due_at: str(rec, 'dueAt'),
      overdue: bool(rec, 'overdue'),
      port: num(rec, 'port'),
      protocol: str(rec, 'protocol'),
      synopsis: str(rec, 'synopsis'),
      solution: str(rec, 'solution'),
      proof: str(rec, 'proof'),
      asset_id: str(rec, 'assetId'),
      owner: str(rec, 'owner'),
      department: str(rec, 'department'),
    },
  });
}

/** A host, CMDB asset or correlated asset as an ECS host document. */
export function ecsHost(rec: Rec, product: ConnectorProduct, model: string): Doc {
  return compact({
    ...base(rec, 'host', product, model),
    host: ecsHostFields(rec),
    [product.namespace]: {
      removed: rec.removed === true,
      ...extrasOf(rec),
      asset_tag: str(rec, 'assetTag'),
      state: str(rec, 'state'),
      product_type: str(rec, 'productType'),
      product: str(rec, 'product'),
      ci_type: str(rec, 'ciType'),
      assigned_user: str(rec, 'assignedUser'),
      owner: str(rec, 'owner'),
      department: str(rec, 'department'),
      site: str(rec, 'site'),
      host_ids: list(rec, 'hostIds'),
      cmdb_asset_ids: list(rec, 'cmdbAssetIds'),
    },
  });
}

/** Installed software as an ECS package document on its host. */
export function ecsPackage(rec: Rec, host: Rec | null, product: ConnectorProduct): Doc {
  return compact({
    ...base(rec, 'package', product, 'software'),
    package: { name: str(rec, 'name'), version: str(rec, 'version') },
    host: ecsHostFields(host, str(rec, 'hostId')),
    [product.namespace]: { removed: rec.removed === true },
  });
}

const OUTCOME: Record<string, string> = { passed: 'success', failed: 'failure' };

/** A compliance result as an ECS configuration document: the rule checked and its outcome. */
export function ecsCompliance(rec: Rec, host: Rec | null, product: ConnectorProduct): Doc {
  const result = str(rec, 'result');
  return compact({
    ...base(rec, 'configuration', product, 'compliance'),
    event: {
      kind: 'state',
      category: ['configuration'],
      type: ['info'],
      id: str(rec, 'id'),
      dataset: 'tributary.compliance',
      start: str(rec, 'firstSeen'),
      outcome: result ? (OUTCOME[result] ?? 'unknown') : null,
    },
    rule: { id: str(rec, 'ruleId'), name: str(rec, 'ruleName'), ruleset: str(rec, 'benchmark') },
    host: ecsHostFields(host, str(rec, 'hostId')),
    [product.namespace]: { result, removed: rec.removed === true },
  });
}

/** The `_bulk` action line before a document: index under our stable id, so a re-export updates. */
export function ecsBulkAction(id: string): string {
  return JSON.stringify({ index: { _id: id } });
}
