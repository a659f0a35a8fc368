// The /api/v1 request and response shapes, declared once: the server derives its route schemas
// (validation, serialization, OpenAPI) from them, and the web client imports the inferred types.
// Only zod and the model declarations here: the browser imports this file for its types alone, so
// nothing of it is bundled.
import { z } from 'zod';
import { FEED_KINDS, type FieldDef, fieldsOf, type KindValue, MODEL_NAMES, type ModelFieldDef, type ModelName } from './models.ts';
import { DEFAULT_TOKEN_SCOPE, SCOPE_COVERS, TOKEN_SCOPES } from './token-scopes.ts';

export const nullableString = z.string().nullable();

export const errorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), field: nullableString }).loose(),
});
export type ErrorBody = z.infer<typeof errorBody>;

// ---- auth ----

export const sessionInfo = z.object({
  user: z.object({ id: z.string(), username: z.string() }),
  csrfToken: nullableString,
  via: z.enum(['session', 'token']),
  scope: z.enum(TOKEN_SCOPES).describe('what this login or token may do; a session has admin'),
});
export type SessionInfo = z.infer<typeof sessionInfo>;

// ---- runs ----

export const runStatus = z.enum(['running', 'succeeded', 'failed', 'partial', 'interrupted']);
export type RunStatus = z.infer<typeof runStatus>;
export const runMode = z.enum(['full', 'incremental']);

export const runCounts = z.record(
  z.string(),
  z.object({ records: z.int(), errors: z.int(), truncated: z.int().optional().describe('records stored with a field cut short (nested too deep)') }),
);

export const run = z.object({
  id: z.string(),
  source: nullableString,
  status: runStatus,
  mode: runMode,
  trigger: nullableString,
  resumedFrom: nullableString,
  startedAt: z.string(),
  finishedAt: nullableString,
  heartbeatAt: nullableString,
  durationMs: z.int(),
  live: z.boolean().describe('counts are live from this process (else from the last stored heartbeat)'),
  counts: runCounts,
  activity: z
    .object({
      retries: z.int(),
      rateLimited: z.int(),
      log: z.array(z.object({ at: z.string(), level: z.enum(['info', 'warn', 'error']), msg: z.string() })),
    })
    .nullable()
    .optional()
    .describe('upstream retries, how many followed an HTTP 429, and the latest log lines of the run (null for runs from before these were kept)'),
  error: nullableString,
  rejected: z
    .array(z.object({ file: z.string(), reason: z.string() }))
    .optional()
    .describe('files the run rejected whole, with why (the first 1000; one run: GET /api/v1/runs/{id})'),
  rejectedTotal: z.int().describe('files the run rejected (any makes the run partial)'),
  errors: z
    .array(z.object({ model: z.string(), row: z.string(), field: nullableString, reason: z.string() }))
    .optional()
    .describe('rows the run could not store: model, row (its id or place), the field at fault, why (the first 1000; one run: GET /api/v1/runs/{id})'),
  errorsTotal: z.int().describe('rows the run could not store (any makes the run partial)'),
});
export type Run = z.infer<typeof run>;
export const runList = z.object({ items: z.array(run) });

/** The last run as a source's view carries it (the store's run record, at least these fields). */
export const runSummary = z
  .object({ id: z.string(), status: runStatus, mode: runMode, startedAt: z.string(), finishedAt: nullableString, error: nullableString })
  .loose();
export type RunSummary = z.infer<typeof runSummary>;

export const limitQuery = (max: number, def: number) => z.strictObject({ limit: z.int().min(1).max(max).default(def) });
/** A source's runs: how many, and which statuses (repeatable). */
export const sourceRunsQuery = z.strictObject({
  limit: z.int().min(1).max(1000).default(50),
  status: z.array(runStatus).optional().describe('only runs with this status; repeat for several'),
});
/** Recent runs: of all sources or one. */
export const runsQuery = sourceRunsQuery.extend({ source: z.string().optional().describe('only the runs of this source') });

// ---- exports ----

export const exportStatus = z.object({
  destination: z.string(),
  source: z.string(),
  status: z.enum(['running', 'succeeded', 'failed', 'never']).describe('running, succeeded, failed (never: not run yet)'),
  runId: nullableString,
  attempts: z.int(),
  startedAt: nullableString,
  finishedAt: nullableString,
  records: z.int(),
  files: z.array(z.string()),
  error: nullableString,
});
export type ExportStatus = z.infer<typeof exportStatus>;

