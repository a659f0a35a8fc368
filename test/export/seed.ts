// Seeds a store for export tests: a Tenable.sc source with hosts, findings, software and compliance
// results written as a sync would (pages stamped by a run), and a second source.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../src/app/context.ts';
import type { IncomingRecord, ModelName } from '../../src/core/models.ts';
import { nowIso } from '../../src/store/index.ts';

export const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'];

/** Records one run of `source` that stores the given records; returns the run id. */
export async function storeRun(app: AppContext, source: string, records: Partial<Record<ModelName, IncomingRecord[]>>, startedAt = nowIso()): Promise<string> {
  const s = await app.store.sources.get(source);
  const runId = randomUUID();
  const generation = randomUUID();
  await app.store.runs.create({ id: runId, sourceId: s.id, mode: 'full', generation, resumedFrom: null, trigger: 'test', owner: null, startedAt });
  await app.store.records.writePage({ sourceId: s.id, sourceName: s.name, runId, generation, now: startedAt }, 'test', 'full', records, {
    value: null,
    complete: true,
  });
  await app.store.runs.finish(runId, 'succeeded', {}, null);
  return runId;
}

export function hostRecords(n: number): IncomingRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    key: `h${i}`,
    fields: {
      hostname: `host-${i}`,
      fqdn: `host-${i}.corp.example`,
      ipAddresses: [`10.1.0.${i + 1}`],
      macAddresses: [`00:50:56:00:00:${String(i).padStart(2, '0')}`],
      os: i % 2 ? 'Ubuntu 22.04' : 'Windows Server 2022',
    },
  }));
}

export function findingRecords(n: number, hosts: number, offset = 0): IncomingRecord[] {
  return Array.from({ length: n }, (_, j) => {
    const i = j + offset;
    return {
      key: `f${i}`,
      hostKey: `h${i % hosts}`,
      lastSeen: '2026-11-20T00:00:00.000Z',
      fields: {
        pluginId: String(10_000 + i),
        pluginName: `Plugin ${i}`,
        severity: SEVERITIES[i % 5],
        cves: i % 3 === 0 ? [] : [`CVE-2024-${1000 + i}`],
        cvssV3BaseScore: i % 3 === 0 ? null : (i % 10) + 0.5,
        scannerEpssScore: 0.01 * (i % 50),
        vprScore: 5.5,
        scannerKnownExploited: i % 7 === 0,
        status: 'open',
        port: 443,
        protocol: 'tcp',
      },
    };
  });
}

export async function seedSource(app: AppContext, name: string, opts: { hosts: number; findings: number; startedAt?: string }): Promise<string> {
  if (!(await app.store.sources.find(name)))
    await app.store.sources.create(name, 'tenable-sc', { inputMode: 'api', apiUrl: 'https://sc.example', accessKey: 'a', secretKey: 'b' }, null);
  return storeRun(
    app,
    name,
    {
      hosts: hostRecords(opts.hosts),
      vulnerabilities: findingRecords(opts.findings, opts.hosts),
      software: [{ key: 'h0|openssl', hostKey: 'h0', fields: { name: 'OpenSSL', version: '3.0.2' } }],
      compliance: [
        { key: 'h0|1.1', hostKey: 'h0', fields: { benchmark: 'CIS L1', ruleId: '1.1', ruleName: 'Password history', result: 'failed' } },
        { key: 'h1|1.1', hostKey: 'h1', fields: { benchmark: 'CIS L1', ruleId: '1.1', ruleName: 'Password history', result: 'passed' } },
      ],
    },
    opts.startedAt,
  );
}
