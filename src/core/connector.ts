// The connector contract. A connector declares its type and names, the upstream it talks to, whether it
// reads files, a zod config schema with secret fields marked and laid out in form sections, a credential
// check made of named checks, and streams that yield pages of records with a checkpoint. Nothing here
// knows a vendor; nothing outside a connector's folder needs to.
import type { z } from 'zod';
import type { SourceBucket } from './files.ts';
import type { Logger } from './log.ts';
import type { IncomingRecord, ModelName } from './models.ts';
import type { RemediationTicketsConfig, TicketWriter } from './tickets.ts';

export interface ConfigFieldInfo {
  /** Label shown in the web UI (the seed's wording). */
  label: string;
  help?: string;
  /** Encrypted at rest, never returned, never logged. */
  secret?: boolean;
  /**
   * A URL that may carry `user:password@`: encrypted at rest like a secret, shown with the password
   * masked, and the password kept out of logs.
   */
  urlCredentials?: boolean;
  /**
   * Secret fields this field decides the destination of (a URL, a region that picks hosts, a proxy):
   * changing it requires entering those secrets again, so a stored secret never goes to a host it was
   * not entered for.
   */
  sendsSecrets?: string[];
  /** Input widget hint for the UI. */
  input?: 'text' | 'password' | 'boolean' | 'select' | 'textarea' | 'number';
  options?: { value: string; label: string }[];
  /** Shown only when another field has one of these values, e.g. { inputMode: ['api'] }. */
  showWhen?: Record<string, string[]>;
}

export interface CheckResult {
  id: string;
  ok: boolean;
  message: string;
  hint: string | null;
}

export type SyncMode = 'full' | 'incremental';

/** A host the store already holds for the source: its natural key and its fields. */
export interface KnownHost {
  key: string;
  fields: Record<string, unknown>;
}

/** Runtime state a connector keeps per source (e.g. an OAuth refresh token), encrypted by the store. */
export interface SourceStateAccess {
  get(): Promise<Record<string, unknown>>;
  set(patch: Record<string, unknown>): Promise<void>;
}

export interface ConnectorContext {
  sourceName: string;
  log: Logger;
  state: SourceStateAccess;
  /** The source's bucket, for file-mode streams (set by the runner when the file drop is configured). */
  bucket?: SourceBucket;
  signal?: AbortSignal;
  /**
   * A connection test of a configuration that is not saved: `state` is a scratch copy, and nothing
   * lasting may change upstream (no token revoked); the scratch state may be kept for the save.
   */
  trial?: boolean;
  /**
   * The scratch state a connection test of this same configuration ended with (e.g. the tokens a
   * one-time authorization code was exchanged for): `onSave` adopts it instead of repeating an
   * exchange that cannot be repeated. Given only when the test's secrets equal the saved ones.
   */
  tested?: Record<string, unknown>;
}

export interface StreamContext extends ConnectorContext {
  mode: SyncMode;
  /**
   * The stream's own checkpoint: on a fresh full run null; on an incremental run the checkpoint the
   * last completed run ended with; when resuming an interrupted run, the checkpoint of the last page
   * that was stored (`resumed` is then true and `mode` is the interrupted run's mode).
   */
  checkpoint: unknown | null;
  resumed: boolean;
  signal: AbortSignal;
  /**
   * Resolves once every page yielded so far is stored. The runner stores a page while the stream
   * reads the next one, so a stream that records something outside its pages once they are stored
   * (a file's import record after its last page) waits for this first. Absent outside the runner.
   */
  flush?: () => Promise<void>;
  /**
   * The hosts the store holds for this source (removed ones too), so a stream can map a row that names
   * its host by another identifier onto the host already stored: read from the store as they are
   * iterated, a page at a time, each host with only `fields` (what a stream keeps is the index it builds
   * from them, or hosts cut to those fields, never the whole rows). Absent outside the runner.
   */
  knownHosts?: (fields: readonly string[]) => AsyncIterable<KnownHost[]>;
  /** The stored hosts of these keys (those stored; removed ones too): what pages since a `knownHosts` read changed. Absent outside the runner. */
  knownHostsByKey?: (keys: string[]) => Promise<KnownHost[]>;
}

