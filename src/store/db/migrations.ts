// Versioned migrations, one set for both stores: the SQL uses the subset SQLite and PostgreSQL share
// (TEXT, INTEGER, BIGINT, DOUBLE PRECISION; booleans as 0/1; times as ISO-8601 UTC text, which sorts;
// arrays and objects as JSON text). A migration is never edited once released; add a new one.

import { CVE_PLUGINS_BACKFILL, CVE_PLUGINS_TABLE } from '../records/cve-plugins.ts';
import { knownExploitedMigration } from '../feeds/known-exploited.ts';
import { EXCEPTIONS_MIGRATION } from '../exceptions/exceptions.ts';
import { SORT_ONLY_INDEXES } from './schema.ts';
import { SUMMARY_MIGRATION_41 } from '../reports/summary-tables-delta.ts';
import { SEVERITY_RANK_INDEX, SUMMARY_MIGRATION, SUMMARY_MIGRATION_16, SUMMARY_MIGRATION_27, SUMMARY_MIGRATION_40 } from '../reports/summary-tables-write.ts';
import { ALERTS_MIGRATION, alertsMigration48 } from '../alerts/schema.ts';
import { PLUGIN_OWNERS_MIGRATION_43 } from '../reports/plugin-owners.ts';
import { PLACEMENT_GENERATION_MIGRATION_46 } from '../reports/summary-tables-guard.ts';
import { openAgesMigration } from '../reports/open-ages.ts';
import { fixFactsMigration } from '../reports/fix-facts.ts';
import { fixDaysMigration } from '../reports/fix-days.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Where PostgreSQL needs other SQL (an auto-numbered key): used there instead of `sql`. */
  postgres?: string;
}

const COMMON = `
  id TEXT PRIMARY KEY,
  source_id TEXT NOT NULL,
  natural_key TEXT NOT NULL,
  external_id TEXT,
  first_seen TEXT,
  last_seen TEXT,
  removed INTEGER NOT NULL DEFAULT 0,
  seen_gen TEXT,
  seen_run TEXT`;

function recordTable(name: string, columns: string, indexes: string[]): string {
  const idx = [
    `CREATE INDEX ${name}_source ON ${name} (source_id, removed)`,
    ...indexes.map((i) => `CREATE INDEX ${name}_${i.replace(/\W+/g, '_')} ON ${name} (${i})`),
  ];
  return `CREATE TABLE ${name} (${COMMON},${columns});\n${idx.join(';\n')};\n`;
}

const initial = `
CREATE TABLE sources (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  config TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT '{}',
  schedule TEXT,
  last_check TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE sync_runs (
  id TEXT PRIMARY KEY,
  source_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  status TEXT NOT NULL,
  generation TEXT NOT NULL,
  resumed_from TEXT,
  trigger TEXT,
  owner TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  heartbeat_at TEXT,
  counts TEXT NOT NULL DEFAULT '{}',
  error TEXT
);
CREATE INDEX sync_runs_source ON sync_runs (source_id, started_at);
CREATE INDEX sync_runs_status ON sync_runs (status);
-- At most one running run per source, even with several processes racing to start one.
CREATE UNIQUE INDEX sync_runs_one_running ON sync_runs (source_id) WHERE status = 'running';
CREATE TABLE checkpoints (
  source_id TEXT NOT NULL,
  stream TEXT NOT NULL,
  value TEXT,
  complete INTEGER NOT NULL DEFAULT 0,
  mode TEXT NOT NULL,
  generation TEXT NOT NULL,
  run_id TEXT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (source_id, stream)
);
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  username TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  csrf_token TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
${recordTable(
  'rec_hosts',
  `
  ip_addresses TEXT, mac_addresses TEXT, hostname TEXT, fqdn TEXT, netbios_name TEXT, os TEXT,
  manufacturer TEXT, model TEXT, serial_number TEXT, last_logged_on_user TEXT, repository TEXT,
  credentialed INTEGER, scanner_last_seen TEXT`,
  ['hostname'],
)}
${recordTable('rec_software', ' host_id TEXT, name TEXT, version TEXT', ['host_id', 'name'])}
${recordTable('rec_ports', ' host_id TEXT, port INTEGER, protocol TEXT, service TEXT', ['host_id', 'port'])}
${recordTable(
  'rec_vulnerabilities',
  `
  host_id TEXT, plugin_id TEXT, plugin_name TEXT, severity TEXT, cves TEXT,
  cvss_v2_base_score DOUBLE PRECISION, cvss_v3_base_score DOUBLE PRECISION, epss_score DOUBLE PRECISION,
  vpr_score DOUBLE PRECISION, known_exploited INTEGER, status TEXT, port INTEGER, protocol TEXT`,
  // Severity and status have a handful of values: an index on them costs every write and helps no
  // query that the id-ordered scan with a LIMIT does not already answer quickly.
  ['host_id', 'plugin_id'],
)}
${recordTable('rec_compliance', ' host_id TEXT, benchmark TEXT, rule_id TEXT, rule_name TEXT, result TEXT', ['host_id', 'benchmark', 'result'])}
${recordTable(
  'rec_tickets',
  `
  display_id TEXT, subject TEXT, kind TEXT, status TEXT, priority TEXT, assignee TEXT, "group" TEXT,
  requester TEXT, created_at TEXT, updated_at TEXT, due_at TEXT, resolved_at TEXT`,
  ['status', 'updated_at'],
)}
${recordTable(
  'rec_cmdb_assets',
  `
  name TEXT, asset_tag TEXT, serial_number TEXT, product_type TEXT, product TEXT, state TEXT,
  ip_addresses TEXT, mac_addresses TEXT, assigned_user TEXT, department TEXT, site TEXT, ci_type TEXT,
  attributes TEXT`,
  ['name'],
)}
${recordTable('rec_users', ' name TEXT, email TEXT, department TEXT, job_title TEXT, is_technician INTEGER, status TEXT', ['name', 'email'])}
${recordTable('rec_services', ' name TEXT, description TEXT, category TEXT, owner TEXT, status TEXT', ['name'])}
`;

