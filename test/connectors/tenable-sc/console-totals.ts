// What a console holds, asked of its own API: the non-compliance findings of severity Low..Critical in
// one of its sets (cumulative: open; patched: fixed), the count a sync of it must store.
import type { TenableScClient } from '../../../src/connectors/tenable-sc/client.ts';

export async function consoleFindingTotal(client: TenableScClient, sourceType: 'cumulative' | 'patched'): Promise<number> {
  const page = await client.fetchAnalysisPage({
    tool: 'vulndetails',
    sourceType,
    offset: 0,
    limit: 1,
    filters: [
      { filterName: 'severity', operator: '=', value: '1,2,3,4' },
      { filterName: 'pluginType', operator: '=', value: 'active' },
    ],
  });
  return Number(page.total);
}