/** A row a stream read and could not store. */
export interface RowFailure {
  /** The model the row was for; absent: the stream's first model. */
  model?: ModelName;
  /** Which row: its upstream id where it has one, else its place (`row 12 of sumip`, `export.csv line 5`). */
  row: string;
  /** The field (or file column) at fault, null when the reason names none. */
  field: string | null;
  reason: string;
}

export interface Page {
  /** Records by model; one page may feed several models (e.g. plugin output carrying software). */
  records: Partial<Record<ModelName, IncomingRecord[]>>;
  /** Where to resume after this page; stored in the same transaction as the records. */
  checkpoint: unknown;
  /** Records the stream could not map, counted as errors in the run. */
  errors?: number;
  /** The rows of this page that could not be stored, each with why (they make the run partial); `errors` counts them too. */
  failures?: RowFailure[];
  /**
   * Which of the stream's models this run sweeps, when the stream knows better than the run's mode:
   * true = all of them, false = none, a list = those. The last page that sets it decides; unset = the
   * mode decides (a full run sweeps). File imports use it: a new complete export sweeps its scope in
   * any run, and a run that read no new export sweeps nothing even when it is full; each kind of export
   * sweeps its models within its own scope (a list of scoped sweeps).
   */
  sweep?: boolean | ModelName[] | ScopedSweep | ScopedSweep[];
}

/**
 * What a sweep covers when it is not the whole source (file snapshots, docs/csv-import.md): records
 * read from one of `origins` (IncomingRecord.origin), or whose host's `hostField` (e.g. the
 * repository) has one of its values. Records with no origin are outside every scope.
 */
export interface SweepScope {
  origins: string[];
  /** The file names of `origins`, in their order (for messages). */
  originKeys?: string[];
  hostField?: { name: string; values: string[] };
}

export interface ScopedSweep {
  models: ModelName[];
  scope: SweepScope;
}

export interface Stream {
  name: string;
  /** Models this stream writes. Each model belongs to exactly one stream of a connector. */
  models: ModelName[];
  /** What identifies a record upstream (documentation; the runner keys on IncomingRecord.key). */
  primaryKey: string[];
  /** The upstream field incremental runs page by, if any. */
  cursorField?: string;
  read(ctx: StreamContext): AsyncIterable<Page>;
}

/** How a connector reads exports from the file drop instead of its API. */
export interface FileInput<C> {
  /** Bucket read when the configuration's `bucket` key is empty (two sources may share it). */
  defaultBucket: string;
  /** File kinds the streams read (e.g. `csv`), for guidance; the streams decide per file. */
  kinds: string[];
  /** Whether this configuration reads files (else the API). */
  reads(config: C): boolean;
  /** What to upload, shown on the web UI's file page. */
  uploadHint?: string;
}

/** A group of fields in the configure form; fields in no section go under "Advanced settings". */
export interface ConfigSection {
  title?: string;
  help?: string;
  keys: string[];
}