const addColumns = (table: string, columns: string[]): string => columns.map((c) => `ALTER TABLE ${table} ADD COLUMN ${c} TEXT;`).join('\n');

/**
 * Correlation (src/correlate): the assets model, the fields it fills in on hosts, findings, tickets
 * and CMDB records, the links it found (one row per host: its CMDB record and the rule, or the
 * ambiguity), the user's manual link/unlink overrides, and the normalised identifiers both sides are
 * matched on (so an incremental pass finds candidates through an index instead of reading the estate).
 */
const correlation = `
${addColumns('rec_hosts', ['asset_id', 'owner', 'department', 'site'])}
CREATE INDEX rec_hosts_asset_id ON rec_hosts (asset_id);
${addColumns('rec_vulnerabilities', ['asset_id', 'owner', 'department', 'site'])}
${addColumns('rec_tickets', ['description', 'category', 'site', 'associated_assets', 'asset_ids', 'finding_ids', 'asset_links'])}
${addColumns('rec_cmdb_assets', ['bios_uuid', 'fqdn', 'owner', 'business_impact', 'asset_id'])}
CREATE INDEX rec_cmdb_assets_asset_id ON rec_cmdb_assets (asset_id);
${recordTable(
  'rec_assets',
  `
  name TEXT, host_ids TEXT, cmdb_asset_ids TEXT, serial_number TEXT, bios_uuid TEXT, mac_addresses TEXT,
  ip_addresses TEXT, fqdn TEXT, hostnames TEXT, owner TEXT, department TEXT, site TEXT, match_rule TEXT,
  match_details TEXT, last_scanned TEXT, open_findings TEXT`,
  ['name', 'match_rule'],
)}
CREATE TABLE asset_links (
  host_id TEXT NOT NULL,
  cmdb_asset_id TEXT NOT NULL,
  rule TEXT NOT NULL,
  details TEXT NOT NULL,
  PRIMARY KEY (host_id, cmdb_asset_id)
);
CREATE INDEX asset_links_cmdb ON asset_links (cmdb_asset_id);
CREATE TABLE asset_overrides (
  host_id TEXT NOT NULL,
  cmdb_asset_id TEXT NOT NULL,
  action TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (host_id, cmdb_asset_id)
);
CREATE INDEX asset_overrides_cmdb ON asset_overrides (cmdb_asset_id);
CREATE TABLE asset_idents (
  record_id TEXT NOT NULL,
  side TEXT NOT NULL,
  kind TEXT NOT NULL,
  value TEXT NOT NULL,
  scope TEXT
);
CREATE INDEX asset_idents_value ON asset_idents (kind, value);
CREATE INDEX asset_idents_record ON asset_idents (record_id);
CREATE TABLE asset_scratch (
  id TEXT PRIMARY KEY,
  asset_id TEXT,
  owner TEXT,
  department TEXT,
  site TEXT
);
`;

/**
 * From this migration on, every text column of PostgreSQL compares in byte order: migrate.ts keeps it so
 * after each later migration, so a migration that adds a text column need not say so.
 */