export const exportDestination = z.object({
  name: z.string(),
  source: nullableString.describe('null: every source'),
  target: z.string(),
  format: z.string(),
  ocsfVersion: nullableString,
  ecsBulk: z.boolean(),
  models: z.array(z.string()),
  mode: z.enum(['full', 'changes']),
  createdAt: z.string(),
  status: z.array(exportStatus),
});
export type ExportDestination = z.infer<typeof exportDestination>;
export const exportDestinationList = z.object({ items: z.array(exportDestination) });
export const exportStatusList = z.object({ items: z.array(exportStatus) });
/** The export menu (GET /api/v1/export/formats): each entry a format with the options it sets and the models it writes so. */
export const exportFormatList = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      format: z.string(),
      label: z.string(),
      params: z.object({ ocsfVersion: z.string().optional() }),
      models: z.array(z.string()),
    }),
  ),
});
export type ExportFormatChoice = z.infer<typeof exportFormatList>['items'][number];

// ---- sources ----

export const checkResult = z.object({ id: z.string(), ok: z.boolean(), message: z.string(), hint: nullableString });
export type CheckResult = z.infer<typeof checkResult>;

export const sourceView = z.object({
  name: z.string(),
  type: z.string(),
  config: z.record(z.string(), z.unknown()).describe('configuration with secret values replaced by "********"'),
  schedule: nullableString,
  createdAt: z.string(),
  updatedAt: z.string(),
  lastCheck: z.object({ ok: z.boolean(), at: z.string() }).loose().nullable().describe('the last credential check; its checks pass through as stored'),
  lastRun: runSummary.nullable(),
  exports: z.array(exportStatus).optional().describe('scheduled exports that apply to this source, with the status of the last one'),
  unreadableSecrets: z.array(z.string()).optional().describe('stored secrets the master key cannot decrypt: enter them again'),
});
export type SourceView = z.infer<typeof sourceView>;
export const sourceList = z.object({ items: z.array(sourceView) });

export const sourceCheck = z.object({
  ok: z.boolean(),
  checks: z.array(checkResult),
  warnings: z.array(z.string()).optional().describe('not failures: e.g. a stale offline feed'),
  connectionTest: nullableString
    .optional()
    .describe(
      'a test of an unsaved configuration that obtained something the save must keep (tokens from a one-time authorization code): send it as connectionTest with the save, within 10 minutes',
    ),
});
export type SourceCheck = z.infer<typeof sourceCheck>;

// ---- connectors ----

export const fieldMeta = z
  .object({
    key: z.string(),
    label: z.string(),
    help: nullableString,
    secret: z.boolean(),
    input: z.enum(['text', 'password', 'boolean', 'select', 'textarea', 'number']),
    options: z.array(z.object({ value: z.string(), label: z.string() })).nullable(),
    showWhen: z.record(z.string(), z.array(z.string())).nullable(),
    /** Secret fields whose destination this field decides: changing it needs them entered again. */
    sendsSecrets: z.array(z.string()).nullable().optional(),
    default: z.unknown().optional(),
  })
  .loose();
export type FieldMeta = z.infer<typeof fieldMeta>;

/** A group of a connector's form fields; its other fields go under "Advanced settings". */
export const connectorSection = z.object({ title: nullableString, help: nullableString, keys: z.array(z.string()) });
export type ConnectorSection = z.infer<typeof connectorSection>;

export const connectorMeta = z.object({
  type: z.string(),
  title: z.string(),
  /** The name users know the upstream by, in lists and headings. */
  shortName: z.string(),
  /** The models its sources write (null: not declared). */
  models: z.array(z.string()).nullable().describe('the models its sources write (null: not declared)'),
  /** Form layout declared by the connector; null = every field in one section. */
  sections: z.array(connectorSection).nullable(),
  /** Present when the connector can read exports from the file drop. */
  files: z.object({ defaultBucket: z.string(), kinds: z.array(z.string()), uploadHint: nullableString }).nullable(),
  fields: z.array(fieldMeta),
});
export type ConnectorMeta = z.infer<typeof connectorMeta>;
export const connectorList = z.object({ items: z.array(connectorMeta) });

// ---- records ----

/** One normalized record of any model: the fields every record has, the others untyped (a list of any model's records). */
export const recordItem = z.object({ id: z.string(), source: nullableString }).catchall(z.unknown());
export type Rec = z.infer<typeof recordItem>;

