// The JSON text of the two formats a finding export is mostly made of (OCSF Vulnerability Finding, ECS
// vulnerability document), built as text from the stored record without the intermediate event objects
// ocsf.ts and ecs.ts build (and compact): at a million findings those objects were half the export's
// CPU time and most of its garbage. The same values and rules as the object mappers, which stay the
// reference: test/export/json-fast.test.ts checks both give the same JSON for every kind of finding.
// Absent values (null, empty lists, empty objects) are left out, as compact() leaves them out.
import type { ConnectorProduct } from '../core/connector.ts';
import { ECS_VERSION, ecsHostFields } from './ecs.ts';
import { eventTime, findingLifecycle, type OcsfOptions, ocsfDevice, SEVERITY_ID } from './ocsf.ts';
import { bool, compact, epochMs, list, num, type Rec, SEVERITY_CAPTION, sharedJson, str } from './values.ts';

const q = JSON.stringify;

/** `,"key":value` for a present string, number or boolean; '' when absent. */
function f(key: string, v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '';
  return `,"${key}":${typeof v === 'string' ? q(v) : v}`;
}

/** A list field's strings (list() without its copies when the stored list is already clean). */
function strings(rec: Rec, field: string): string[] {
  const v = rec[field];
  if (!Array.isArray(v)) return [];
  for (const x of v) if (typeof x !== 'string' || x === '') return list(rec, field);
  return v as string[];
}

