// The one mapping of a finding for its two export formats, OCSF Vulnerability Finding and ECS vulnerability
// document: written straight as JSON text from the stored record (the JSON exports' lines), and parsed
// back where an object is wanted (the OCSF Parquet encoder, tests). Building the events as objects and
// stringifying them was half the JSON export's CPU time at a million findings and most of its garbage,
// and two mappings kept equal only by a test; parsing the text costs the Parquet export little
// (docs/performance.md). Absent values (null, empty lists, empty objects) are left out, as compact()
// leaves them out of the other events.
//
// Why it is written this way (bench/export, per finding): fields are read by name (`rec.pluginId`, one
// cached property load) rather than by a key passed to a helper (a lookup that no inline cache can
// hold: 45 of them per finding); each field is one `',"key":' + value` with the key's text a constant;
// what is the same for every finding of an activity and severity, or of a product, is text made once.
import type { ConnectorProduct } from '../core/connector.ts';
import { ECS_VERSION, ELASTIC_SEVERITY, ecsHostFields, ecsResource } from './ecs.ts';
import { eventTime, LIFECYCLES, lifecycleOf, type OcsfOptions, ocsfDevice, SEVERITY_ID } from './ocsf.ts';
import { boolValue as b, compact, cvssV3Version, epochMs, findingTitle, numValue as n, SEVERITY_CAPTION, sharedJson, strValue as s } from './values.ts';

/** A stored record, its fields read by name. */
type Fields = Record<string, unknown>;

const q = JSON.stringify;

/** What JSON.stringify escapes in a string: quote, backslash, control characters, surrogates (when lone). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify of a string, without the call for the common string that needs no escape (~20 ns less a value). */
function quote(v: string): string {
  return NEEDS_ESCAPE.test(v) ? q(v) : `"${v}"`;
}

/** `prefix` (`,"key":`) and the JSON string of a present text value; '' when absent. */
function fs(prefix: string, v: string | null): string {
  return v === null ? '' : prefix + quote(v);
}

/** `prefix` (`,"key":`) and a present number or boolean; '' when absent. */
function fv(prefix: string, v: number | boolean | null): string {
  return v === null ? '' : prefix + v;
}

/** A list field's strings, null when none (list() without its copies when the stored list is already clean). */
function strings(v: unknown): string[] | null {
  if (!Array.isArray(v) || v.length === 0) return null;
  for (const x of v) {
    if (typeof x === 'string' && x !== '') continue;
    const clean = v.filter((y) => y !== null && y !== undefined && y !== '').map(String);
    return clean.length ? clean : null;
  }
  return v as string[];
}

/** `prefix` and a list of strings; '' when there are none. */
function fl(prefix: string, v: string[] | null): string {
  return v === null ? '' : prefix + q(v);
}

/** `prefix` and an object (free-form upstream JSON) that is not empty once compacted; '' otherwise. */
function fo(prefix: string, v: unknown): string {
  if (v === null || v === undefined || typeof v !== 'object') return '';
  const c = compact(v);
  if (Array.isArray(c) ? c.length === 0 : Object.keys(c as object).length === 0) return '';
  return prefix + q(c);
}

/** JSON of a part: shared (frozen) parts are stringified once. */
function partJson(v: object): string {
  return Object.isFrozen(v) ? sharedJson(v) : q(v);
}

/**
 * The JSON of a finding's host part (OCSF device, ECS host), remembered for the last host: a host's
 * findings come one after another (their ids start with the host's), so most findings reuse it.
 */
let lastHostPart: { host: Fields; format: string; owner: string | null; json: string } | null = null;

/** `make()`, the text of a host part of `format` (for a finding of `owner`), remembered for the last host. */
function hostPartJson(host: Fields, format: string, owner: string | null, make: () => string): string {
  const last = lastHostPart;
  if (last !== null && last.host === host && last.format === format && last.owner === owner) return last.json;
  const json = make();
  lastHostPart = { host, format, owner, json };
  return json;
}

/** Text made once per product (a WeakMap: a product object lives as long as its export). */
function perProduct<T>(make: (p: ConnectorProduct) => T): (p: ConnectorProduct) => T {
  const made = new WeakMap<ConnectorProduct, T>();
  return (p) => {
    let t = made.get(p);
    if (t === undefined) {
      t = make(p);
      made.set(p, t);
    }
    return t;
  };
}

