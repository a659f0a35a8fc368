// SDP service categories and CMDB business services → `services` fields. Pure: reused by the CSV import.
import { FieldError } from '../../../core/map-rows.ts';
import type { FieldsOf, RecordOf } from '../../../core/models.ts';
import type { Json } from './envelope.ts';
import { bool, personName, refName, text } from './values.ts';

export function serviceCategoryFields(row: Json): FieldsOf<'services'> {
  const deleted = bool(row.deleted);
  return {
    name: text(row.name),
    description: text(row.description),
    category: 'Service Category',
    owner: null,
    status: deleted === null ? null : deleted ? 'inactive' : 'active',
  };
}

export function mapServiceCategory(row: Json): RecordOf<'services'> {
  const id = text(row.id);
  if (!id) throw new FieldError('id', 'service category without id');
  return { key: `service_category:${id}`, externalId: id, fields: serviceCategoryFields(row) };
}

export function businessServiceFields(row: Json): FieldsOf<'services'> {
  const status = refName(row.status ?? row.state ?? null);
  return {
    name: text(row.name),
    description: text(row.description),
    category: refName(row.ci_type) ?? 'Business Service',
    owner: personName(row.managed_by ?? row.owned_by ?? row.owner ?? null),
    status: status ? status.toLowerCase() : null,
  };
}

export function mapBusinessService(row: Json): RecordOf<'services'> {
  const id = text(row.id);
  if (!id) throw new FieldError('id', 'business service without id');
  return { key: `business_service:${id}`, externalId: id, fields: businessServiceFields(row) };
}
