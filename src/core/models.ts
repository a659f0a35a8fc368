import { DECISIONS } from './priority.ts';

// The normalized models of interfaces.md §3. One table of field definitions drives the store's column
// mapping, query filter validation and the API's schemas, so a field is declared exactly once.

export type FieldKind = 'text' | 'int' | 'real' | 'bool' | 'time' | 'json';

export interface FieldDef {
  /** camelCase name used in JSON, queries and the API. */
  name: string;
  kind: FieldKind;
  /** Multi-valued (stored as a JSON array). */
  array?: boolean;
  /** A list whose elements are all text (names, addresses, CVE ids): the API's record shapes type them so. */
  items?: 'text';
  /** Indexed in the store: fields users filter by in hot queries. */
  indexed?: boolean;
  /**
   * A list that several upstream rows of one record add to (an export writes a finding with three CVEs
   * as three rows): within one generation (a run, and the runs resuming it) the values written are
   * united; a later generation replaces them.
   */
  accumulate?: boolean;
  /**
   * The least or greatest of a value over an `accumulate` list's elements (a KEV date over a finding's
   * CVEs): written again within one generation, the two values merge the same way, as the lists unite.
   */
  ofList?: 'least' | 'greatest';
  /** The only values the field takes (an enum), lowest first when `ordered`. */
  values?: readonly string[];
  /** `values` have an order: `<`, `>` and the like compare by it (severity: info < … < critical). */
  ordered?: boolean;
  /**
   * Derived by the store from other fields of the record (a generated column): read, filtered, sorted
   * and exported like any field, never written; a connector sending it is sending an unknown field.
   */
  derived?: boolean;
}

export const MODEL_NAMES = [
  'hosts',
  'software',
  'ports',
  'vulnerabilities',
  'compliance',
  'tickets',
  'cmdb-assets',
  'users',
  'services',
  'plugins',
  'assets',
] as const;
export type ModelName = (typeof MODEL_NAMES)[number];

/** Whether a value is one of an enum's values (a query parameter, a select's value, a stored state). */
export function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

export function isModelName(s: string): s is ModelName {
  return (MODEL_NAMES as readonly string[]).includes(s);
}

/** A field definition that keeps its name and kind as literal types (FieldsOf derives record types from them). */
type Field<N extends string, K extends FieldKind, A extends boolean = false> = FieldDef & { name: N; kind: K; array?: A };
const def = <N extends string, K extends FieldKind, A extends boolean = false>(
  name: N,
  kind: K,
  opts: Omit<FieldDef, 'name' | 'kind' | 'array'> & { array?: A } = {},
): Field<N, K, A> => ({
  name,
  kind,
  ...opts,
});
const text = <N extends string>(name: N, indexed = false) => def(name, 'text', { indexed });
const oneOf = <N extends string, const V extends readonly string[]>(name: N, values: V, opts: { indexed?: boolean; ordered?: boolean } = {}) => ({
  ...def(name, 'text', opts),
  values,
});
const texts = <N extends string>(name: N) => ({ ...def(name, 'json', { array: true as const }), items: 'text' as const });
const json = <N extends string>(name: N) => def(name, 'json');
const time = <N extends string>(name: N) => def(name, 'time');
const real = <N extends string>(name: N) => def(name, 'real');
const int = <N extends string>(name: N) => def(name, 'int');
const bool = <N extends string>(name: N) => def(name, 'bool');
const accumulate = <F extends FieldDef>(f: F): F => ({ ...f, accumulate: true });
const least = <F extends FieldDef>(f: F): F => ({ ...f, ofList: 'least' });
const greatest = <F extends FieldDef>(f: F): F => ({ ...f, ofList: 'greatest' });
/** A field the store derives (FieldDef.derived): a connector's record type lacks it. */
const derived = <F extends FieldDef>(f: F): F & { derived: true } => ({ ...f, derived: true as const });