const SEVERITY_NAME = ['Unknown', 'Informational', 'Low', 'Medium', 'High', 'Critical'];

/** ocsf.ts LIFECYCLES, with the status as JSON. */
const LIFECYCLE_JSON = Object.fromEntries(
  Object.entries(LIFECYCLES).map(([k, l]) => [k, { statusId: l.statusId, status: q(l.status), activityId: l.activity[0], activity: l.activity[1] }]),
) as Record<keyof typeof LIFECYCLES, { statusId: number; status: string; activityId: number; activity: string }>;

const heads = new Map<number, string>();

/** The classification attributes of a Vulnerability Finding, up to `"time":` (the same for every event of an activity and severity). */
function findingHead(activityId: number, activity: string, severityId: number): string {
  const k = activityId * 8 + severityId;
  let h = heads.get(k);
  if (h === undefined) {
    h = `{"activity_id":${activityId},"activity_name":${q(activity)},"category_uid":2,"category_name":"Findings","class_uid":2002,"class_name":"Vulnerability Finding","type_uid":${2002 * 100 + activityId},"type_name":${q(`Vulnerability Finding: ${activity}`)},"severity_id":${severityId},"severity":${q(SEVERITY_NAME[severityId])},"time":`;
    heads.set(k, h);
  }
  return h;
}

/** `,"analytic":…` of finding_info (ocsf.ts pluginAnalytic), '' when the plugin is unnamed. */
function analyticJson(pluginId: string | null, pluginName: string | null): string {
  if (pluginId === null && pluginName === null) return '';
  return `,"analytic":{${fs('"uid":', pluginId)}${pluginId !== null && pluginName !== null ? ',' : ''}${fs('"name":', pluginName)},"type_id":1,"type":"Rule"}`;
}

const ocsfProductText = perProduct((p) => ({
  /** `metadata.product`. */
  metadata: `,"product":{"vendor_name":${q(p.vendor)},"name":${q(p.name)}}`,
  /** The last attribute of each vulnerability, and its closing brace. */
  vulnerabilityEnd: `,"vendor_name":${q(p.vendor)}}`,
}));

/**
 * A finding as an OCSF Vulnerability Finding (2002), as JSON text. One vulnerability per CVE; a finding
 * without a CVE has one without a `cve` object (a made-up CVE id would pass for one in queries by CVE):
 * its plugin names it in the title and finding_info.analytic (type Rule), and its CVSS and EPSS go to
 * unmapped (OCSF 1.1/1.3 hold them only in `cve`). Fixed or removed is Resolved/Close, accepted risk
 * Suppressed/Update, reopened Reopened/Update, else New/Create (ocsf.ts lifecycleOf).
 */
export function ocsfVulnerabilityJson(rec: Fields, host: Fields | null, o: OcsfOptions): string {
  return vulnerabilityText(rec, host, o, false);
}