/** The `cvss` array's JSON (cvssList's entries): v3 then v2, with the vector where the record has one. */
function cvssJson(rec: Rec, v3: number | null, v2: number | null): string {
  let out = '';
  if (v3 !== null) {
    const vector = str(rec, 'cvssV3Vector');
    const version = (vector && /^CVSS:(3\.[01])\//.exec(vector)?.[1]) || '3.0';
    out = `{"version":"${version}","base_score":${v3}${f('vector_string', vector)}}`;
  }
  if (v2 !== null) out += `${out ? ',' : ''}{"version":"2.0","base_score":${v2}${f('vector_string', str(rec, 'cvssV2Vector'))}}`;
  return out;
}

/** `,"key":[…]` for a non-empty list of strings. */
function fl(key: string, v: string[]): string {
  return v.length ? `,"${key}":${q(v)}` : '';
}

/** `,"key":{…}` for an object (free-form upstream JSON) that is not empty once compacted. */
function fo(key: string, v: unknown): string {
  if (v === null || v === undefined || typeof v !== 'object') return '';
  const c = compact(v);
  if (Array.isArray(c) ? c.length === 0 : Object.keys(c as object).length === 0) return '';
  return `,"${key}":${q(c)}`;
}

/** `,"key":{body}` where body is a list of `,"k":v` fields (its leading comma dropped); '' when empty. */
function group(key: string, body: string): string {
  return body ? `,"${key}":{${body.slice(1)}}` : '';
}

/** JSON of a part: shared (frozen) parts are stringified once. */
function partJson(v: object): string {
  return Object.isFrozen(v) ? sharedJson(v) : q(v);
}

const SEVERITY_NAME = ['Unknown', 'Informational', 'Low', 'Medium', 'High', 'Critical'];
const heads = new Map<string, string>();

/** The classification attributes of a Vulnerability Finding (the same for every event of an activity and severity). */
function findingHead(activity: [number, string], severityId: number): string {
  const k = `${activity[0]}|${severityId}`;
  let h = heads.get(k);
  if (h === undefined) {
    h = `{"activity_id":${activity[0]},"activity_name":${q(activity[1])},"category_uid":2,"category_name":"Findings","class_uid":2002,"class_name":"Vulnerability Finding","type_uid":${2002 * 100 + activity[0]},"type_name":${q(`Vulnerability Finding: ${activity[1]}`)},"severity_id":${severityId},"severity":${q(SEVERITY_NAME[severityId])}`;
    heads.set(k, h);
  }
  return h;
}

/** A finding as an OCSF Vulnerability Finding (2002): the JSON of ocsf.ts ocsfVulnerabilityFinding. */
export function ocsfVulnerabilityJson(rec: Rec, host: Rec | null, o: OcsfOptions): string {
  const life = findingLifecycle(rec);
  const severity = str(rec, 'severity') ?? 'info';
  const pluginId = str(rec, 'pluginId');
  const title = str(rec, 'pluginName') ?? (pluginId ? `Plugin ${pluginId}` : 'Finding');
  const first = epochMs(str(rec, 'firstSeen'));
  const last = epochMs(str(rec, 'lastSeen'));
  const solution = str(rec, 'solution');
  const synopsis = str(rec, 'synopsis');
  const epssScore = num(rec, 'epssScore');
  const cves = strings(rec, 'cves');
  const id = str(rec, 'id');
  const source = str(rec, 'source');
  const family = str(rec, 'pluginFamily');
  const cvss = cvssJson(rec, num(rec, 'cvssV3BaseScore'), num(rec, 'cvssV2BaseScore'));
  let cveTail = '';
  if (cvss) cveTail += `,"cvss":[${cvss}]`;
  if (epssScore !== null && cves.length) cveTail += `,"epss":{"score":${q(String(epssScore))}${f('percentile', num(rec, 'epssPercentile'))}}`;
  const vulnTail = `}${f('title', title)}${f('desc', synopsis)}${f('severity', SEVERITY_CAPTION[severity])}${f('first_seen_time', first)}${f('last_seen_time', last)}${f('is_exploit_available', bool(rec, 'exploitAvailable'))}${solution ? `,"remediation":{"desc":${q(solution)}}` : ''}${f('vendor_name', o.product.vendor)}}`;
  const ids = cves.length ? cves : [`${o.product.namespace.toUpperCase()}-PLUGIN-${pluginId ?? 'UNKNOWN'}`];
  let vulns = '';
  for (const uid of ids) vulns += `${vulns ? ',' : ''}{"cve":{"uid":${q(uid)}${cveTail}${vulnTail}`;
  const device = ocsfDevice(host, o, { owner: str(rec, 'owner'), fallbackUid: str(rec, 'hostId') });
  const unmapped =
    f('source', source) +
    f('pluginId', pluginId) +
    f('port', num(rec, 'port')) +
    f('protocol', str(rec, 'protocol')) +
    f('vprScore', num(rec, 'vprScore')) +
    fo('vprKeyDrivers', rec.vprKeyDrivers) +
    f('vulnUniqueness', str(rec, 'vulnUniqueness')) +
    f('seolDate', str(rec, 'seolDate')) +
    f('epssScore', cves.length ? null : epssScore) +
    f('knownExploited', bool(rec, 'knownExploited')) +
    f('kevDateAdded', str(rec, 'kevDateAdded')) +
    f('kevDueDate', str(rec, 'kevDueDate')) +
    f('dueAt', str(rec, 'dueAt')) +
    f('overdue', bool(rec, 'overdue')) +
    f('acceptedRisk', bool(rec, 'acceptedRisk')) +
    f('recastRisk', bool(rec, 'recastRisk')) +
    f('fixedAt', str(rec, 'fixedAt')) +
    f('reopenedAt', str(rec, 'reopenedAt')) +
    f('proof', str(rec, 'proof')) +
    f('proofTruncated', bool(rec, 'proofTruncated')) +
    fl('ticketIds', strings(rec, 'ticketIds')) +
    f('assetId', str(rec, 'assetId')) +
    f('owner', o.version === '1.1.0' ? str(rec, 'owner') : null) +
    f('department', str(rec, 'department')) +
    f('status', str(rec, 'status'));
  const findingInfo =
    f('uid', id) +
    f('title', title) +
    f('desc', synopsis) +
    (family ? `,"types":[${q(family)}]` : '') +
    f('first_seen_time', first) +
    f('last_seen_time', last) +
    f('modified_time', epochMs(str(rec, 'reopenedAt') ?? str(rec, 'fixedAt')));
  return `${findingHead(life.activity, SEVERITY_ID[severity] ?? 0)},"time":${last ?? first ?? eventTime(rec)},"message":${q(title)},"status_id":${life.statusId},"status":${q(life.status)},"metadata":{"version":${q(o.version)}${f('uid', id)},"product":{"vendor_name":${q(o.product.vendor)},"name":${q(o.product.name)}}${f('log_name', source)}}${group('finding_info', findingInfo)},"vulnerabilities":[${vulns}],"device":${partJson(device)}${group('unmapped', unmapped)}}`;
}

/** A finding as an ECS vulnerability document: the JSON of ecs.ts ecsVulnerability. */
export function ecsVulnerabilityJson(rec: Rec, host: Rec | null, product: ConnectorProduct): string {
  const cves = strings(rec, 'cves');
  const pluginId = str(rec, 'pluginId');
  const v3 = num(rec, 'cvssV3BaseScore');
  const v2 = num(rec, 'cvssV2BaseScore');
  const severity = str(rec, 'severity');
  const family = str(rec, 'pluginFamily');
  const firstSeen = str(rec, 'firstSeen');
  const lastSeen = str(rec, 'lastSeen');
  const vulnId = cves.length === 1 ? q(cves[0]) : cves.length ? q(cves) : pluginId !== null ? q(pluginId) : null;
  const score =
    f('base', v3 ?? v2) + f('version', v3 !== null ? (/^CVSS:(3\.[01])\//.exec(str(rec, 'cvssV3Vector') ?? '')?.[1] ?? '3.0') : v2 !== null ? '2.0' : null);
  const vulnerability =
    (vulnId !== null ? `,"id":${vulnId}` : '') +
    f('enumeration', cves.length ? 'CVE' : product.namespace) +
    f('classification', v3 !== null || v2 !== null ? 'CVSS' : null) +
    (family ? `,"category":[${q(family)}]` : '') +
    f('severity', severity ? SEVERITY_CAPTION[severity] : null) +
    f('description', str(rec, 'synopsis') ?? str(rec, 'pluginName')) +
    group('score', score) +
    `,"scanner":{"vendor":${q(product.vendor)}}`;
  const hostFields = ecsHostFields(host, str(rec, 'hostId'));
  const ns =
    f('plugin_id', pluginId) +
    f('plugin_name', str(rec, 'pluginName')) +
    f('plugin_family', family) +
    f('status', str(rec, 'status')) +
    f('removed', rec.removed === true) +
    fl('cves', cves) +
    f('cvss_v2_base_score', v2) +
    f('cvss_v3_base_score', v3) +
    f('vpr_score', num(rec, 'vprScore')) +
    fo('vpr_key_drivers', rec.vprKeyDrivers) +
    f('vuln_uniqueness', str(rec, 'vulnUniqueness')) +
    f('seol_date', str(rec, 'seolDate')) +
    f('epss_score', num(rec, 'epssScore')) +
    f('epss_percentile', num(rec, 'epssPercentile')) +
    f('known_exploited', bool(rec, 'knownExploited')) +
    f('exploit_available', bool(rec, 'exploitAvailable')) +
    f('kev_date_added', str(rec, 'kevDateAdded')) +
    f('kev_due_date', str(rec, 'kevDueDate')) +
    f('accepted_risk', bool(rec, 'acceptedRisk')) +
    f('recast_risk', bool(rec, 'recastRisk')) +
    f('first_seen', firstSeen) +
    f('last_seen', lastSeen) +
    f('fixed_at', str(rec, 'fixedAt')) +
    f('reopened_at', str(rec, 'reopenedAt')) +
    f('due_at', str(rec, 'dueAt')) +
    f('overdue', bool(rec, 'overdue')) +
    f('port', num(rec, 'port')) +
    f('protocol', str(rec, 'protocol')) +
    f('synopsis', str(rec, 'synopsis')) +
    f('solution', str(rec, 'solution')) +
    f('proof', str(rec, 'proof')) +
    f('asset_id', str(rec, 'assetId')) +
    f('owner', str(rec, 'owner')) +
    f('department', str(rec, 'department'));
  const event = `{"kind":"state","category":["vulnerability"],"type":["info"]${f('id', str(rec, 'id'))},"dataset":"tributary.vulnerabilities"${f('start', firstSeen)}}`;
  const observer = `{"vendor":${q(product.vendor)},"product":${q(product.name)}${f('name', str(rec, 'source'))}}`;
  const head = f('@timestamp', lastSeen ?? firstSeen);
  return `{${head ? `${head.slice(1)},` : ''}"ecs":{"version":"${ECS_VERSION}"},"event":${event},"observer":${observer}${group('vulnerability', vulnerability)}${hostFields ? `,"host":${partJson(hostFields)}` : ''}${group(product.namespace, ns)}}`;
}
