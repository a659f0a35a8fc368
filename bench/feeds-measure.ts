// Times what the offline feeds cost on a store of N findings: importing an EPSS file of C scores and
// a KEV catalog (parse, store, recompute every finding's feed fields), and a sync page written with
// the feeds in place (the per-CVE lookup). `node bench/feeds-measure.ts [--findings 200000] [--cves 250000] [--store sqlite|postgres]`
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { AppContext } from '../src/app/context.ts';
import type { IncomingRecord } from '../src/core/models.ts';
import { SecretBox } from '../src/core/secrets.ts';
import { importFeedFiles } from '../src/feeds/index.ts';
import { openStore } from '../src/store/index.ts';
import { freshPostgres } from './scratch-database.ts';

const { values } = parseArgs({
  options: {
    findings: { type: 'string', default: '200000' },
    cves: { type: 'string', default: '250000' },
    store: { type: 'string', default: 'sqlite' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
const N = Number(values.findings);
const C = Number(values.cves);
const cve = (i: number) => `CVE-${2000 + (i % 25)}-${10000 + i}`;

let url: string;
let cleanup: () => Promise<void>;
if (values.store === 'sqlite') {
  const dir = mkdtempSync(join(tmpdir(), 'feeds-'));
  url = `sqlite:${join(dir, 'db.sqlite')}`;
  cleanup = async () => rmSync(dir, { recursive: true, force: true });
} else {
  ({ url, drop: cleanup } = await freshPostgres(values['pg-url']!));
}
const store = await openStore(url, new SecretBox(Buffer.alloc(32, 1)), () => []);
const source = await store.sources.create('lab', 'fixture', {}, null);
const stamp = { sourceId: source.id, sourceName: 'lab', runId: 'r', generation: 'g', now: new Date().toISOString() };
const page = (from: number): IncomingRecord[] => {
  const out: IncomingRecord[] = [];
  for (let j = from; j < Math.min(N, from + 1000); j++)
    out.push({
      key: `k${j}`,
      hostKey: `h${Math.floor(j / 50)}`,
      fields: { pluginId: String(j % 2000), severity: 'high', status: 'open', cves: [cve((j * 7) % (C * 2)), cve((j * 13) % (C * 2))] },
    });
  return out;
};
for (let i = 0; i < N; i += 1000)
  await store.records.writePage(stamp, 'vulnerabilities', 'full', { vulnerabilities: page(i) }, { value: null, complete: false });
const epss = gzipSync(
  [
    '#model_version:v2025.03.14,score_date:2026-11-21T00:00:00+0000',
    'cve,epss,percentile',
    ...Array.from({ length: C }, (_, i) => `${cve(i)},${(i % 1000) / 1000},${(i % 997) / 997}`),
  ].join('\n'),
);
const kev = Buffer.from(
  JSON.stringify({
    catalogVersion: '2026.11.21',
    dateReleased: '2026-11-21T00:00:00Z',
    vulnerabilities: Array.from({ length: 1500 }, (_, i) => ({ cveID: cve(i * 97), dateAdded: '2024-01-01', dueDate: '2024-01-22' })),
  }),
);
const app = { store } as unknown as AppContext;
let t = performance.now();
const e = await importFeedFiles(app, [{ name: 'epss.csv.gz', data: epss }]);
const epssMs = performance.now() - t;
t = performance.now();
const k = await importFeedFiles(app, [{ name: 'kev.json', data: kev }]);
const kevMs = performance.now() - t;
// A sync page after the import: the lookups come from the database once per CVE, then from the cache.
store.feeds.lookup.invalidate();
t = performance.now();
for (let i = 0; i < 20_000; i += 1000)
  await store.records.writePage({ ...stamp, runId: 'r2' }, 'vulnerabilities', 'full', { vulnerabilities: page(i) }, { value: null, complete: false });
const withFeeds = performance.now() - t;
console.log(
  JSON.stringify({
    store: values.store,
    findings: N,
    epssScores: C,
    epssGzBytes: epss.length,
    epssImportS: +(epssMs / 1000).toFixed(1),
    epssFindingsUpdated: e.findingsUpdated,
    kevImportS: +(kevMs / 1000).toFixed(1),
    kevFindingsUpdated: k.findingsUpdated,
    write20kFindingsWithFeedsMs: Math.round(withFeeds),
  }),
);
await store.close();
await cleanup();