/** The text of ocsfVulnerabilityJson; with `deviceLeftOut` its `device` is `0`, for the caller to set as an object. */
function vulnerabilityText(rec: Fields, host: Fields | null, o: OcsfOptions, deviceLeftOut: boolean): string {
  const status = s(rec.status);
  const excepted = rec.excepted === true;
  const life = LIFECYCLE_JSON[lifecycleOf(status, rec.removed === true, rec.acceptedRisk === true || excepted)];
  const statusDetail = suppressionDetail(rec);
  const product = ocsfProductText(o.product);
  const severity = s(rec.severity) ?? 'info';
  const pluginId = s(rec.pluginId);
  const pluginName = s(rec.pluginName);
  const title = quote(findingTitle(pluginName, pluginId));
  const first = epochMs(s(rec.firstSeen));
  const last = epochMs(s(rec.lastSeen));
  const solution = s(rec.solution);
  const desc = fs(',"desc":', s(rec.synopsis));
  const epssScore = n(rec.epssScore);
  const cves = strings(rec.cves);
  const id = s(rec.id);
  const idJson = id === null ? '' : `,"uid":${quote(id)}`;
  const source = s(rec.source);
  const family = s(rec.pluginFamily);
  const v3 = n(rec.cvssV3BaseScore);
  const v2 = n(rec.cvssV2BaseScore);
  let cvss = '';
  if (v3 !== null) {
    const vector = s(rec.cvssV3Vector);
    cvss = `{"version":"${cvssV3Version(vector)}","base_score":${v3}${fs(',"vector_string":', vector)}}`;
  }
  if (v2 !== null) cvss += `${cvss ? ',' : ''}{"version":"2.0","base_score":${v2}${fs(',"vector_string":', s(rec.cvssV2Vector))}}`;
  const cvssJson = cvss ? `[${cvss}]` : '';
  // What follows each vulnerability's `cve.uid` (the same for all of a finding's CVEs); a finding without a CVE has no `cve`.
  let cveEnd = cvss ? `,"cvss":${cvssJson}` : '';
  if (epssScore !== null) cveEnd += `,"epss":{"score":"${epssScore}"${fv(',"percentile":', n(rec.epssPercentile))}}`;
  const seen = fv(',"first_seen_time":', first) + fv(',"last_seen_time":', last);
  const caption = SEVERITY_CAPTION[severity];
  const vulnerability = `,"title":${title}${desc}${caption === undefined ? '' : `,"severity":"${caption}"`}${seen}${fv(',"is_exploit_available":', b(rec.exploitAvailable))}${solution ? `,"remediation":{"desc":${quote(solution)}}` : ''}${product.vulnerabilityEnd}`;
  let vulnerabilities = '';
  if (cves) for (const uid of cves) vulnerabilities += `${vulnerabilities ? ',' : ''}{"cve":{"uid":${quote(uid)}${cveEnd}}${vulnerability}`;
  else vulnerabilities = `{${vulnerability.slice(1)}`;
  const owner = s(rec.owner);
  const device = deviceLeftOut
    ? '0'
    : host === null
      ? partJson(ocsfDevice(null, o, { fallbackUid: s(rec.hostId) }))
      : hostPartJson(host, o.version, owner, () => partJson(ocsfDevice(host, o, { owner })));
  const unmapped =
    fs(',"source":', source) +
    fs(',"pluginId":', pluginId) +
    fv(',"port":', n(rec.port)) +
    fs(',"protocol":', s(rec.protocol)) +
    fv(',"vprScore":', n(rec.vprScore)) +
    fo(',"vprKeyDrivers":', rec.vprKeyDrivers) +
    fs(',"vulnUniqueness":', s(rec.vulnUniqueness)) +
    fs(',"seolDate":', s(rec.seolDate)) +
    (cves || !cvss ? '' : `,"cvss":${cvssJson}`) +
    fv(',"epssScore":', cves ? null : epssScore) +
    fv(',"knownExploited":', b(rec.knownExploited)) +
    fs(',"knownExploitedBy":', s(rec.knownExploitedBy)) +
    fs(',"epssSource":', s(rec.epssSource)) +
    fs(',"kevDateAdded":', s(rec.kevDateAdded)) +
    fs(',"kevDueDate":', s(rec.kevDueDate)) +
    fs(',"dueAt":', s(rec.dueAt)) +
    fv(',"overdue":', b(rec.overdue)) +
    fv(',"acceptedRisk":', b(rec.acceptedRisk)) +
    fv(',"recastRisk":', b(rec.recastRisk)) +
    fv(',"excepted":', b(rec.excepted)) +
    fs(',"exceptionId":', s(rec.exceptionId)) +
    fs(',"exceptionState":', s(rec.exceptionState)) +
    fs(',"exceptionExpiresAt":', s(rec.exceptionExpiresAt)) +
    fs(',"fixedAt":', s(rec.fixedAt)) +
    fs(',"reopenedAt":', s(rec.reopenedAt)) +
    fs(',"proof":', s(rec.proof)) +
    fv(',"proofTruncated":', b(rec.proofTruncated)) +
    fl(',"ticketIds":', strings(rec.ticketIds)) +
    fs(',"assetId":', s(rec.assetId)) +
    fs(',"owner":', o.version === '1.1.0' ? owner : null) +
    fs(',"department":', s(rec.department)) +
    fs(',"status":', status);
  // finding_info always has its title, so it is never left out.
  const findingInfo = `${idJson},"title":${title}${desc}${family ? `,"types":[${quote(family)}]` : ''}${analyticJson(pluginId, pluginName)}${seen}${fv(',"modified_time":', epochMs(s(rec.reopenedAt) ?? s(rec.fixedAt)))}`;
  return `${findingHead(life.activityId, life.activity, SEVERITY_ID[severity] ?? 0)}${last ?? first ?? eventTime(rec)},"message":${title},"status_id":${life.statusId},"status":${life.status}${fs(',"status_detail":', statusDetail)},"metadata":{"version":"${o.version}"${idJson}${product.metadata}${fs(',"log_name":', source)}},"finding_info":{${findingInfo.slice(1)}},"vulnerabilities":[${vulnerabilities}],"device":${device}${unmapped ? `,"unmapped":{${unmapped.slice(1)}}` : ''}}`;
}

