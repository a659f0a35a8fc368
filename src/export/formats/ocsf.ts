// OCSF as JSON Lines (one event per line) and the events OCSF as Parquet packs: which models each
// schema version maps, and the class each model's records become.
import type { ConnectorProduct } from '../../core/connector.ts';
import { hasHost, type ModelName } from '../../core/models.ts';
import { ocsfVulnerabilityFinding, ocsfVulnerabilityJson } from '../json-fast.ts';
import { type OcsfVersion, ocsfComplianceFinding, ocsfDeviceInventory, ocsfSoftwareInventory } from '../ocsf.ts';
import { toJson } from '../values.ts';
import type { EventMapper, ExportFormatDef, FormatOptions } from './types.ts';

// The models of later schema versions join by name.
const OCSF_MODELS: Record<OcsfVersion, ModelName[]> = {
  '1.1.0': ['vulnerabilities', 'compliance', 'hosts', 'cmdb-assets', 'assets'],
  '1.3.0': ['vulnerabilities', 'compliance', 'hosts', 'cmdb-assets', 'assets', 'software'],
};

const versionOf = (opts: FormatOptions): OcsfVersion => opts.ocsfVersion ?? '1.1.0';

/** OCSF events of a model (the class its records map to) in a schema version. */
export function ocsfEvents(model: ModelName, opts: FormatOptions): EventMapper {
  const version = versionOf(opts);
  const o = (product: ConnectorProduct) => ({ version, product });
  if (model === 'vulnerabilities')
    return { needsHost: true, priorityText: false, event: (rec, host, product) => ocsfVulnerabilityFinding(rec, host, o(product)) };
  if (model === 'compliance') return { needsHost: true, event: (rec, host, product) => ocsfComplianceFinding(rec, host, o(product)) };
  if (model === 'software') return { needsHost: true, event: (rec, host, product) => ocsfSoftwareInventory(rec, host, o(product)) };
  return { needsHost: hasHost(model), event: (rec, _host, product) => ocsfDeviceInventory(rec, o(product)) };
}

/** What the two OCSF formats share: the models, the name in errors, the hint for software. */
export const ocsfModels = {
  models: (opts: FormatOptions) => OCSF_MODELS[versionOf(opts)],
  label: (opts: FormatOptions) => `OCSF ${versionOf(opts)}`,
  hint: (model: ModelName) => (model === 'software' ? 'Software Inventory Info is in OCSF 1.3.0: add --ocsf-version 1.3.0' : null),
};

export const ocsf: ExportFormatDef = {
  ...ocsfModels,
  extension: 'ocsf.jsonl',
  contentType: 'application/x-ndjson; charset=utf-8',
  menu: [{ label: 'OCSF 1.1 (Security Lake, Splunk)' }, { label: 'OCSF 1.3', options: { ocsfVersion: '1.3.0' } }],
  lines: (model, opts) => {
    if (model === 'vulnerabilities') {
      const version = versionOf(opts);
      // A finding's event has no place for the priority's reason and factors (json-fast.ts).
      return { header: null, needsHost: true, priorityText: false, line: (rec, host, product) => ocsfVulnerabilityJson(rec, host, { version, product }) };
    }
    const m = ocsfEvents(model, opts);
    return { header: null, needsHost: m.needsHost, line: (rec, host, product) => toJson(m.event(rec, host, product)) };
  },
};
