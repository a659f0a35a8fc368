// Feed files built from the published formats (never copies of the real catalogs): the CISA KEV
// catalog JSON (catalogVersion, dateReleased, count, vulnerabilities[] with cveID, vendorProject,
// product, vulnerabilityName, dateAdded, shortDescription, requiredAction, dueDate,
// knownRansomwareCampaignUse, notes, cwes) and FIRST's EPSS CSV (`#model_version:…,score_date:…`,
// then `cve,epss,percentile`), gzipped as FIRST publishes it or not.
import { gzipSync } from 'node:zlib';

export interface KevItem {
  cve: string;
  added: string;
  due?: string | null;
  ransomware?: 'Known' | 'Unknown';
}

export function kevCatalog(version: string, released: string, items: KevItem[]): Buffer {
  return Buffer.from(
    JSON.stringify({
      title: 'CISA Catalog of Known Exploited Vulnerabilities',
      catalogVersion: version,
      dateReleased: released,
      count: items.length,
      vulnerabilities: items.map((i) => ({
        cveID: i.cve,
        vendorProject: 'Example Vendor',
        product: 'Example Product',
        vulnerabilityName: `Example Product flaw (${i.cve})`,
        dateAdded: i.added,
        shortDescription: 'A made-up entry for tests.',
        requiredAction: 'Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable.',
        dueDate: i.due ?? null,
        knownRansomwareCampaignUse: i.ransomware ?? 'Unknown',
        notes: '',
        cwes: ['CWE-20'],
      })),
    }),
  );
}

export function epssCsv(model: string, scoreDate: string, rows: [string, number, number][], opts: { gzip?: boolean } = {}): Buffer {
  const text =
    [`#model_version:${model},score_date:${scoreDate}`, 'cve,epss,percentile', ...rows.map(([c, e, p]) => `${c},${e.toFixed(5)},${p.toFixed(5)}`)].join('\n') +
    '\n';
  return opts.gzip ? gzipSync(text) : Buffer.from(text);
}

/** YYYY-MM-DD of a day `days` from now (negative: in the past). */
export function day(days: number, from = Date.now()): string {
  return new Date(from + days * 86_400_000).toISOString().slice(0, 10);
}

/** A gzipped EPSS file of `bytes` once inflated: its header, then a compressed MiB of blank lines repeated as gzip members. */
export function epssBomb(bytes: number): Buffer {
  const block = Buffer.alloc(1 << 20, `${' '.repeat(1023)}\n`);
  const head = gzipSync('#model_version:v1,score_date:2026-01-01T00:00:00Z\ncve,epss,percentile\n');
  return Buffer.concat([head, ...Array(Math.ceil(bytes / block.length)).fill(gzipSync(block))]);
}