/** One link of a ticket to an asset, as correlation stores it (store/correlation/ticket-links.ts). */
export const ticketAssetLink = z.object({
  assetId: z.string(),
  reason: z.string().describe('associated, hostname, fqdn, ip or asset-tag'),
  value: z.string(),
  covers: z.boolean().optional().describe('associated with a ticket that names no CVE or plugin: it covers every finding of the asset'),
});
export type TicketAssetLink = z.infer<typeof ticketAssetLink>;

/**
 * The json fields whose content is known (made by correlation or a connector's mapper), by model; the
 * others are any JSON value. Each is null where the record has none.
 */
const JSON_FIELDS = {
  assets: {
    matchDetails: z.record(z.string(), z.unknown()).nullable().describe('why the members are one asset: the links and their identifiers'),
    openFindings: z.record(z.string(), z.int()).nullable().describe('open findings of its hosts by severity'),
  },
  tickets: {
    associatedAssets: z.array(z.object({ id: nullableString, name: nullableString })).nullable(),
    assetLinks: z.array(ticketAssetLink).nullable(),
  },
  'cmdb-assets': { attributes: z.record(z.string(), z.unknown()).nullable() },
} satisfies { [M in ModelName]?: Record<string, z.ZodType> };
type JsonFields = typeof JSON_FIELDS;

/** A field's value in an answer, from its declaration: an enum's values, a list's elements, else its kind's; null where unset. */
type FieldValue<F extends FieldDef> = F extends { array?: true }
  ? (F extends { items: 'text' } ? string[] : unknown[]) | null
  : F extends { values: readonly (infer V)[] }
    ? V | null
    : F extends { kind: 'json' }
      ? unknown
      : KindValue[F['kind']] | null;
type Known<M extends ModelName> = M extends keyof JsonFields ? { [K in keyof JsonFields[M]]: z.output<JsonFields[M][K]> } : Record<never, never>;

/**
 * A record of model `M` as the API answers it: the common fields, then its model's (MODEL_FIELDS) and
 * the ones read with it (COMPUTED_FIELDS), each typed by its declaration.
 */
export type ModelRecord<M extends ModelName> = {
  id: string;
  /** null for a correlated asset (no source's record). */
  source: string | null;
  externalId: string | null;
  firstSeen: string | null;
  lastSeen: string | null;
  removed: boolean;
} & { [F in ModelFieldDef<M> as F['name'] extends keyof Known<M> ? never : F['name']]: FieldValue<F> } & Known<M>;

const COMMON_SHAPE = {
  id: z.string(),
  source: nullableString,
  externalId: nullableString,
  firstSeen: nullableString,
  lastSeen: nullableString,
  removed: z.boolean(),
};

/** The shape of a field's value, from its declaration (FieldValue in zod). */
function fieldShape(f: FieldDef): z.ZodType {
  if (f.array) return z.array(f.items === 'text' ? z.string() : z.unknown()).nullable();
  if (f.values) return z.enum(f.values).nullable();
  switch (f.kind) {
    case 'int':
      return z.int().nullable();
    case 'real':
      return z.number().nullable();
    case 'bool':
      return z.boolean().nullable();
    case 'json':
      return z.unknown();
    default:
      return nullableString;
  }
}

function recordShape(model: ModelName): z.ZodObject {
  const known: Record<string, z.ZodType> = JSON_FIELDS[model as keyof JsonFields] ?? {};
  const shape: Record<string, z.ZodType> = { ...COMMON_SHAPE };
  for (const f of fieldsOf(model)) shape[f.name] ??= known[f.name] ?? fieldShape(f);
  return z.object(shape);
}

/** Each model's record shape, derived from its field declarations: the answer of GET /api/v1/{model}/{id}, and the items of GET /api/v1/{model}. */
export const recordShapes = Object.fromEntries(MODEL_NAMES.map((m) => [m, recordShape(m)])) as unknown as {
  [M in ModelName]: z.ZodType<ModelRecord<M>>;
};

/** A page of a cursor-paged list. */
export const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: nullableString });
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

// ---- path parameters ----

export const nameParams = z.object({ name: z.string().min(1).max(200) });
export const idParams = z.object({ id: z.string() });

// ---- file drop ----

export const bucketObject = z.object({ key: z.string(), size: z.int(), etag: z.string(), lastModified: z.string() });