/** Vulnerability severities, lowest first: comparisons on severity follow this order. */
export const SEVERITY_ORDER = ['info', 'low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITY_ORDER)[number];
/** Open findings per severity. */
export type SeverityCounts = Record<Severity, number>;

/** What happened to a record in a run (the change feed). */
export const CHANGE_KINDS = ['new', 'fixed', 'reopened', 'removed', 'updated'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** The coverage report's four gaps between the scanner and the service desk. */
export const COVERAGE_KINDS = ['cmdbNotScanned', 'scannedNotInCmdb', 'findingsWithoutTicket', 'ticketsForFixedFindings', 'ticketsClosedFindingsOpen'] as const;
export type CoverageKind = (typeof COVERAGE_KINDS)[number];

/** The offline feeds. */
export const FEED_KINDS = ['kev', 'epss'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];

/** What a risk exception covers: one finding, a plugin on chosen assets, a plugin everywhere. */
export const EXCEPTION_SCOPES = ['finding', 'plugin-assets', 'plugin'] as const;
export type ExceptionScope = (typeof EXCEPTION_SCOPES)[number];
/** A risk exception's states; `expired` is never stored: a proposed or approved one past its date reads so. */
export const EXCEPTION_STATES = ['proposed', 'approved', 'rejected', 'expired', 'revoked'] as const;
export type ExceptionState = (typeof EXCEPTION_STATES)[number];
/** The changes of a risk exception its history keeps. */
export const EXCEPTION_ACTIONS = ['propose', 'approve', 'reject', 'revoke'] as const;
export type ExceptionAction = (typeof EXCEPTION_ACTIONS)[number];

/** Fields beyond the common ones (id, source, externalId, firstSeen, lastSeen, removed). */
const MODEL_FIELD_DEFS = {
  hosts: [
    texts('ipAddresses'),
    texts('macAddresses'),
    text('hostname', true),
    text('fqdn'),
    text('netbiosName'),
    text('os'),
    text('manufacturer'),
    text('model'),
    text('serialNumber'),
    text('lastLoggedOnUser'),
    text('repository'),
    bool('credentialed'),
    time('scannerLastSeen'),
    // The upstream's own identifiers of the host (interfaces.md §6.1), kept so every path that names
    // the host by one of them finds the same record.
    text('tenableUuid'),
    text('hostUuid'),
    text('biosUuid'),
    real('acrScore'),
    real('aesScore'),
    // Kept by the store (docs/priority.md): the host's criticality 0–10 from its ACR or its CMDB record's business impact.
    real('criticality'),
    // Filled by correlation (src/correlate): the host's asset and its CMDB owner.
    text('assetId', true),
    text('owner'),
    text('department'),
    text('site'),
  ],
  software: [text('hostId', true), text('name', true), text('version')],
  ports: [text('hostId', true), int('port'), oneOf('protocol', ['tcp', 'udp']), text('service')],
  vulnerabilities: [
    text('hostId', true),
    text('pluginId', true),
    text('pluginName'),
    oneOf('severity', SEVERITY_ORDER, { indexed: true, ordered: true }),
    accumulate(texts('cves')),
    real('cvssV2BaseScore'),
    real('cvssV3BaseScore'),
    // What the scanner says; the store derives the answers below from them and the offline feeds (feeds.ts).
    real('scannerEpssScore'),
    real('vprScore'),
    bool('scannerKnownExploited'),
    oneOf('status', ['open', 'fixed', 'reopened'], { indexed: true }),
    int('port'),
    text('protocol'),
    // SC 6.x rows (interfaces.md §6.1 names the first two).
    bool('acceptedRisk'),
    bool('recastRisk'),
    json('vprKeyDrivers'),
    text('vulnUniqueness'),
    time('seolDate'),
    // Finding detail (synopsis and solution are read from its plugin: COMPUTED_FIELDS) and the offline feeds' values by CVE (feeds.ts).
    ...[text('pluginFamily'), text('proof'), bool('proofTruncated'), bool('exploitAvailable')],
    ...[least(time('kevDateAdded')), least(time('kevDueDate')), greatest(real('epssFeedScore')), greatest(real('epssPercentile'))],
    // The one answer every filter, count, report and export reads (interfaces.md §7.1): known exploited
    // when the scanner says so or the current KEV feed lists one of its CVEs, and by whom; the EPSS score
    // of one origin, the feed's where it lists a CVE (with its percentile, epssPercentile), else the scanner's.
    derived(bool('knownExploited')),
    derived(oneOf('knownExploitedBy', ['scanner', 'feed', 'both'])),
    derived(real('epssScore')),
    derived(oneOf('epssSource', ['feed', 'scanner'])),
    // Kept by the store from the change feed (never sent by a connector): the last fix and reopening.
    time('fixedAt'),
    time('reopenedAt'),
    // The scanner's own date of the finding's last mitigation, where it sends one (trends and MTTR prefer it).
    time('mitigatedAt'),
    // The finding's CVSS vectors (its plugin's), read by the priority below.
    text('cvssV3Vector'),
    text('cvssV2Vector'),
    // Kept by the store as it writes the finding (docs/priority.md; never sent by a connector): the host
    // criticality it used, the SSVC decision and the priority 0–100 within it. A finding written as
    // several rows in one generation (one per CVE) keeps the highest priority of them, and its decision.
    real('assetCriticality'),
    oneOf('decision', DECISIONS, { indexed: true, ordered: true }),
    greatest(real('priority')),
  ],
  compliance: [
    text('hostId', true),
    text('benchmark', true),
    text('ruleId'),
    text('ruleName'),
    oneOf('result', ['passed', 'failed', 'warning', 'error'], { indexed: true }),
  ],
  tickets: [
    text('displayId'),
    text('subject'),
    oneOf('kind', ['request', 'incident']),
    text('status', true),
    text('priority'),
    text('assignee'),
    text('group'),
    text('requester'),
    time('createdAt'),
    time('updatedAt'),
    time('dueAt'),
    time('resolvedAt'),
    text('description'),
    text('category'),
    text('site'),
    /** The request's own associated assets as upstream sent them ({id, name}). */
    def('associatedAssets', 'json', { array: true as const }),
    // Filled by correlation: the assets and findings the ticket is about, and why ({assetId, reason, value}).
    texts('assetIds'),
    texts('findingIds'),
    def('assetLinks', 'json', { array: true as const }),
    /** Names more hosts or CVEs than a ticket about one fix would: linked by its associated assets only. */
    bool('broad'),
    /** The remediation key (interfaces.md §7.4) of a request Tributary's remediation tickets wrote: its marker, e.g. TRB-0123456789ab. */
    text('remediationKey', true),
  ],
  'cmdb-assets': [
    text('name', true),
    text('assetTag'),
    text('serialNumber'),
    text('productType'),
    text('product'),
    text('state'),
    texts('ipAddresses'),
    texts('macAddresses'),
    text('assignedUser'),
    text('department'),
    text('site'),
    text('ciType'),
    json('attributes'),
    text('biosUuid'),
    text('fqdn'),
    text('owner'),
    text('businessImpact'),
    text('assetId', true),
  ],
  users: [text('name', true), text('email', true), text('department'), text('jobTitle'), bool('isTechnician'), text('status')],
  services: [text('name', true), text('description'), text('category'), text('owner'), text('status')],
  // One record per scanner plugin: the text findings share, stored once.
  plugins: [
    text('pluginId', true),
    ...[text('name'), text('family'), text('synopsis'), text('description'), text('solution'), texts('seeAlso'), text('riskFactor')],
    ...[real('cvssV2BaseScore'), text('cvssV2Vector'), real('cvssV3BaseScore'), text('cvssV3Vector'), real('cvssV4BaseScore'), text('cvssV4Vector')],
    ...[real('vprScore'), json('vprDrivers'), real('epssScore'), bool('exploitAvailable'), texts('exploitFrameworks')],
    ...[
      accumulate(texts('cves')),
      texts('xrefs'),
      time('pluginPublished'),
      time('pluginModified'),
      time('vulnPublished'),
      time('patchPublished'),
      text('checkType'),
    ],
  ],
  // Correlated machines across sources (src/correlate): not a source's records, so `source` is null.
  assets: [
    text('name', true),
    texts('hostIds'),
    texts('cmdbAssetIds'),
    text('serialNumber'),
    text('biosUuid'),
    texts('macAddresses'),
    texts('ipAddresses'),
    text('fqdn'),
    texts('hostnames'),
    text('owner'),
    text('department'),
    text('site'),
    text('matchRule', true),
    json('matchDetails'),
    time('lastScanned'),
    json('openFindings'),
  ],
} satisfies Record<ModelName, FieldDef[]>;
export const MODEL_FIELDS: Record<ModelName, FieldDef[]> = MODEL_FIELD_DEFS;

/** What a field of each kind holds: in a record a connector sends (null clears it) and in an API answer. */
export interface KindValue {
  text: string;
  int: number;
  real: number;
  bool: boolean;
  time: string;
  json: unknown;
}

/**
 * The fields of a record of `M` as a connector sends them, derived from MODEL_FIELDS: a mapper that
 * declares its fields with it gets a type error for a field its model does not have.
 */
export type FieldsOf<M extends ModelName> = {
  [F in (typeof MODEL_FIELD_DEFS)[M][number] as F extends { derived: true } ? never : F['name']]?:
    | (F extends { array?: true } ? unknown[] : KindValue[F['kind']])
    | null;
};

/**
 * Fields a record gets when read, not stored on it. A finding's synopsis and solution are its plugin's
 * (joined from `plugins`: the text is stored once; copying it onto every finding would grow the store
 * by half for no faster read); its assetId, owner, department and site are its host's (joined from
 * `hosts`, which correlation places: copying them would rewrite every finding of an estate after its
 * first correlation, and again whenever an owner changed). Joined fields can be filtered, sorted and grouped on. The SLA
 * due date and whether a finding is overdue depend on the policy and the clock (store/records/sla.ts): filters only;
 * so does whether a risk exception covers it (store/exceptions/: `excepted` filters, the others are shown).
 */
const COMPUTED_FIELD_DEFS = {
  vulnerabilities: [
    text('synopsis'),
    text('solution'),
    time('dueAt'),
    bool('overdue'),
    // The decision and its parts as a sentence (core/priority.ts explainPriority).
    text('priorityReason'),
    // Its inputs and their values (interfaces.md 7.3), computed as the sentence is.
    json('priorityFactors'),
    // From the host's correlated asset (src/correlate).
    text('assetId'),
    text('owner'),
    text('department'),
    text('site'),
    // Its risk exception (store/exceptions/), as read now: `excepted` when one is approved and unexpired;
    // the one that matters most (approved before proposed, latest expiry first) by id, state, reason and expiry.
    bool('excepted'),
    text('exceptionId'),
    oneOf('exceptionState', EXCEPTION_STATES),
    text('exceptionReason'),
    time('exceptionExpiresAt'),
  ],
} satisfies Partial<Record<ModelName, FieldDef[]>>;
export const COMPUTED_FIELDS: Partial<Record<ModelName, FieldDef[]>> = COMPUTED_FIELD_DEFS;

/**
 * The literal declaration of each field of `M` (stored, then read-time ones), name, kind and values kept
 * as types: src/core/api-shapes.ts derives the model's record type from them.
 */
export type ModelFieldDef<M extends ModelName> =
  | (typeof MODEL_FIELD_DEFS)[M][number]
  | (M extends keyof typeof COMPUTED_FIELD_DEFS ? (typeof COMPUTED_FIELD_DEFS)[M][number] : never);

/** Common fields every record carries, in output order. */
export const COMMON_FIELDS: FieldDef[] = [text('id'), text('source'), text('externalId'), time('firstSeen'), time('lastSeen'), bool('removed')];

export function fieldsOf(model: ModelName): FieldDef[] {
  return [...COMMON_FIELDS, ...MODEL_FIELDS[model], ...(COMPUTED_FIELDS[model] ?? [])];
}

/** Models whose records hang off a host and carry `hostId`. */
export function hasHost(model: ModelName): boolean {
  return MODEL_FIELDS[model].some((f) => f.name === 'hostId');
}

export type VulnerabilityStatus = 'open' | 'fixed' | 'reopened';
export type ComplianceResult = 'passed' | 'failed' | 'warning' | 'error';

/**
 * What a stream yields for one record. The runner derives our stable `id` from (source, model, key)
 * and `hostId` from (source, 'hosts', hostKey), so connectors never compute ids themselves.
 * `fields` holds model fields; a field left undefined is not touched on update (so two streams can
 * each fill in part of a host), while null clears it.
 */
export interface IncomingRecord {
  /** Natural key, unique per source and model. */
  key: string;
  /** Natural key of the host this record belongs to (software, ports, vulnerabilities, compliance). */
  hostKey?: string;
  externalId?: string | null;
  /** Upstream first/last seen dates (ISO-8601) where the upstream has them; else the store keeps its own. */
  firstSeen?: string | null;
  lastSeen?: string | null;
  /**
   * The file the record was last read from (file imports: a short id of the object key), so a later
   * export of the same name can tell which records it covers (docs/csv-import.md). Unset: untouched.
   */
  origin?: string;
  /**
   * The fields come from a less trusted row (a host's facts repeated on its finding rows): each fills
   * the stored record's field only where it has no value, never overwriting a stronger source's.
   */
  fill?: boolean;
  fields: Record<string, unknown>;
}

/**
 * A record of model `M` as a mapper yields it: its fields typed by the model (FieldsOf), so a field the
 * model lacks is a type error where the record is built. Assignable to IncomingRecord.
 */
export type RecordOf<M extends ModelName> = Omit<IncomingRecord, 'fields'> & { fields: FieldsOf<M> };

/** Records of a page or row by model, each typed by its model. */
export type RecordsByModel = { [M in ModelName]?: RecordOf<M>[] };

/** How a mapper hands over a record (null or undefined: none); the model names the record's field type. */
export type AddRecord = <M extends ModelName>(model: M, record: RecordOf<M> | null | undefined) => void;

/** An AddRecord that appends to `out` (a model's list is created on its first record). */
export function collectInto(out: RecordsByModel): AddRecord {
  return <M extends ModelName>(model: M, record: RecordOf<M> | null | undefined) => {
    if (!record) return;
    const list = (out[model] ?? []) as RecordOf<M>[];
    list.push(record);
    out[model] = list as RecordsByModel[M];
  };
}

/** Hands every record of `records` to `add`, model by model. */
export function addAll(records: RecordsByModel, add: AddRecord): void {
  for (const model of Object.keys(records) as ModelName[]) for (const r of records[model] ?? []) add<ModelName>(model, r as RecordOf<ModelName>);
}

/** A record as stored and queried. */
export type StoredRecord = Record<string, unknown> & {
  id: string;
  source: string;
  externalId: string | null;
  firstSeen: string | null;
  lastSeen: string | null;
  removed: boolean;
};
