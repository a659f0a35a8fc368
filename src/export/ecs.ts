// Elastic Common Schema mapping (NDJSON for Elasticsearch's _bulk API): findings as vulnerability
// state documents (`vulnerability.*`, `resource.*`, `host.*`: what Elastic Security's vulnerability
// findings page reads), hosts and assets as host documents, software as `package.*`, compliance
// results as `rule.*` with an outcome. Values only the upstream has go under its one namespace
// (e.g. `tenable.*`); our record id is `event.id` and the bulk `_id`.
import type { ConnectorProduct } from '../core/connector.ts';
import { bool, compact, dnsName, domainOf, ipAddresses, list, macAddresses, num, perRecord, type Rec, str } from './values.ts';

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