export const fileImport = z.object({
  id: z.string(),
  etag: z.string(),
  size: z.int(),
  kind: nullableString,
  rowsRead: z.int(),
  rowsImported: z.int(),
  rowsRejected: z.int(),
  rejections: z.array(z.object({ line: z.int(), reason: z.string() })),
  status: z.enum(['imported', 'partial', 'rejected', 'skipped']),
  error: nullableString,
  scope: z
    .object({ repositories: z.array(z.string()), fileName: z.boolean() })
    .nullable()
    .optional()
    .describe('what the export is the state of: the repositories its rows named, and its file name when some row named none'),
  exportedAt: nullableString.optional().describe('the date in its file name, else its upload time'),
  importedAt: z.string(),
  runId: nullableString,
});
export type FileImport = z.infer<typeof fileImport>;
export const importHistory = z.object({ items: z.array(fileImport.extend({ key: z.string(), bucket: z.string() })) });

export const bucketFile = bucketObject.extend({
  status: z.enum(['pending', 'changed', 'imported', 'partial', 'rejected', 'skipped']),
  import: fileImport.nullable(),
});
export type BucketFile = z.infer<typeof bucketFile>;
export const bucketListing = z.object({
  bucket: z.string(),
  address: z.string(),
  folder: nullableString.describe('the bucket folder on a local file drop; null on S3'),
  items: z.array(bucketFile),
});
export type BucketListing = z.infer<typeof bucketListing>;

export const uploadedFile = bucketObject.extend({
  bucket: z.string(),
  address: z.string(),
  path: nullableString.describe('the file on a local file drop; null on S3'),
});
export const uploadedFiles = z.object({ items: z.array(uploadedFile) });

export const fileDropGuide = z.object({
  source: z.string(),
  type: z.string(),
  bucket: z.string(),
  address: z.string(),
  folder: nullableString.describe('the bucket folder on a local file drop; null on S3'),
  backend: z.enum(['file', 's3']),
  storage: z.string(),
  s3: z.object({ endpoint: nullableString, region: z.string(), forcePathStyle: z.boolean() }).nullable(),
  sharedWith: z.array(z.string()),
  file: nullableString,
  expiresAt: z.string(),
  presignedUrl: nullableString,
  token: z.object({ id: z.string(), token: z.string(), file: nullableString, expiresAt: z.string() }).nullable(),
  uploadUrl: nullableString,
  commands: z.array(z.object({ label: z.string(), command: z.string() })),
  notes: z.array(z.string()),
});
export type FileDropGuide = z.infer<typeof fileDropGuide>;

export const uploadToken = z.object({
  id: z.string(),
  bucket: z.string(),
  file: nullableString,
  createdBy: nullableString,
  createdAt: z.string(),
  expiresAt: z.string(),
  revokedAt: nullableString,
  lastUsedAt: nullableString,
  uploads: z.int(),
  active: z.boolean(),
});
export type UploadToken = z.infer<typeof uploadToken>;
export const uploadTokenList = z.object({ items: z.array(uploadToken) });

// ---- small answers ----

export const syncStarted = z.object({ runId: nullableString, jobId: z.string().optional() });
export type SyncStarted = z.infer<typeof syncStarted>;
export const sourceRemoved = z.object({ removed: z.string(), warnings: z.array(z.string()) });
export type SourceRemoved = z.infer<typeof sourceRemoved>;
export const exportRemoved = z.object({ removed: z.string() });

export const tokenScope = z.enum(TOKEN_SCOPES).describe(`what the token may do: ${TOKEN_SCOPES.map((s) => `${s} (${SCOPE_COVERS[s]})`).join('; ')}`);
export const apiToken = z.object({
  id: z.string(),
  name: z.string(),
  scope: tokenScope,
  createdAt: z.string(),
  lastUsedAt: nullableString.describe('last request made with it (recorded at most once a minute)'),
  expiresAt: nullableString.describe('refused from then on; null = never'),
});
export type ApiToken = z.infer<typeof apiToken>;
export const apiTokenList = z.object({ items: z.array(apiToken) });
export const apiTokenCreated = z.object({ id: z.string(), name: z.string(), scope: tokenScope, token: z.string(), expiresAt: nullableString });

// ---- saved views ----

