// OCSF as Parquet: what an independent reader (hyparquet) reads back from the file equals the JSON
// OCSF events, record for record, for every class and schema version, with OCSF's objects as nested
// groups; streamed exports from both stores come in several row groups; nothing is dropped silently.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type AppContext, openApp } from '../../src/app/context.ts';
import { createLogger } from '../../src/core/log.ts';
import type { ModelName } from '../../src/core/models.ts';
import type { FormatOptions } from '../../src/export/formats/index.ts';
import { ocsfVulnerabilityFinding } from '../../src/export/json-fast.ts';
import { OCSF_VERSIONS, ocsfComplianceFinding, ocsfDeviceInventory, ocsfSoftwareInventory } from '../../src/export/ocsf.ts';
import { OcsfParquetEncoder, parquetSchema } from '../../src/export/parquet.ts';
import { columnWalker } from '../../src/export/parquet-columns.ts';
import { ocsfShape } from '../../src/export/ocsf-parquet-schema.ts';
import { encodeNestedValues } from 'hyparquet-writer/src/dremel.js';
import { schemaPathResolver } from 'hyparquet-writer/src/schema.js';
import { type ExportQuery, exportChunks } from '../../src/export/stream.ts';
import { parseFilter } from '../../src/store/index.ts';
import { BACKENDS, type TestDatabase } from '../helpers/databases.ts';
import { BARE_FINDING, BARE_HOST, CMDB_ASSET, COMPLIANCE, FINDING, FIXED_FINDING, HOST, PRODUCT, SOFTWARE, SOFTWARE_NO_VERSION } from './fixtures.ts';
import { parquetInfo, readOcsfParquet } from './parquet-read.ts';
import { seedSource } from './seed.ts';

process.env.TRIBUTARY_MASTER_KEY = Buffer.alloc(32, 6).toString('base64');

/** The JSON export's view of an event (what `--format ocsf` writes for it). */
const asJson = (e: Record<string, unknown>) => JSON.parse(JSON.stringify(e));

function encode(model: ModelName, version: (typeof OCSF_VERSIONS)[number], events: Record<string, unknown>[], rowGroup = 2): Uint8Array {
  const enc = new OcsfParquetEncoder(model, version, rowGroup);
  const parts: Uint8Array[] = [];
  for (const e of events) if (enc.add(e)) parts.push(enc.flush());
  parts.push(enc.finish());
  return Buffer.concat(parts);
}

for (const version of OCSF_VERSIONS) {
  describe(`OCSF ${version} as Parquet`, () => {
    const o = { version, product: PRODUCT };

    test('findings with every field and with the least: read back equal to the JSON events, objects as nested groups', async () => {
      const events = [
        ocsfVulnerabilityFinding(FINDING, HOST, o),
        ocsfVulnerabilityFinding(BARE_FINDING, BARE_HOST, o),
        ocsfVulnerabilityFinding(FIXED_FINDING, HOST, o),
        ocsfVulnerabilityFinding(BARE_FINDING, null, o),
        ocsfVulnerabilityFinding(FINDING, HOST, o),
        ocsfVulnerabilityFinding({ ...FINDING, cves: null }, HOST, o),
      ];
      const bytes = encode('vulnerabilities', version, events);
      assert.deepEqual(await readOcsfParquet(bytes), events.map(asJson));
      const info = parquetInfo(bytes);
      assert.equal(info.rows, 6);
      assert.equal(info.rowGroups, 3, 'a row group every 2 events');
      assert.equal(info.kv['ocsf.version'], version);
      // Nested groups, not flattened names: device → os → name, vulnerabilities → list → element → cve.
      for (const name of ['device', 'os', 'vulnerabilities', 'list', 'element', 'cve', 'cvss', 'unmapped', 'metadata', 'product'])
        assert.ok(info.columns.includes(name), name);
      assert.ok(!info.columns.some((c) => c.includes('.')), 'no flattened column names');
      // The free-form upstream JSON comes back as the same object.
      const [first] = await readOcsfParquet(bytes);
      assert.deepEqual((first.unmapped as Record<string, unknown>).vprKeyDrivers, FINDING.vprKeyDrivers);
    });

    test('compliance, device inventory (hosts, CMDB assets) and software read back equal to the JSON events', async () => {
      const compliance = ['failed', 'passed', 'warning', 'error', null].map((r) => ocsfComplianceFinding(COMPLIANCE(r), HOST, o));
      assert.deepEqual(await readOcsfParquet(encode('compliance', version, compliance)), compliance.map(asJson));
      const devices = [ocsfDeviceInventory(HOST, o), ocsfDeviceInventory(BARE_HOST, o), ocsfDeviceInventory(CMDB_ASSET, o)];
      assert.deepEqual(await readOcsfParquet(encode('hosts', version, devices)), devices.map(asJson));
      if (version !== '1.1.0') {
        const sw = [ocsfSoftwareInventory(SOFTWARE, HOST, o), ocsfSoftwareInventory(SOFTWARE_NO_VERSION, null, o)];
        assert.deepEqual(await readOcsfParquet(encode('software', version, sw)), sw.map(asJson));
      }
    });
  });
}