export const BYTE_ORDER_FROM = 17;

const REMEDIATION_TICKET_FINDINGS = `
CREATE TABLE remediation_ticket_findings (
  source_id TEXT NOT NULL,
  group_key TEXT NOT NULL,
  finding_id TEXT NOT NULL,
  PRIMARY KEY (source_id, finding_id)
);
CREATE INDEX remediation_ticket_findings_group ON remediation_ticket_findings (source_id, group_key);`;

export const MIGRATIONS: Migration[] = [
  { version: 1, name: 'initial schema', sql: initial },
  // The file drop: one row per imported object version (source, key, etag), and the revocable
  // upload tokens of the file-drop guide (stored as SHA-256 hashes, scoped to one bucket).
  {
    version: 2,
    name: 'file drop: imports and upload tokens',
    sql: `
CREATE TABLE file_imports (
  id TEXT PRIMARY KEY,
  source_id TEXT NOT NULL,
  bucket TEXT NOT NULL,
  "key" TEXT NOT NULL,
  etag TEXT NOT NULL,
  size BIGINT NOT NULL,
  kind TEXT,
  rows_read BIGINT NOT NULL DEFAULT 0,
  rows_imported BIGINT NOT NULL DEFAULT 0,
  rows_rejected BIGINT NOT NULL DEFAULT 0,
  rejections TEXT NOT NULL DEFAULT '[]',
  status TEXT NOT NULL,
  error TEXT,
  imported_at TEXT NOT NULL,
  run_id TEXT,
  UNIQUE (source_id, "key", etag)
);
CREATE INDEX file_imports_source_key ON file_imports (source_id, "key", imported_at);
CREATE TABLE upload_tokens (
  id TEXT PRIMARY KEY,
  source_id TEXT NOT NULL,
  bucket TEXT NOT NULL,
  file TEXT,
  token_hash TEXT NOT NULL UNIQUE,
  created_by TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  revoked_at TEXT,
  last_used_at TEXT,
  uploads INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX upload_tokens_source ON upload_tokens (source_id);
`,
  },
  // A host's records (findings, software, ports, compliance results) take their host's id as the
  // prefix of theirs (records.ts recordId): the first 12 hex digits of host_id, then the first 20 of
  // the record's own hash, which are the first 20 of the id it had.
  {
    version: 3,
    name: 'record ids under their host',
    sql: ['rec_software', 'rec_ports', 'rec_vulnerabilities', 'rec_compliance']
      .map((t) => `UPDATE ${t} SET id = substr(host_id, 1, 12) || substr(id, 1, 20) WHERE host_id IS NOT NULL AND substr(id, 1, 12) <> substr(host_id, 1, 12);`)
      .join('\n'),
  },
  // Host identifiers (interfaces.md §6.1): the upstream's own ids, so a row naming a host by any of
  // them lands on the same record; and the console's asset criticality and exposure scores.
  {
    version: 4,
    name: 'host identifiers and scores',
    sql: ['tenable_uuid TEXT', 'host_uuid TEXT', 'bios_uuid TEXT', 'acr_score DOUBLE PRECISION', 'aes_score DOUBLE PRECISION']
      .map((c) => `ALTER TABLE rec_hosts ADD COLUMN ${c};`)
      .join('\n'),
  },
  // SC 6.x finding fields (acceptedRisk, recastRisk, vprKeyDrivers, vulnUniqueness, seolDate); the file
  // each record was last imported from (IncomingRecord.origin) and the snapshot each imported file
  // belongs to, which scope a file snapshot's sweep (docs/csv-import.md).
  {
    version: 5,
    name: 'finding risk fields; record origin; file snapshots',
    sql: [
      'ALTER TABLE rec_vulnerabilities ADD COLUMN accepted_risk INTEGER;',
      'ALTER TABLE rec_vulnerabilities ADD COLUMN recast_risk INTEGER;',
      'ALTER TABLE rec_vulnerabilities ADD COLUMN vpr_key_drivers TEXT;',
      'ALTER TABLE rec_vulnerabilities ADD COLUMN vuln_uniqueness TEXT;',
      'ALTER TABLE rec_vulnerabilities ADD COLUMN seol_date TEXT;',
      // The snapshot a file version belongs to: the run that first imported it, and when (kept on re-import).
      'ALTER TABLE file_imports ADD COLUMN snapshot_run TEXT;',
      'ALTER TABLE file_imports ADD COLUMN snapshot_at TEXT;',
      ...['rec_hosts', 'rec_software', 'rec_ports', 'rec_vulnerabilities', 'rec_compliance', 'rec_tickets', 'rec_cmdb_assets', 'rec_users', 'rec_services'].map(
        (t) => `ALTER TABLE ${t} ADD COLUMN origin TEXT;`,
      ),
    ].join('\n'),
  },
  // API tokens may expire (null = never); last_used_at (there since version 1) is now recorded.
  { version: 7, name: 'api token expiry', sql: 'ALTER TABLE api_tokens ADD COLUMN expires_at TEXT;' },
  // Finding detail, the plugin catalog, the offline feeds (KEV, EPSS) and the values they give findings.
  {
    version: 8,
    name: 'plugins, finding detail, offline feeds',
    sql: `
${['plugin_family TEXT', 'proof TEXT', 'proof_truncated INTEGER', 'exploit_available INTEGER', 'kev_date_added TEXT', 'kev_due_date TEXT', 'epss_feed_score DOUBLE PRECISION', 'epss_percentile DOUBLE PRECISION'].map((c) => `ALTER TABLE rec_vulnerabilities ADD COLUMN ${c};`).join('\n')}
${recordTable(
  'rec_plugins',
  `
  plugin_id TEXT, name TEXT, family TEXT, synopsis TEXT, description TEXT, solution TEXT, see_also TEXT, risk_factor TEXT,
  cvss_v2_base_score DOUBLE PRECISION, cvss_v2_vector TEXT, cvss_v3_base_score DOUBLE PRECISION, cvss_v3_vector TEXT,
  cvss_v4_base_score DOUBLE PRECISION, cvss_v4_vector TEXT, vpr_score DOUBLE PRECISION, vpr_drivers TEXT, epss_score DOUBLE PRECISION,
  exploit_available INTEGER, exploit_frameworks TEXT, cves TEXT, xrefs TEXT, plugin_published TEXT, plugin_modified TEXT,
  vuln_published TEXT, patch_published TEXT, origin TEXT`,
  // Findings read their plugin's text by (source, plugin id).
  ['source_id, plugin_id'],
)}
CREATE TABLE feed_imports (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  version TEXT NOT NULL,
  released TEXT NOT NULL,
  records INTEGER NOT NULL,
  size BIGINT NOT NULL,
  sha256 TEXT NOT NULL,
  file_name TEXT,
  imported_at TEXT NOT NULL
);
CREATE INDEX feed_imports_kind ON feed_imports (kind, imported_at);
CREATE TABLE feed_kev (cve TEXT PRIMARY KEY, date_added TEXT, due_date TEXT, ransomware TEXT, name TEXT);
CREATE TABLE feed_epss (cve TEXT PRIMARY KEY, score DOUBLE PRECISION, percentile DOUBLE PRECISION);
`,
  },
  // The change feed (changes.ts): one row per lifecycle event, written in the transaction that changes
  // the record (so a resumed run finds the change made and writes no second event). Its key is the
  // feed's order; the one other index pages one model in that order. Both grow at their end (by time);
  // an index by record would take a random place per event of a first import, costing several times
  // the row itself, so there is none. An event's id is derived from record, run and
  // change when read.
  // Findings keep the times of their last fix and reopening.
  {
    version: 9,
    name: 'change feed and finding fix/reopen times',
    sql: `
CREATE TABLE changes (
  at TEXT NOT NULL,
  record_id TEXT NOT NULL,
  change TEXT NOT NULL,
  source_id TEXT NOT NULL,
  model TEXT NOT NULL,
  external_id TEXT,
  "from" TEXT,
  "to" TEXT,
  run_id TEXT NOT NULL,
  PRIMARY KEY (at, record_id, change)
);
CREATE INDEX changes_model ON changes (model, at, record_id, change);
ALTER TABLE rec_vulnerabilities ADD COLUMN fixed_at TEXT;
ALTER TABLE rec_vulnerabilities ADD COLUMN reopened_at TEXT;
`,
  },
  // Scheduled exports: where to write after a successful sync (one source or all), and per source the
  // state of the last export there (status, attempts, files; the last run exported, for changes-only).
  {
    version: 11,
    name: 'scheduled export destinations',
    sql: `
CREATE TABLE export_destinations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  source_id TEXT,
  target TEXT NOT NULL,
  format TEXT NOT NULL,
  ocsf_version TEXT,
  ecs_bulk INTEGER NOT NULL DEFAULT 0,
  models TEXT NOT NULL,
  mode TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE export_status (
  destination_id TEXT NOT NULL,
  source_id TEXT NOT NULL,
  status TEXT NOT NULL,
  run_id TEXT,
  exported_run_id TEXT,
  exported_run_started_at TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  started_at TEXT,
  finished_at TEXT,
  records BIGINT NOT NULL DEFAULT 0,
  files TEXT NOT NULL DEFAULT '[]',
  error TEXT,
  PRIMARY KEY (destination_id, source_id)
);
`,
  },
  { version: 12, name: 'correlated assets, owners and ticket links', sql: correlation },
  // Issue 17: summary tables rebuilt in each run's epilogue, and the findings' severity-order index.
  { version: 13, name: 'summaries and severity order', sql: SUMMARY_MIGRATION },
  // Issue 17: the findings sorts the UI offers besides severity, each walked in index order (records.ts
  // queryRecords reads a sorted page as the values in order, then the nulls by id); and the note of
  // the indexes a first import dropped to build them once at its end (bulk-load.ts). Each indexes an
  // expression only the sort uses (records.ts SORT_ONLY): on the plain column SQLite, which keeps no
  // statistics, took the status index for `status=open` and sorted every open finding.
  {
    version: 14,
    name: 'findings sort indexes; deferred index notes',
    sql: `
${Object.entries(SORT_ONLY_INDEXES)
  // (the priority's index is migration 27's: its column came then)
  .filter(([c]) => c !== 'priority')
  .map(([c, expr]) => `CREATE INDEX rec_vulnerabilities_sort_${c} ON rec_vulnerabilities ((${expr}), id);`)
  .join('\n')}
CREATE TABLE deferred_indexes (name TEXT PRIMARY KEY, table_name TEXT NOT NULL, sql TEXT NOT NULL, run_id TEXT NOT NULL);
`,
  },
  // A finding's assetId / owner / department / site are read from its host (records.ts JOINED) instead
  // of being copied onto it: the copy meant rewriting every finding after an estate's first correlation.
  // The change feed is keyed by an auto-numbered sequence, its order: the key (time, record, change)
  // and the per-model index over it put each event of a first import at a random place in two indexes
  // of long text keys, costing PostgreSQL many times the rows themselves;
  // the sequence and the time only grow, so both indexes now take events at their end.
  {
    version: 15,
    name: "findings read their host's placement; change feed in sequence order",
    sql: placementAndSequence('seq INTEGER PRIMARY KEY'),
    postgres: placementAndSequence('seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY'),
  },
  // Issue 17: the coverage report and compliance per host from the summaries; hosts by the scanner's
  // last-seen date through an index; the CVE filter through the plugins that name a CVE.
  {
    version: 16,
    name: 'coverage and compliance summaries, hosts by scanner date, CVE plugins',
    sql: queryLatency('sqlite'),
    postgres: queryLatency('postgres'),
  },
  // PostgreSQL compares every table's text in byte order, as SQLite does: under the database's
  // locale (C.UTF-8 or en_US.UTF-8) each comparison goes through strcoll and PostgreSQL gives up its
  // abbreviated sort keys, which made a first import's index builds (ids, host ids, dates, plugin names)
  // and its summaries' sorts the larger part of its epilogue. The order a list sorts by is then the same on both stores. Every table, so that joins
  // compare columns of one collation (a join across two would not use the other's index). Nothing on SQLite.
  {
    version: BYTE_ORDER_FROM,
    name: 'record text in byte order on PostgreSQL',
    sql: '-- SQLite compares text in byte order already',
    postgres: byteOrderText(),
  },
  // The plugin's check type (local: found with credentials on the host; remote; combined): a column of
  // the plugin catalog, filled from the API's `checkType` and the CSV export's "Check Type".
  { version: 18, name: 'plugin check type', sql: 'ALTER TABLE rec_plugins ADD COLUMN check_type TEXT;' },
  // API token scopes (read, operate, admin): the tokens made before had every right, and keep it; new
  // tokens are written with their scope (a token made without one gets read).
  { version: 20, name: 'API token scopes', sql: `ALTER TABLE api_tokens ADD COLUMN scope TEXT NOT NULL DEFAULT 'admin';` },
  // Issue 28: knownExploited and epssScore become the one answer of the scanner and the offline feeds.
  { version: 21, name: 'known exploited by scanner or feed', sql: knownExploitedMigration('sqlite'), postgres: knownExploitedMigration('postgres') },
  // What a run could not use (store/sources/runs.ts): the files it rejected and the rows it could not store, each
  // a JSON list capped at RUN_LIST_CAP entries with the total beside it.
  {
    version: 22,
    name: 'run rejected files and row errors',
    sql: 'ALTER TABLE sync_runs ADD COLUMN rejected TEXT;\nALTER TABLE sync_runs ADD COLUMN row_errors TEXT;',
  },
  // A ticket naming more hosts or CVEs than one fix would (store/correlation/ticket-links.ts): linked by association only.
  { version: 23, name: 'broad tickets', sql: 'ALTER TABLE rec_tickets ADD COLUMN broad INTEGER;' },
  // A file import's scope (the repositories its rows named, and whether some named none: its file name)
  // and its export time (the date in its file name, else its upload time): a newer export of a scope is
  // its whole state, an older one changes nothing (docs/csv-import.md).
  {
    version: 24,
    name: 'file import scope and export time',
    sql: 'ALTER TABLE file_imports ADD COLUMN scope TEXT;\nALTER TABLE file_imports ADD COLUMN exported_at TEXT;',
  },
  // Who made a manual link or unlink (a user, an API token, the command line), shown with its date.
  { version: 25, name: 'who made an asset override', sql: 'ALTER TABLE asset_overrides ADD COLUMN created_by TEXT;' },
  // The scanner's own mitigation date of a finding (Tenable.sc patched rows): when it was fixed, for trends and MTTR.
  { version: 26, name: 'finding mitigation date', sql: 'ALTER TABLE rec_vulnerabilities ADD COLUMN mitigated_at TEXT;' },
  // Issue 31: what to fix first (docs/priority.md). A finding's CVSS vectors, the host criticality its
  // priority used, its SSVC decision and its priority, written with it; a host's criticality. The
  // priority sorts through an index of its own (schema.ts SORT_ONLY), and a decision's findings in
  // priority order through (decision, priority) (not led by status: SQLite would take such an index for
  // a status filter and sort every open finding, migration 14). Counts by decision, per host and per
  // plugin are in the summaries (summary-tables-write.ts). Findings stored before get theirs at the next
  // priority refresh (store/records/priority.ts).
  {
    version: 27,
    name: 'finding decision and priority',
    sql: `
ALTER TABLE rec_vulnerabilities ADD COLUMN cvss_v3_vector TEXT;
ALTER TABLE rec_vulnerabilities ADD COLUMN cvss_v2_vector TEXT;
ALTER TABLE rec_vulnerabilities ADD COLUMN asset_criticality DOUBLE PRECISION;
ALTER TABLE rec_vulnerabilities ADD COLUMN decision TEXT;
ALTER TABLE rec_vulnerabilities ADD COLUMN priority DOUBLE PRECISION;
ALTER TABLE rec_hosts ADD COLUMN criticality DOUBLE PRECISION;
CREATE INDEX rec_vulnerabilities_sort_priority ON rec_vulnerabilities ((${SORT_ONLY_INDEXES.priority}), id);
CREATE INDEX rec_vulnerabilities_decision_priority ON rec_vulnerabilities (decision, (${SORT_ONLY_INDEXES.priority}), id);
${SUMMARY_MIGRATION_27}`,
  },
  // Risk exceptions (store/exceptions/): an accepted or deferred risk for one finding, a plugin on chosen
  // assets, or a plugin everywhere, with its approval and expiry; every change of one kept in its history.
  { version: 28, name: 'risk exceptions', sql: EXCEPTIONS_MIGRATION },
  // Issue 31 §4, alerts (store/alerts/): webhook rules (their URL and signing secret sealed with the master
  // key), what each rule has already reported (marks, so an item is delivered once per rule), what a rule
  // compares with next time (the coverage counts), and the delivery log.
  { version: 29, name: 'alerts', sql: ALERTS_MIGRATION },
  // Remediation tickets (issue 32): one row per group key of a ticketing source, written as an intent
  // before its request is created (store/tickets/), and the audit log of every write.
  {
    version: 30,
    name: 'remediation tickets',
    sql: remediationTickets('seq INTEGER PRIMARY KEY'),
    postgres: remediationTickets('seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY'),
  },
  // Issue 30: compliance results filtered by result are listed in id order from one index range; the
  // index on the result alone made both stores fetch every result of that value and sort them (0.4 s at
  // 290,000 results). The findings of one plugin (the pluginId filter, and the CVE filter through the
  // plugins naming the CVE) in severity order the same way: the plugin index takes the severity rank
  // and id after the plugin id, so the default list stops after its page instead of reading every
  // finding of a plugin found on most hosts (17,000 heap reads, 0.2-0.7 s at 1.9 M findings). Each
  // replaces an index, so a first import builds as many. A first import that deferred an old index
  // builds the new one instead.
  {
    version: 32,
    name: 'compliance by result and findings by plugin in list order',
    sql: `DROP INDEX IF EXISTS rec_compliance_result;
DELETE FROM deferred_indexes WHERE name IN ('rec_compliance_result', 'rec_vulnerabilities_plugin_id');
CREATE INDEX rec_compliance_result_id ON rec_compliance (result, id);
DROP INDEX IF EXISTS rec_vulnerabilities_plugin_id;
CREATE INDEX rec_vulnerabilities_plugin_id ON rec_vulnerabilities (plugin_id, (${SEVERITY_RANK_INDEX}), id);`,
  },
  // Saved views: a user's named list (its UI path and query of filters and sort), one name per user.
  {
    version: 33,
    name: 'saved views',
    sql: `CREATE TABLE saved_views (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  name TEXT NOT NULL,
  path TEXT NOT NULL,
  query TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (user_id, name)
);`,
  },
  // Issue 32, speed: the findings each remediation request was last written with, one row each, so a plan
  // tells which groups changed by counting in SQL (store/tickets/findings.ts) instead of reading every
  // finding. Filled from remediation_tickets.finding_ids. (31 is another branch's.)
  {
    version: 34,
    name: 'remediation ticket findings',
    sql: `${REMEDIATION_TICKET_FINDINGS}
INSERT INTO remediation_ticket_findings (source_id, group_key, finding_id)
  SELECT t.source_id, t.group_key, j.value FROM remediation_tickets t, json_each(t.finding_ids) j WHERE true ON CONFLICT DO NOTHING;`,
    postgres: `${REMEDIATION_TICKET_FINDINGS}
INSERT INTO remediation_ticket_findings (source_id, group_key, finding_id)
  SELECT t.source_id, t.group_key, j.value FROM remediation_tickets t, jsonb_array_elements_text(t.finding_ids::jsonb) j(value) ON CONFLICT DO NOTHING;`,
  },
  // The run whose epilogue made a source's summaries: the next run's epilogue rebuilds only the groups of
  // what it stamped when the summaries are its previous run's (reports/summary-tables-touched.ts).
  { version: 35, name: 'summaries: the run that made them', sql: 'ALTER TABLE sum_state ADD COLUMN run_id TEXT;' },
  // The contract's name of CISA's Track* (interfaces.md 7.3) is `track-star`; rows written as `track*` follow.
  { version: 36, name: 'decision track* is track-star', sql: `UPDATE rec_vulnerabilities SET "decision" = 'track-star' WHERE "decision" = 'track*';` },
  // Remediation tickets (interfaces.md §7.4): a synced request Tributary wrote carries its remediation key.
  {
    version: 37,
    name: 'tickets: remediation key',
    sql: 'ALTER TABLE rec_tickets ADD COLUMN remediation_key TEXT;\nCREATE INDEX rec_tickets_remediation_key ON rec_tickets (remediation_key);',
  },
  // Open findings by source, severity and first-seen day, kept by every write (reports/open-ages.ts),
  // and the fixes of the feed with their figures (reports/fix-facts.ts), filled from the findings and the feed.
  {
    version: 38,
    name: 'remediation summaries',
    sql: openAgesMigration('sqlite') + fixFactsMigration('sqlite'),
    postgres: openAgesMigration('postgres') + fixFactsMigration('postgres'),
  },
  // Issue 31, speed: each host's summary carries its placement (asset, owner, department), kept by the
  // summaries' rebuild and by correlation, so the decisions per owner read the summaries alone (a join
  // of every summary row with its host took 113 ms at p95 at 954,000 findings). Copied from the hosts.
  { version: 40, name: 'host summaries: placement', sql: SUMMARY_MIGRATION_40 },
  // Issue 30: the findings' images before the run writing them, so its epilogue counts what changed.
  { version: 41, name: 'summaries: findings before the run', sql: SUMMARY_MIGRATION_41 },
  // A write sent to the service desk whose answer is not recorded yet (issue 32 §3): set before the call,
  // cleared with the record, so the run after a crash knows to look (for the note's tag) before writing again.
  { version: 42, name: 'tickets: the write in flight', sql: 'ALTER TABLE remediation_tickets ADD COLUMN pending TEXT;' },
  // Issue 31 §2: correlation moves a host's plugins between owners in the owners per plugin, a row found by its key.
  { version: 43, name: 'owners per plugin: key', sql: PLUGIN_OWNERS_MIGRATION_43 },
  // Issue 30, flat memory: a stream reads a source's hosts in pages by id (lookups.ts knownHostPages);
  // without this each page sorted every host of the source (rec_hosts_source is on removed, not id).
  { version: 45, name: 'hosts: a source in id order', sql: 'CREATE INDEX rec_hosts_source_id ON rec_hosts (source_id, id);' },
  // Issue 30: a generation of the hosts' placement, so a summary rebuild that read before a correlation
  // pass committed reads again inside its write transaction (summary-tables-guard.ts).
  { version: 46, name: 'placement generation', sql: PLACEMENT_GENERATION_MIGRATION_46 },
  // Issue 30 target 4: the fixes summed per day and per days to remediate (reports/fix-days.ts), so the
  // trends and a remediation window read a row per day, not every fix dated in the window. Filled from the fixes' rows.
  { version: 47, name: 'fixes per day', sql: fixDaysMigration('sqlite'), postgres: fixDaysMigration('postgres') },
  // Issue 31, speed: an alert rule's later evaluations read what changed since its last one (the findings
  // an update changed, the change feed's new findings, the due dates passed meanwhile), not every finding;
  // a removed rule's marks go a batch at a time (store/alerts/incremental.ts).
  { version: 48, name: 'alerts: incremental evaluation', sql: alertsMigration48('sqlite'), postgres: alertsMigration48('postgres') },
  // Issue 32 §4: open requests an earlier version left without a finding (it noted findings that left a
  // request but never closed it); the next apply closes them (set to movedStatus, noted).
  {
    version: 49,
    name: 'tickets: requests emptied by an earlier version',
    sql: `ALTER TABLE remediation_tickets ADD COLUMN emptied_earlier INTEGER NOT NULL DEFAULT 0;
UPDATE remediation_tickets SET emptied_earlier = 1 WHERE state = 'open' AND request_id IS NOT NULL AND finding_ids = '[]';`,
  },
];