export const savedView = z.object({
  id: z.string(),
  name: z.string(),
  path: z.string().describe("the list's path in the web UI, `/inventory/vulnerabilities`"),
  query: z.string().describe('its query string without `?`: filters and sort, as the list keeps them in its URL'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type SavedViewShape = z.infer<typeof savedView>;
export const savedViewList = z.object({ items: z.array(savedView) });
export const savedViewBody = z.object({
  name: z.string().min(1).max(100).regex(/\S/, 'a name').describe('unique per user: saving under a taken name replaces that view'),
  path: z
    .string()
    .max(200)
    .regex(/^\/(?!\/)[A-Za-z0-9._~/-]*$/, 'a path of the web UI, starting with one /'),
  query: z.string().max(4000).describe('a leading `?` is dropped'),
});
export const savedViewsQuery = z.object({ path: z.string().max(200).optional().describe("only the views of this list's path") });

// ---- feeds ----

export const feedInfo = z.object({
  kind: z.enum(FEED_KINDS),
  name: z.string(),
  version: z.string(),
  released: z.iso.datetime().describe("the feed's own date (KEV dateReleased, EPSS score_date)"),
  records: z.int(),
  size: z.int(),
  sha256: z.string(),
  fileName: nullableString,
  importedAt: z.iso.datetime(),
  versions: z.int().describe('versions imported so far, this one included'),
  ageDays: z.int(),
  stale: z.boolean(),
});
export type FeedInfo = z.infer<typeof feedInfo>;
export const feedList = z.object({ items: z.array(feedInfo) });
export const feedImport = z.object({
  imported: z.array(
    feedInfo
      .partial()
      .required({ kind: true, name: true, version: true, released: true, records: true, size: true })
      .extend({ file: z.string(), status: z.enum(['imported', 'unchanged']) }),
  ),
  findingsUpdated: z.int(),
});
export type FeedImport = z.infer<typeof feedImport>;

export const cveFacts = z.object({
  cve: z.string(),
  kev: z.object({ dateAdded: z.string(), dueDate: nullableString, ransomware: nullableString, name: nullableString }).nullable(),
  epss: z.object({ score: z.number(), percentile: z.number().nullable() }).nullable(),
});
export type CveFacts = z.infer<typeof cveFacts>;
export const cveFactsList = z.object({ items: z.array(cveFacts) });

// ---- request bodies ----

export const loginBody = z.strictObject({ username: z.string().min(1).max(200), password: z.string().min(1).max(1000) });
export type LoginBody = z.infer<typeof loginBody>;
export const tokenCreateBody = z.strictObject({
  name: z.string().min(1).max(100),
  scope: tokenScope.optional().describe(`read, operate or admin; left out: ${DEFAULT_TOKEN_SCOPE}`),
  expiresIn: z.string().max(20).optional().describe('lifetime such as 12h or 90d (1m to 3650d); left out, the token never expires'),
});
export type TokenCreateBody = z.infer<typeof tokenCreateBody>;

const anyConfig = z.record(z.string(), z.unknown());
const connectionTest = z
  .string()
  .max(100)
  .optional()
  .describe('connectionTest of a test of this unsaved configuration: the save keeps what the test obtained (a one-time code is not exchanged twice)');
const trialFields = {
  config: anyConfig.optional().describe('the configuration as in the form (for a stored source: the changes; a secret left out keeps its value)'),
  schedule: nullableString.optional(),
};

export const sourceCreateBody = z.strictObject({
  name: z.string().min(1).max(200),
  type: z.string().min(1),
  config: anyConfig.optional(),
  schedule: nullableString.optional().describe('an interval such as 6h, or a cron expression; empty = manual only'),
  connectionTest,
});
export type SourceCreateBody = z.infer<typeof sourceCreateBody>;
export const sourceChangeBody = z.strictObject({ config: anyConfig.optional(), schedule: nullableString.optional(), connectionTest });
export type SourceChangeBody = z.infer<typeof sourceChangeBody>;
/** Test Connection of a new source's form. */
export const sourceTrialBody = z.strictObject({ type: z.string().min(1), name: z.string().max(200).optional(), ...trialFields });
export type SourceTrialBody = z.infer<typeof sourceTrialBody>;
/** The check of a stored source, with unsaved changes when given. */
export const sourceCheckBody = z.strictObject(trialFields);
export type SourceCheckBody = z.infer<typeof sourceCheckBody>;
export const syncBody = z.strictObject({
  full: z.boolean().optional(),
  allowLargeRemoval: z.boolean().optional().describe("with full: let the sweep remove more than the sweep guard allows (the CLI's --allow-large-removal)"),
});
export type SyncBody = z.infer<typeof syncBody>;