export interface Connector<C extends Record<string, unknown> = Record<string, unknown>> {
  type: string;
  title: string;
  /** The name users know the upstream by (shorter than `title`), in lists and messages. */
  shortName: string;
  /**
   * The upstream an API-mode configuration talks to (its URL or another identity such as a region):
   * syncs of sources on one upstream share its concurrency limit. A URL counts by its host.
   */
  upstream(config: C): string;
  /** Present when the connector can read exports from the file drop. */
  files?: FileInput<C>;
  /**
   * The models its streams write, in any mode (the UI's source filter of a model's list offers the
   * sources whose connector writes it); absent = not declared. The runner refuses a stream writing another.
   */
  models?: ModelName[];
  /** Form layout of the fields; absent = every field in one section. */
  sections?: ConfigSection[];
  /**
   * Who made the upstream, for exports: the vendor and product named in OCSF metadata and ECS
   * `observer`/`vulnerability.scanner`, and the one namespace (ECS field set, OCSF `unmapped` key)
   * that holds values only this upstream has.
   */
  product?: ConnectorProduct;
  /** How people name this upstream's records in free text (tickets), for correlation. */
  references?: ConnectorReferences;
  /** zod schema of the configuration: defaults, cross-field rules. Must reject unknown keys. */
  configSchema: z.ZodType<C>;
  /** UI and masking metadata for every key of the configuration. */
  fields: Record<string, ConfigFieldInfo>;
  check(config: C, ctx: ConnectorContext): Promise<CheckResult[]>;
  streams(config: C, ctx: ConnectorContext): Stream[];
  /**
   * Called when a configuration is saved, before it is stored: may exchange one-time values
   * (an OAuth authorization code) for durable state, returning the config to store (without them).
   */
  onSave?(config: C, previous: C | null, ctx: ConnectorContext): Promise<C>;
  /** Called before a source is removed (e.g. to revoke a token). Errors are reported, not fatal. */
  onRemove?(config: C, ctx: ConnectorContext): Promise<void>;
  /**
   * Present when the upstream is a service desk that can take remediation tickets (src/tickets/): the
   * source's settings (off unless its configuration turns them on) and its write client.
   */
  tickets?: {
    settings(config: C): RemediationTicketsConfig;
    writer(config: C, ctx: ConnectorContext): TicketWriter;
  };
}

export interface ConnectorReferences {
  /**
   * Words that, before a number, name one of this upstream's plugin (check) ids in a ticket's text, as
   * "<word> [id] [:#] 156032" (any case). "plugin" is understood for every upstream.
   */
  pluginIdWords?: string[];
}

export interface ConnectorProduct {
  vendor: string;
  name: string;
  namespace: string;
}

const fieldKeys = (connector: Connector, which: (f: ConfigFieldInfo) => unknown): string[] =>
  Object.entries(connector.fields)
    .filter(([, f]) => which(f))
    .map(([k]) => k);

/** Fields sealed at rest: the secrets and the URLs that may carry a password. */
export const sealedKeys = (connector: Connector): string[] => fieldKeys(connector, (f) => f.secret || f.urlCredentials);

export const secretKeys = (connector: Connector): string[] => fieldKeys(connector, (f) => f.secret);

/** URL fields whose password is masked when shown. */
export const urlCredentialKeys = (connector: Connector): string[] => fieldKeys(connector, (f) => f.urlCredentials);

/**
 * Declares a connector: checks what types cannot (sections and the bucket key name declared fields)
 * and gives the registry its config-agnostic view. The one place the config type is erased: the
 * runner only ever hands a connector the configuration its own schema parsed.
 */
export function defineConnector<C extends Record<string, unknown>>(connector: Connector<C>): DefinedConnector<C> {
  for (const section of connector.sections ?? []) {
    for (const key of section.keys) {
      if (!(key in connector.fields)) throw new Error(`connector ${connector.type}: section key '${key}' is not a declared field`);
    }
  }
  if (connector.files && !('bucket' in connector.fields)) throw new Error(`connector ${connector.type}: reads files but declares no 'bucket' field`);
  return connector as DefinedConnector<C>;
}

/** A connector typed by its configuration (for its own tests) that the registry takes as any connector. */
export type DefinedConnector<C extends Record<string, unknown>> = Connector<C> & Connector;

/** The upstream identity of a source's API configuration, as the concurrency limit keys it (a URL by its host). */
export function upstreamKey(connector: Connector, config: Record<string, unknown>): string {
  const id = String(connector.upstream(config) || 'unknown');
  try {
    return new URL(id).host.toLowerCase() || id;
  } catch {
    return id;
  }
}

/** Whether a configuration reads the file drop rather than the API. */
export function readsFiles(connector: Connector, config: Record<string, unknown>): boolean {
  return connector.files?.reads(config) === true;
}