/**
 * Why a finding is suppressed, for OCSF `status_detail` and ECS: its approved risk exception (reason and
 * expiry), or the scanner's own accepted risk; null when it is not (or when it is resolved).
 */
export function suppressionDetail(rec: Fields): string | null {
  if (rec.status === 'fixed' || rec.removed === true) return null;
  if (rec.excepted === true) {
    const until = s(rec.exceptionExpiresAt);
    return `Risk exception${until ? ` until ${until.slice(0, 10)}` : ''}: ${s(rec.exceptionReason) ?? ''}`;
  }
  if (rec.acceptedRisk === true) return 'Risk accepted in the scanner';
  return null;
}

const ecsProductText = perProduct((p) => ({
  observer: `,"observer":{"vendor":${q(p.vendor)},"product":${q(p.name)}`,
  /** `vulnerability.scanner`, the last attribute of `vulnerability`, and its closing brace. */
  vulnerabilityEnd: `,"scanner":{"vendor":${q(p.vendor)}}}`,
  /** The upstream's namespace, opened. */
  namespace: `,${q(p.namespace)}:{`,
  /** `vulnerability.enumeration` of a finding without a CVE. */
  enumeration: `,"enumeration":${q(p.namespace)}`,
}));

/** `,"resource":…,"host":…` of a finding on a host (its `host.*`), '' without one. */
function ecsHostPart(fields: Record<string, unknown> | null): string {
  return fields === null ? '' : `,"resource":${q(ecsResource(fields))},"host":${partJson(fields)}`;
}

/**
 * A finding as an ECS vulnerability document, as JSON text, with the fields Elastic Security's vulnerability
 * findings page reads (Kibana's VULNERABILITY_FIELDS; test/export/ecs.test.ts lists them): ECS's and its own
 * `vulnerability.title` and `resource.*`. `package.*` would need the affected package, which a finding
 * does not carry; `cloud.*` does not apply to a scanned host. A finding without a CVE is named by its
 * plugin, in the upstream's enumeration; everything the upstream has goes under its namespace.
 */
