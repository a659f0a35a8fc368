// Elastic Common Schema documents as NDJSON (optionally with `_bulk` action lines): findings as
// vulnerability documents, compliance results, packages, and hosts and assets as host documents.
import type { ConnectorProduct } from '../../core/connector.ts';
import { hasHost, type ModelName } from '../../core/models.ts';
import { ecsBulkAction, ecsCompliance, ecsHost, ecsPackage } from '../ecs.ts';
import { ecsVulnerabilityJson } from '../json-fast.ts';
import { type Rec, toJson } from '../values.ts';
import type { ExportFormatDef } from './types.ts';

const ECS_MODELS: ModelName[] = ['vulnerabilities', 'compliance', 'hosts', 'cmdb-assets', 'assets', 'software'];

function ecsDocument(model: ModelName): (rec: Rec, host: Rec | null, product: ConnectorProduct) => string {
  if (model === 'vulnerabilities') return ecsVulnerabilityJson;
  if (model === 'compliance') return (rec, host, product) => toJson(ecsCompliance(rec, host, product));
  if (model === 'software') return (rec, host, product) => toJson(ecsPackage(rec, host, product));
  return (rec, _host, product) => toJson(ecsHost(rec, product, model));
}

export const ecs: ExportFormatDef = {
  extension: 'ndjson',
  contentType: 'application/x-ndjson; charset=utf-8',
  models: () => ECS_MODELS,
  label: () => 'ECS',
  menu: [{ label: 'ECS (Elasticsearch)' }],
  lines: (model, opts) => {
    const doc = ecsDocument(model);
    const bulk = opts.ecsBulk === true;
    return {
      header: null,
      needsHost: hasHost(model),
      // A finding's document has no place for the priority's reason and factors (json-fast.ts).
      priorityText: model !== 'vulnerabilities',
      line: (rec, host, product) => (bulk ? `${ecsBulkAction(String(rec.id))}\n${doc(rec, host, product)}` : doc(rec, host, product)),
    };
  },
};
