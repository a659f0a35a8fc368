// The export formats: which models each can write, and how one record becomes one line (OCSF and ECS
// also read the record's host) or, for OCSF as Parquet, one event object. Shared by the CLI, the API
// and scheduled exports.
import type { ConnectorProduct } from '../core/connector.ts';
import { InputError } from '../core/errors.ts';
import { hasHost, MODEL_NAMES, type ModelName } from '../core/models.ts';
import { ecsBulkAction, ecsCompliance, ecsHost, ecsPackage } from './ecs.ts';
import { ecsVulnerabilityJson, ocsfVulnerabilityJson } from './json-fast.ts';
import { OCSF_VERSIONS, type OcsfVersion, ocsfComplianceFinding, ocsfDeviceInventory, ocsfSoftwareInventory, ocsfVulnerabilityFinding } from './ocsf.ts';
import { csvColumns, csvHeader, csvRow } from './tabular.ts';
import { type Rec, toJson } from './values.ts';

export const EXPORT_FORMATS = ['ocsf', 'ocsf-parquet', 'ecs', 'jsonl', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface FormatOptions {
  format: ExportFormat;
  /** OCSF schema version (default 1.1.0). */
  ocsfVersion?: OcsfVersion;
  /** ECS: an Elasticsearch `_bulk` action line with the record's id before each document. */
  ecsBulk?: boolean;
  /** CSV: text cells that start like a formula get a `'` (tabular.ts; default true); false writes them raw. */
  csvEscape?: boolean;
}

/** Writes records of one model as lines of one format. */
export interface LineWriter {
  /** The first line (CSV header), if any. */
  header: string | null;
  /** Records hang off a host and the format describes it (the host is looked up). */
  needsHost: boolean;
  /** One record (with its host, or null) → its line(s), without the final newline. */
  line(rec: Rec, host: Rec | null, product: ConnectorProduct): string;
}

/** Maps records of one model to OCSF event objects (what `ocsf` stringifies and `ocsf-parquet` encodes). */
export interface EventMapper {
  needsHost: boolean;
  event(rec: Rec, host: Rec | null, product: ConnectorProduct): Record<string, unknown>;
}

// Models each structured format can express (the models of later schema versions join by name).
const OCSF_MODELS: Record<OcsfVersion, string[]> = {
  '1.1.0': ['vulnerabilities', 'compliance', 'hosts', 'cmdb-assets', 'assets'],
  '1.3.0': ['vulnerabilities', 'compliance', 'hosts', 'cmdb-assets', 'assets', 'software'],
};
const ECS_MODELS = ['vulnerabilities', 'compliance', 'hosts', 'cmdb-assets', 'assets', 'software'];

export function isExportFormat(s: string): s is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(s);
}

export function parseFormat(format: string | undefined, ocsfVersion: string | undefined): FormatOptions {
  if (!format || !isExportFormat(format)) throw new InputError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`, 'format');
  const v = ocsfVersion ?? '1.1.0';
  if (!(OCSF_VERSIONS as readonly string[]).includes(v)) throw new InputError(`--ocsf-version must be one of ${OCSF_VERSIONS.join(', ')}`, 'ocsfVersion');
  return { format, ocsfVersion: v as OcsfVersion };
}

/** The models a format can write (all models for CSV and JSON Lines). */
export function modelsOf(opts: FormatOptions): ModelName[] {
  const names: readonly string[] = MODEL_NAMES;
  if (opts.format === 'ocsf' || opts.format === 'ocsf-parquet') return OCSF_MODELS[opts.ocsfVersion ?? '1.1.0'].filter((m) => names.includes(m)) as ModelName[];
  if (opts.format === 'ecs') return ECS_MODELS.filter((m) => names.includes(m)) as ModelName[];
  return [...MODEL_NAMES];
}

export function checkModel(model: ModelName, opts: FormatOptions): void {
  if (modelsOf(opts).includes(model)) return;
  const ocsf = opts.format === 'ocsf' || opts.format === 'ocsf-parquet';
  const what = ocsf ? `OCSF ${opts.ocsfVersion ?? '1.1.0'}` : opts.format.toUpperCase();
  const hint = ocsf && model === 'software' ? ' (Software Inventory Info is in OCSF 1.3.0: add --ocsf-version 1.3.0)' : '';
  throw new InputError(`${what} has no mapping for ${model}${hint}; it maps ${modelsOf(opts).join(', ')}; use --format jsonl or csv for any model`, 'format');
}

/** OCSF events of a model (the class its records map to) in a schema version. */
export function ocsfMapper(model: ModelName, opts: FormatOptions): EventMapper {
  checkModel(model, opts);
  const version = opts.ocsfVersion ?? '1.1.0';
  const o = (product: ConnectorProduct) => ({ version, product });
  if (model === 'vulnerabilities') return { needsHost: true, event: (rec, host, product) => ocsfVulnerabilityFinding(rec, host, o(product)) };
  if (model === 'compliance') return { needsHost: true, event: (rec, host, product) => ocsfComplianceFinding(rec, host, o(product)) };
  if (model === 'software') return { needsHost: true, event: (rec, host, product) => ocsfSoftwareInventory(rec, host, o(product)) };
  return { needsHost: hasHost(model), event: (rec, _host, product) => ocsfDeviceInventory(rec, o(product)) };
}

export function lineWriter(model: ModelName, opts: FormatOptions): LineWriter {
  checkModel(model, opts);
  if (opts.format === 'ocsf-parquet') throw new Error('ocsf-parquet is binary: write it with an OcsfParquetEncoder');
  if (opts.format === 'jsonl') return { header: null, needsHost: false, line: (rec) => JSON.stringify(rec) };
  if (opts.format === 'csv') {
    const columns = csvColumns(model);
    const neutralise = opts.csvEscape !== false;
    return { header: csvHeader(model), needsHost: false, line: (rec) => csvRow(columns, rec, neutralise) };
  }
  if (opts.format === 'ocsf' && model === 'vulnerabilities') {
    const version = opts.ocsfVersion ?? '1.1.0';
    return { header: null, needsHost: true, line: (rec, host, product) => ocsfVulnerabilityJson(rec, host, { version, product }) };
  }
  if (opts.format === 'ocsf') {
    const m = ocsfMapper(model, opts);
    return { header: null, needsHost: m.needsHost, line: (rec, host, product) => toJson(m.event(rec, host, product)) };
  }
  const needsHost = hasHost(model);
  const map = (rec: Rec, host: Rec | null, product: ConnectorProduct): unknown => {
    if (model === 'compliance') return ecsCompliance(rec, host, product);
    if (model === 'software') return ecsPackage(rec, host, product);
    return ecsHost(rec, product, model);
  };
  const bulk = opts.ecsBulk === true;
  return {
    header: null,
    needsHost,
    line: (rec, host, product) => {
      const doc = model === 'vulnerabilities' ? ecsVulnerabilityJson(rec, host, product) : toJson(map(rec, host, product) as Record<string, unknown>);
      return bulk ? `${ecsBulkAction(String(rec.id))}\n${doc}` : doc;
    },
  };
}

export function contentType(format: ExportFormat): string {
  if (format === 'ocsf-parquet') return 'application/vnd.apache.parquet';
  return format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
}

export function extension(format: ExportFormat): string {
  if (format === 'ocsf-parquet') return 'ocsf.parquet';
  return format === 'csv' ? 'csv' : format === 'jsonl' ? 'jsonl' : format === 'ecs' ? 'ndjson' : 'ocsf.jsonl';
}
