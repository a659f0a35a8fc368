// The CMDB's CI types, listed once per read: the CI lists the assets stream reads beside the asset API,
// and the business-service types the services stream reads.
import { lookupBudgetError, lookupPageBudget, SdpApiError, type SdpClient } from '../client.ts';
import { text } from '../map/values.ts';
import { PAGE_SIZE } from './paging.ts';

export interface CiType {
  name: string;
  apiName: string;
  pluralName: string | null;
}

/** CI types: cloud `cmdb/ci_types`, on-prem `ci_types` (each tried as the other's fallback). */
export async function listCiTypes(client: SdpClient, signal?: AbortSignal): Promise<CiType[] | null> {
  const paths = client.deployment === 'cloud' ? ['cmdb/ci_types', 'ci_types'] : ['ci_types', 'cmdb/ci_types'];
  for (const path of paths) {
    try {
      const out: CiType[] = [];
      const budget = lookupPageBudget();
      for (let start = 1, pages = 1; ; start += PAGE_SIZE, pages++) {
        if (pages > budget.pages) throw lookupBudgetError(path, 'CI types', budget);
        const res = await client.list(path, { row_count: PAGE_SIZE, start_index: start }, { signal, key: 'ci_types' });
        for (const r of res.rows) {
          const apiName = text(r.api_name);
          if (apiName) out.push({ name: text(r.name) ?? apiName, apiName, pluralName: text(r.api_plural_name) });
        }
        if (!res.hasMore) break;
      }
      return out;
    } catch (err) {
      if (err instanceof SdpApiError && err.kind === 'not-found') continue;
      throw err;
    }
  }
  return null;
}

export const isBusinessService = (t: CiType) => /business_?service/i.test(t.apiName);

export function ciPath(client: SdpClient, t: CiType): { path: string; alt: string } {
  const cloud = `cmdb/${t.apiName}`;
  const onprem = t.pluralName ?? t.apiName;
  return client.deployment === 'cloud' ? { path: cloud, alt: onprem } : { path: onprem, alt: cloud };
}