test('the column walk gives every leaf the values and levels of hyparquet-writer’s Dremel encoding of the same events', () => {
  const asNumber = (v: unknown) => (typeof v === 'bigint' ? Number(v) : v);
  for (const version of OCSF_VERSIONS) {
    const o = { version, product: PRODUCT };
    const events = [FINDING, BARE_FINDING, FIXED_FINDING, { ...FINDING, cves: null }].map((f, i) => ocsfVulnerabilityFinding(f, i === 3 ? null : HOST, o));
    const schema = parquetSchema(ocsfShape('vulnerabilities', version));
    const walk = columnWalker(schema);
    for (const e of events) walk.add(e);
    const resolve = schemaPathResolver(schema);
    assert.ok(walk.leaves.length > 50, 'every leaf of a finding’s event');
    for (const leaf of walk.leaves) {
      const names = leaf.schemaPath.slice(1).map((e) => e.name);
      const want = encodeNestedValues(
        resolve(names),
        events.map((e) => e[names[0]!]),
      );
      assert.deepEqual(leaf.definitionLevels, want.definitionLevels, `${leaf.name} definition levels`);
      if (leaf.repeated) assert.deepEqual(leaf.repetitionLevels, want.repetitionLevels, `${leaf.name} repetition levels`);
      assert.equal(leaf.maxDefinitionLevel, want.maxDefinitionLevel, leaf.name);
      assert.deepEqual(leaf.values.map(asNumber), [...want.values].map(asNumber), `${leaf.name} values`);
    }
  }
});

test('an attribute the Parquet schema has no column for is an error, not a silently dropped value', () => {
  const enc = new OcsfParquetEncoder('vulnerabilities', '1.1.0');
  const e = ocsfVulnerabilityFinding(FINDING, HOST, { version: '1.1.0', product: PRODUCT });
  assert.throws(() => enc.add({ ...e, finding_info: { ...(e.finding_info as object), src_url: 'https://x' } }), /no column for event\.finding_info\.src_url/);
});

/** Every chunk is bytes (text formats as UTF-8). */
async function collect(app: AppContext, q: ExportQuery, fmt: FormatOptions): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const c of exportChunks(app, q, fmt)) parts.push(c);
  return Buffer.concat(parts);
}

for (const backend of BACKENDS) {
  describe(`OCSF Parquet exports from ${backend.kind}`, { skip: backend.skip }, () => {
    let db: TestDatabase;
    let app: AppContext;

    before(async () => {
      db = await backend.create();
      app = await openApp({ dataDir: db.dataDir, db: db.url, log: createLogger({ level: 'silent' }) });
      await seedSource(app, 'lab', { hosts: 4, findings: 23 });
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    test('every model: the Parquet file holds the JSON export’s events, in several row groups', async () => {
      for (const version of OCSF_VERSIONS) {
        for (const model of ['vulnerabilities', 'compliance', 'hosts', 'software'] as const) {
          if (model === 'software' && version === '1.1.0') continue;
          const json = await collect(app, { model, pageSize: 5 }, { format: 'ocsf', ocsfVersion: version });
          const want = json
            .toString('utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l));
          const pq = await collect(app, { model, pageSize: 5, rowGroup: 4 }, { format: 'ocsf-parquet', ocsfVersion: version });
          assert.equal(pq.subarray(0, 4).toString('latin1'), 'PAR1', 'a Parquet file, not text');
          assert.deepEqual(await readOcsfParquet(pq), want, `${model} ${version}`);
          assert.equal(parquetInfo(pq).rowGroups, Math.ceil(want.length / 4));
        }
      }
    });

    test('filters apply; an export that matches nothing is a valid empty file', async () => {
      const crit = await collect(app, { model: 'vulnerabilities', filters: [parseFilter('severity=critical')] }, { format: 'ocsf-parquet' });
      const events = await readOcsfParquet(crit);
      assert.ok(events.length > 0 && events.every((e) => e.severity_id === 5));
      const none = await collect(app, { model: 'vulnerabilities', filters: [parseFilter('pluginId=0')] }, { format: 'ocsf-parquet' });
      assert.deepEqual(await readOcsfParquet(none), []);
      assert.equal(parquetInfo(none).rows, 0);
    });
  });
}