function remediationTickets(seq: string): string {
  return `
CREATE TABLE remediation_tickets (
  source_id TEXT NOT NULL,
  group_key TEXT NOT NULL,
  marker TEXT NOT NULL,
  request_id TEXT,
  state TEXT NOT NULL,
  title TEXT NOT NULL,
  finding_ids TEXT NOT NULL,
  claimed_by TEXT,
  claimed_until TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (source_id, group_key)
);
CREATE UNIQUE INDEX remediation_tickets_marker ON remediation_tickets (marker);
CREATE TABLE remediation_ticket_log (
  ${seq},
  at TEXT NOT NULL,
  source_id TEXT NOT NULL,
  group_key TEXT NOT NULL,
  request_id TEXT,
  action TEXT NOT NULL,
  run_id TEXT NOT NULL,
  ok INTEGER NOT NULL,
  detail TEXT
);
CREATE INDEX remediation_ticket_log_source ON remediation_ticket_log (source_id, seq);
`;
}

/**
 * Every text column of PostgreSQL not yet in byte order is put in it (altering one already in it would
 * rebuild its indexes): migration BYTE_ORDER_FROM, and migrate.ts after each later one.
 */
export function byteOrderText(): string {
  return `
DO $$
DECLARE c record;
BEGIN
  FOR c IN SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND data_type = 'text' AND collation_name IS DISTINCT FROM 'C'
      AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE')
  LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN %I TYPE TEXT COLLATE "C"', c.table_name, c.column_name);
  END LOOP;
END $$;
`;
}