export function ecsVulnerabilityJson(rec: Fields, host: Fields | null, product: ConnectorProduct): string {
  const text = ecsProductText(product);
  const cves = strings(rec.cves);
  const cvesJson = cves ? q(cves) : null;
  const pluginId = s(rec.pluginId);
  const pluginName = s(rec.pluginName);
  const synopsis = s(rec.synopsis);
  const v3 = n(rec.cvssV3BaseScore);
  const v2 = n(rec.cvssV2BaseScore);
  const severity = s(rec.severity);
  const family = s(rec.pluginFamily);
  const familyJson = family === null ? null : quote(family);
  const firstSeen = s(rec.firstSeen);
  const lastSeen = s(rec.lastSeen);
  const firstJson = firstSeen === null ? null : quote(firstSeen);
  const lastJson = lastSeen === null ? null : quote(lastSeen);
  const vulnId = cves ? (cves.length === 1 ? quote(cves[0]) : cvesJson) : pluginId !== null ? quote(pluginId) : null;
  const score =
    v3 !== null ? `,"score":{"base":${v3},"version":"${cvssV3Version(s(rec.cvssV3Vector))}"}` : v2 !== null ? `,"score":{"base":${v2},"version":"2.0"}` : '';
  const caption = severity ? ELASTIC_SEVERITY[severity] : undefined;
  // vulnerability always has its scanner, so it is never left out.
  const vulnerability =
    (vulnId !== null ? `,"id":${vulnId}` : '') +
    `,"title":${quote(findingTitle(pluginName, pluginId))}` +
    (cves ? ',"enumeration":"CVE"' : text.enumeration) +
    (v3 !== null || v2 !== null ? ',"classification":"CVSS"' : '') +
    (familyJson !== null ? `,"category":[${familyJson}]` : '') +
    (caption === undefined ? '' : `,"severity":"${caption}"`) +
    fs(',"description":', synopsis ?? pluginName) +
    score +
    text.vulnerabilityEnd;
  const hostPart = host === null ? ecsHostPart(ecsHostFields(null, s(rec.hostId))) : hostPartJson(host, 'ecs', null, () => ecsHostPart(ecsHostFields(host)));
  // The namespace always has `removed`, so it is never left out.
  const ns =
    fs(',"plugin_id":', pluginId) +
    fs(',"plugin_name":', pluginName) +
    (familyJson !== null ? `,"plugin_family":${familyJson}` : '') +
    fs(',"status":', s(rec.status)) +
    (rec.removed === true ? ',"removed":true' : ',"removed":false') +
    (cvesJson !== null ? `,"cves":${cvesJson}` : '') +
    fv(',"cvss_v2_base_score":', v2) +
    fv(',"cvss_v3_base_score":', v3) +
    fv(',"vpr_score":', n(rec.vprScore)) +
    fo(',"vpr_key_drivers":', rec.vprKeyDrivers) +
    fs(',"vuln_uniqueness":', s(rec.vulnUniqueness)) +
    fs(',"seol_date":', s(rec.seolDate)) +
    fv(',"epss_score":', n(rec.epssScore)) +
    fv(',"epss_percentile":', n(rec.epssPercentile)) +
    fv(',"known_exploited":', b(rec.knownExploited)) +
    fs(',"known_exploited_by":', s(rec.knownExploitedBy)) +
    fs(',"epss_source":', s(rec.epssSource)) +
    fv(',"exploit_available":', b(rec.exploitAvailable)) +
    fs(',"kev_date_added":', s(rec.kevDateAdded)) +
    fs(',"kev_due_date":', s(rec.kevDueDate)) +
    fv(',"accepted_risk":', b(rec.acceptedRisk)) +
    fv(',"recast_risk":', b(rec.recastRisk)) +
    fv(',"excepted":', b(rec.excepted)) +
    fs(',"exception_id":', s(rec.exceptionId)) +
    fs(',"exception_state":', s(rec.exceptionState)) +
    fs(',"exception_expires_at":', s(rec.exceptionExpiresAt)) +
    fs(',"suppression_reason":', suppressionDetail(rec)) +
    (firstJson !== null ? `,"first_seen":${firstJson}` : '') +
    (lastJson !== null ? `,"last_seen":${lastJson}` : '') +
    fs(',"fixed_at":', s(rec.fixedAt)) +
    fs(',"reopened_at":', s(rec.reopenedAt)) +
    fs(',"due_at":', s(rec.dueAt)) +
    fv(',"overdue":', b(rec.overdue)) +
    fv(',"port":', n(rec.port)) +
    fs(',"protocol":', s(rec.protocol)) +
    fs(',"synopsis":', synopsis) +
    fs(',"solution":', s(rec.solution)) +
    fs(',"proof":', s(rec.proof)) +
    fs(',"asset_id":', s(rec.assetId)) +
    fs(',"owner":', s(rec.owner)) +
    fs(',"department":', s(rec.department));
  const timestamp = lastJson ?? firstJson;
  return `{${timestamp !== null ? `"@timestamp":${timestamp},` : ''}"ecs":{"version":"${ECS_VERSION}"},"event":{"kind":"state","category":["vulnerability"],"type":["info"]${fs(',"id":', s(rec.id))},"dataset":"tributary.vulnerabilities"${firstJson !== null ? `,"start":${firstJson}` : ''}}${text.observer}${fs(',"name":', s(rec.source))}},"vulnerability":{${vulnerability.slice(1)}${hostPart}${text.namespace}${ns.slice(1)}}}`;
}

/**
 * A finding's OCSF Vulnerability Finding as an object (the OCSF Parquet encoder's input): its JSON text,
 * parsed, but for the device, which is the host's one object (ocsf.ts ocsfDevice) rather than its text
 * parsed again for each of the host's findings.
 */
export function ocsfVulnerabilityFinding(rec: Fields, host: Fields | null, o: OcsfOptions): Record<string, unknown> {
  const event = JSON.parse(vulnerabilityText(rec, host, o, true));
  event.device = host === null ? ocsfDevice(null, o, { fallbackUid: s(rec.hostId) }) : ocsfDevice(host, o, { owner: s(rec.owner) });
  return event;
}

/** A finding's ECS vulnerability document as an object: its JSON text, parsed. */
export function ecsVulnerability(rec: Fields, host: Fields | null, product: ConnectorProduct): Record<string, unknown> {
  return JSON.parse(ecsVulnerabilityJson(rec, host, product));
}
