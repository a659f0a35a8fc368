// Service categories.
import type { SdpDataset } from './data.ts';
import { unit } from './generators.ts';
import { type Flavour, idOf, type Json } from './kinds.ts';
import { SERVICE_CATEGORY_NAMES } from './reference-data.ts';

export function serviceCategoryRecord(data: SdpDataset, i: number, flavour: Flavour): Json {
  const name = SERVICE_CATEGORY_NAMES[i % SERVICE_CATEGORY_NAMES.length]!;
  return {
    id: idOf('service_categories', i, flavour),
    name: i < SERVICE_CATEGORY_NAMES.length ? name : `${name} ${Math.floor(i / SERVICE_CATEGORY_NAMES.length) + 1}`,
    description: unit(data.seed, 'svc', i, 'desc?') < 0.3 ? null : `Requests about ${name.toLowerCase()}`,
    deleted: data.rev('service_categories', i) % 2 === 1,
  };
}