function queryLatency(dialect: 'sqlite' | 'postgres'): string {
  return `${SUMMARY_MIGRATION_16}${CVE_PLUGINS_TABLE}${CVE_PLUGINS_BACKFILL[dialect]}
CREATE INDEX rec_hosts_scanner_last_seen ON rec_hosts (scanner_last_seen, id);
`;
}

function placementAndSequence(seq: string): string {
  const cols = 'at, record_id, change, source_id, model, external_id, "from", "to", run_id';
  return `
${['asset_id', 'owner', 'department', 'site'].map((c) => `ALTER TABLE rec_vulnerabilities DROP COLUMN ${c};`).join('\n')}
CREATE TABLE changes_by_seq (
  ${seq},
  at TEXT NOT NULL,
  record_id TEXT NOT NULL,
  change TEXT NOT NULL,
  source_id TEXT NOT NULL,
  model TEXT NOT NULL,
  external_id TEXT,
  "from" TEXT,
  "to" TEXT,
  run_id TEXT NOT NULL
);
INSERT INTO changes_by_seq (${cols}) SELECT ${cols} FROM changes ORDER BY at, record_id, change;
DROP TABLE changes;
ALTER TABLE changes_by_seq RENAME TO changes;
CREATE INDEX changes_model ON changes (model, seq);
CREATE INDEX changes_at ON changes (at, seq);
`;
}
