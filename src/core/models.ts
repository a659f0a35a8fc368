// The normalized models of interfaces.md §3. One table of field definitions drives the store's column
// mapping, query filter validation and the API's schemas, so a field is declared exactly once.

export type FieldKind = 'text' | 'int' | 'real' | 'bool' | 'time' | 'json';

export interface FieldDef {
  /** camelCase name used in JSON, queries and the API. */
  name: string;
  kind: FieldKind;
  /** Multi-valued (stored as a JSON array). */
  array?: boolean;
  /** Indexed in the store: fields users filter by in hot queries. */
  indexed?: boolean;
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
] as const;
export type ModelName = (typeof MODEL_NAMES)[number];

export function isModelName(s: string): s is ModelName {
  return (MODEL_NAMES as readonly string[]).includes(s);
}

const text = (name: string, indexed = false): FieldDef => ({ name, kind: 'text', indexed });
const texts = (name: string): FieldDef => ({ name, kind: 'json', array: true });
const time = (name: string): FieldDef => ({ name, kind: 'time' });
const real = (name: string): FieldDef => ({ name, kind: 'real' });
const int = (name: string): FieldDef => ({ name, kind: 'int' });
const bool = (name: string): FieldDef => ({ name, kind: 'bool' });

/** Fields beyond the common ones (id, source, externalId, firstSeen, lastSeen, removed). */
export const MODEL_FIELDS: Record<ModelName, FieldDef[]> = {
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
  ],
  software: [text('hostId', true), text('name', true), text('version')],
  ports: [text('hostId', true), int('port'), text('protocol'), text('service')],
  vulnerabilities: [
    text('hostId', true),
    text('pluginId', true),
    text('pluginName'),
    text('severity', true),
    texts('cves'),
    real('cvssV2BaseScore'),
    real('cvssV3BaseScore'),
    real('epssScore'),
    real('vprScore'),
    bool('knownExploited'),
    text('status', true),
    int('port'),
    text('protocol'),
    // Kept by the store from the change feed (never sent by a connector): the last fix and reopening.
    time('fixedAt'),
    time('reopenedAt'),
  ],
  compliance: [
    text('hostId', true),
    text('benchmark', true),
    text('ruleId'),
    text('ruleName'),
    text('result', true),
  ],
  tickets: [
    text('displayId'),
    text('subject'),
    text('kind'),
    text('status', true),
    text('priority'),
    text('assignee'),
    text('group'),
    text('requester'),
    time('createdAt'),
    time('updatedAt'),
    time('dueAt'),
    time('resolvedAt'),
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
    { name: 'attributes', kind: 'json' },
  ],
  users: [
    text('name', true),
    text('email', true),
    text('department'),
    text('jobTitle'),
    bool('isTechnician'),
    text('status'),
  ],
  services: [text('name', true), text('description'), text('category'), text('owner'), text('status')],
};

/** Common fields every record carries, in output order. */
export const COMMON_FIELDS: FieldDef[] = [
  text('id'),
  text('source'),
  text('externalId'),
  time('firstSeen'),
  time('lastSeen'),
  bool('removed'),
];

export function fieldsOf(model: ModelName): FieldDef[] {
  return [...COMMON_FIELDS, ...MODEL_FIELDS[model]];
}

/** Models whose records hang off a host and carry `hostId`. */
export function hasHost(model: ModelName): boolean {
  return MODEL_FIELDS[model].some((f) => f.name === 'hostId');
}

export type Severity = 'info' | 'low' | 'medium' | 'high' | 'critical';
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
  fields: Record<string, unknown>;
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
