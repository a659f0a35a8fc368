// The asset API of build 15100 (one list per product type) beside the old /assets: mapping both shapes,
// probing which one a server offers, remembering it per source, and going over to the other one when
// the remembered lists answer "Invalid URL"; the credential check's words; the simulator's --asset-api.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listAssetProductTypes, rememberedAssetApi } from '../../../src/connectors/servicedesk-plus/asset-api.ts';
import type { SdpClient } from '../../../src/connectors/servicedesk-plus/client.ts';
import { servicedeskPlusConnector as sdp } from '../../../src/connectors/servicedesk-plus/index.ts';
import { mapAsset } from '../../../src/connectors/servicedesk-plus/map/assets.ts';
import { type Json, listRows } from '../../../src/connectors/servicedesk-plus/map/envelope.ts';
import { assetProductTypes, pluralSnake } from '../../../src/connectors/servicedesk-plus/map/product-types.ts';
import { listCiTypes } from '../../../src/connectors/servicedesk-plus/streams/ci-types.ts';
import type { SdpCheckpoint } from '../../../src/connectors/servicedesk-plus/streams/paging.ts';
import type { Stream } from '../../../src/core/connector.ts';
import { parseSdpSimArgs, type RunningSdpSim, startSdpSim } from '../../../sim/servicedesk-plus/index.ts';
import { connectorCtx, drain, type MemState, memState, parseConfig, streamCtx } from './helpers.ts';
import { fixture } from './corpus.ts';

process.env.TRIBUTARY_RETRY_BASE_MS = '1';
const wire = fixture('asset-api-15100.json') as Record<string, Json>;
const rowsOf = (key: string) => listRows(wire[key]!, key).rows;

describe('per-product-type asset API: pure mapping (vendor wire examples)', () => {
  test('product types → one list each, asset types only', () => {
    const types = assetProductTypes(rowsOf('product_types'));
    assert.deepEqual(
      types.map((t) => [t.name, t.path]),
      [
        ['Access Point', 'asset_access_points'],
        ['Workstation', 'asset_workstations'],
        ['Switch', 'asset_switches'],
        ['Virtual Machine', 'asset_virtual_machines'],
      ],
      'a component type has no asset list',
    );
    assert.deepEqual(['Battery', 'Box', 'Mobile Device', 'Server'].map(pluralSnake), ['batteries', 'boxes', 'mobile_devices', 'servers']);
    const given = assetProductTypes([{ id: '3', name: 'Mobile', api_plural_name: 'asset_mobile_devices', type: { name: 'Asset' } }]);
    assert.equal(given[0]!.path, 'asset_mobile_devices', 'an API name the server gives wins');
  });

  test('an access point from its own list: the type is the list’s', () => {
    const r = mapAsset(rowsOf('asset_access_points')[0]!, { productType: 'Access Point' });
    assert.equal(r.key, 'asset:1501');
    assert.deepEqual(
      { ...r.fields, attributes: undefined },
      {
        name: 'Access Point Asset 1',
        assetTag: 'Asset Tag 123',
        serialNumber: undefined,
        productType: 'Access Point',
        product: 'Access Point Product 1',
        state: 'In Store',
        ipAddresses: undefined,
        macAddresses: undefined,
        assignedUser: undefined,
        department: undefined,
        site: undefined,
        ciType: 'Asset',
        attributes: undefined,
      },
    );
    assert.deepEqual(r.fields.attributes, {
      vendor: 'Vendor 1',
      barcode: 'Access Point Asset 1',
      retain_user_site: true,
      is_loanable: false,
      purchase_cost: '2000.00',
    });
  });

  test('the generic asset_assets row names its type in module; a workstation row carries adapters', () => {
    const g = mapAsset(rowsOf('asset_assets')[0]!);
    assert.deepEqual(
      [g.fields.productType, g.fields.ipAddresses, g.fields.assignedUser, g.fields.department, g.fields.site],
      ['Workstation', ['10.1.2.3'], 'Bo Chen', 'Finance', 'HQ'],
    );
    const w = mapAsset(rowsOf('asset_workstations')[0]!, { productType: 'Workstation' });
    assert.equal(w.key, g.key, 'the same asset through either list is one record');
    assert.deepEqual(w.fields.ipAddresses, ['10.1.2.3', '10.9.0.7']);
    assert.deepEqual(w.fields.macAddresses, ['00:1a:2b:3c:4d:5e', '00:1a:2b:3c:4d:5f']);
    assert.equal(w.fields.serialNumber, '7XK2Q3', 'the service tag when no serial number is set');
    const attrs = w.fields.attributes as Json;
    assert.equal(attrs.udf_char1, 'rack 4', 'type-specific additional fields are kept');
    assert.deepEqual(attrs.operating_system, { os: 'Windows 11 Enterprise', version: '10.0.22631' });
    assert.equal('network_adapters' in attrs, false);
  });

  test('the old /assets shape maps as before (product_type on the row)', () => {
    const r = mapAsset((fixture('asset.json').asset as Json) ?? {}, { productType: 'ignored: the row says' });
    assert.equal(r.fields.productType, 'Laptop');
  });
});

const stream = (streams: Stream[], name: string) => streams.find((s) => s.name === name)!;
const assetKeys = (records: { key: string }[]) => new Set(records.filter((r) => r.key.startsWith('asset:')).map((r) => r.key));

describe('per-product-type asset API against the simulator', () => {
  let sim: RunningSdpSim;
  const config = () => parseConfig({ serverUrl: sim.url, apiKey: sim.apiKey });
  const read = (state: MemState, mode: 'full' | 'incremental' = 'full', checkpoint: unknown = null) =>
    drain(stream(sdp.streams(config(), connectorCtx(state)), 'cmdb-assets'), streamCtx(state, mode, checkpoint));
  const calls = () => sim.stats().requests;
  const reset = () => fetch(`${sim.url}/_sim/reset-stats`, { method: 'POST' });
  const assetCalls = () => Object.entries(calls()).filter(([p]) => /\/api\/v3\/(assets|asset_\w+|product_types)$/.test(p));

  before(async () => {
    sim = await startSdpSim({ seed: 5, now: Date.now() - 2 * 86400_000, assets: 60, cis: 4, requests: 3, users: 8, technicians: 2 });
  });
  after(async () => {
    sim.setAssetApi('both');
    await sim?.close();
  });

  test('legacy server: probed once, remembered, read from /assets; the next sync does not probe', async () => {
    sim.setAssetApi('legacy');
    const state = memState();
    await reset();
    const first = await read(state);
    assert.equal(assetKeys(first.records).size, 60);
    assert.equal(await rememberedAssetApi(state, `${sim.url}/api/v3`), 'legacy');
    assert.equal(calls()['/api/v3/assets'], 2, 'the one-row probe, then the page');
    assert.ok((calls()['/api/v3/asset_assets'] ?? 0) === 1, 'the probe tried the new lists first');
    await reset();
    const second = await read(state);
    assert.equal(assetKeys(second.records).size, 60);
    assert.deepEqual(assetCalls(), [['/api/v3/assets', 1]], 'remembered: no probe, no product types');
  });

  test('new-only server: every asset once, from its product type’s list; /assets never asked', async () => {
    sim.setAssetApi('product-type');
    const state = memState();
    await reset();
    const { records, pages } = await read(state);
    const assets = records.filter((r) => r.key.startsWith('asset:'));
    assert.equal(assets.length, 60, 'no asset read twice');
    assert.equal(assetKeys(assets).size, 60);
    assert.equal(calls()['/api/v3/assets'], undefined);
    for (const p of ['asset_laptops', 'asset_workstations', 'asset_servers', 'asset_monitors', 'asset_keyboards']) assert.ok(calls()[`/api/v3/${p}`], p);
    assert.equal(calls()['/api/v3/asset_hard_disks'], undefined, 'the component type is not read');
    const laptop = assets.find((r) => r.fields.productType === 'Laptop')!;
    assert.match(String(laptop.fields.name), /^LT-/);
    assert.match((laptop.fields.macAddresses as string[])[0]!, /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/, 'addresses from network_adapters');
    assert.ok(pages.every((p) => p.sweep === undefined && !p.errors));
    assert.equal(await rememberedAssetApi(state, `${sim.url}/api/v3`), 'product-type');
    // Incremental: per-list watermarks, nothing re-read but what changed.
    const cp = pages.at(-1)!.checkpoint as SdpCheckpoint;
    assert.equal(typeof cp.watermarks['assets:asset_laptops'], 'number');
    const changed = (await (
      await fetch(`${sim.url}/_sim/update`, { method: 'POST', body: JSON.stringify({ kind: 'assets', ids: ['301', '302'] }) })
    ).json()) as { ids: string[] };
    const inc = await read(state, 'incremental', cp);
    const ids = inc.records.filter((r) => r.key.startsWith('asset:')).map((r) => r.externalId);
    for (const id of changed.ids) assert.ok(ids.includes(id), `${id} re-read`);
    assert.ok(ids.length < 10, `only the changes (${ids.length})`);
  });

  test('server offering both: the per-product-type lists are preferred', async () => {
    sim.setAssetApi('both');
    const state = memState();
    await reset();
    const { records } = await read(state);
    assert.equal(assetKeys(records).size, 60);
    assert.equal(calls()['/api/v3/assets'], undefined);
    assert.equal(await rememberedAssetApi(state, `${sim.url}/api/v3`), 'product-type');
  });

  test('remembered /assets starts answering Invalid URL: probed again, same records, new API remembered', async () => {
    sim.setAssetApi('legacy');
    const state = memState();
    const before = await read(state);
    sim.setAssetApi('product-type');
    await reset();
    const after = await read(state);
    assert.deepEqual(assetKeys(after.records), assetKeys(before.records), 'the same asset records through the new API');
    assert.equal(calls()['/api/v3/assets'], 1, 'one failed read of the remembered list, no retry loop');
    assert.equal(await rememberedAssetApi(state, `${sim.url}/api/v3`), 'product-type');
    assert.ok(
      after.pages.every((p) => !p.errors && p.sweep === undefined),
      'a switch is no error',
    );
    // And back: a downgraded (or restored) server that has only /assets again.
    sim.setAssetApi('legacy');
    const back = await read(state);
    assert.equal(assetKeys(back.records).size, 60);
    assert.equal(await rememberedAssetApi(state, `${sim.url}/api/v3`), 'legacy');
  });

  test('one product type’s list missing: skipped and counted, the others read, the run sweeps nothing', async () => {
    sim.setAssetApi('product-type', ['asset_monitors']);
    const state = memState();
    const { records, pages } = await read(state);
    const types = new Set(records.filter((r) => r.key.startsWith('asset:')).map((r) => r.fields.productType));
    assert.ok(types.has('Laptop') && types.has('Server') && !types.has('Monitor'));
    assert.equal(
      pages.reduce((n, p) => n + (p.errors ?? 0), 0),
      1,
    );
    assert.equal(pages.at(-1)!.sweep, false, 'the last page tells the runner not to remove what was not seen');
    assert.deepEqual((pages.at(-1)!.checkpoint as SdpCheckpoint).skipped, ['assets:asset_monitors']);
    sim.setAssetApi('both');
  });

  test('the first list of the remembered API missing is not mistaken for the API being gone', async () => {
    const state = memState();
    sim.setAssetApi('product-type');
    await read(state);
    sim.setAssetApi('product-type', ['asset_laptops']);
    const { records, pages } = await read(state);
    assert.ok(assetKeys(records).size > 0);
    assert.equal(pages.at(-1)!.sweep, false);
    assert.equal(await rememberedAssetApi(state, `${sim.url}/api/v3`), 'product-type');
    sim.setAssetApi('both');
  });

  test('no product type answers at its own list: the generic asset_assets list, types from module', async () => {
    const perType = ['asset_laptops', 'asset_workstations', 'asset_servers', 'asset_monitors', 'asset_keyboards'];
    sim.setAssetApi('product-type', perType);
    const state = memState();
    const { records, pages } = await read(state);
    const assets = records.filter((r) => r.key.startsWith('asset:'));
    assert.equal(assetKeys(assets).size, 60);
    assert.ok(assets.every((r) => ['Laptop', 'Workstation', 'Server', 'Monitor', 'Keyboard'].includes(String(r.fields.productType))));
    assert.ok(pages.every((p) => !p.errors && p.sweep === undefined));
    const check = (await sdp.check(config(), connectorCtx(memState()))).find((c) => c.id === 'asset-api')!;
    assert.match(check.message, /no product type answered at its own list: assets are read from the generic asset_assets list/);
    sim.setAssetApi('both');
  });

  test('no product type list and no generic list: the default product types’ lists, remembered', async () => {
    sim.setAssetApi('product-type', ['product_types', 'asset_assets']);
    const state = memState();
    const { records } = await read(state);
    const types = new Set(records.filter((r) => r.key.startsWith('asset:')).map((r) => r.fields.productType));
    assert.deepEqual([...types].sort(), ['Server', 'Workstation'], 'only the default types are known without a product type list');
    await reset();
    await read(state);
    assert.deepEqual(
      assetCalls()
        .map(([p]) => p)
        .sort(),
      ['/api/v3/asset_servers', '/api/v3/asset_workstations', '/api/v3/product_types'],
      'the lists found are remembered',
    );
    const check = (await sdp.check(config(), connectorCtx(memState()))).find((c) => c.id === 'asset-api')!;
    assert.match(
      check.message,
      /product types cannot be listed: assets are read from the lists of the default product types that answered \(2: asset_workstations, asset_servers\)/,
    );
    assert.match(check.hint ?? '', /read access to \/api\/v3\/product_types/);
    sim.setAssetApi('both');
  });

  test('the check says which asset API the server offers, with a hint, and remembers it', async () => {
    const words = async (mode: 'legacy' | 'product-type' | 'both') => {
      sim.setAssetApi(mode);
      const state = memState();
      const checks = await sdp.check(config(), connectorCtx(state));
      assert.ok(
        checks.every((c) => c.ok),
        JSON.stringify(checks),
      );
      return { check: checks.find((c) => c.id === 'asset-api')!, remembered: await rememberedAssetApi(state, `${sim.url}/api/v3`) };
    };
    const legacy = await words('legacy');
    assert.match(legacy.check.message, /old asset API \(\/api\/v3\/assets, builds before 15100\)/);
    assert.match(legacy.check.hint ?? '', /15100 and later list assets per product type/);
    assert.equal(legacy.remembered, 'legacy');
    const fresh = await words('product-type');
    assert.match(fresh.check.message, /per-product-type asset API \(build 15100 or later\).*5 asset product types, asset_laptops/);
    assert.doesNotMatch(fresh.check.message, /still answers/);
    assert.match(fresh.check.hint ?? '', /old \/api\/v3\/assets is gone/);
    assert.equal(fresh.remembered, 'product-type');
    const both = await words('both');
    assert.match(both.check.message, /per-product-type.*the old \/api\/v3\/assets still answers but is not used/);
    assert.ok(both.check.hint);
    sim.setAssetApi('both');
  });
});

test('a technician who may not read assets: the stream fails with it, without guessing lists', async () => {
  const denied = await startSdpSim({ apiKeyDenied: ['assets'], assets: 5, requests: 1, assetApi: 'product-type' });
  try {
    const state = memState();
    const streams = sdp.streams(parseConfig({ serverUrl: denied.url, apiKey: denied.apiKey }), connectorCtx(state));
    await assert.rejects(drain(stream(streams, 'cmdb-assets'), streamCtx(state)), /technician of this API key may not read assets/);
    const asked = Object.keys(denied.stats().requests).filter((p) => /asset|product_types/.test(p));
    assert.deepEqual(asked.sort(), ['/api/v3/asset_assets', '/api/v3/assets', '/api/v3/product_types']);
    assert.equal(await rememberedAssetApi(state, `${denied.url}/api/v3`), null, 'nothing remembered');
  } finally {
    await denied.close();
  }
});

describe('simulator --asset-api', () => {
  test('parsed, validated and documented in --help', () => {
    assert.equal(parseSdpSimArgs(['--asset-api', 'legacy']).assetApi, 'legacy');
    assert.equal(parseSdpSimArgs(['--asset-api=product-type']).assetApi, 'product-type');
    assert.throws(() => parseSdpSimArgs(['--asset-api', 'new']), /--asset-api must be one of legacy, product-type, both/);
    assert.throws(() => parseSdpSimArgs(['--help']), /--asset-api MODE\s+legacy \| product-type \| both \(default both\)/);
  });

  test('each mode serves its lists; product_types in every mode', async () => {
    const get = async (s: RunningSdpSim, path: string) => (await fetch(`${s.url}/api/v3/${path}`, { headers: { authtoken: s.apiKey } })).status;
    for (const [mode, want] of [
      ['legacy', { assets: 200, asset_laptops: 404, asset_assets: 404 }],
      ['product-type', { assets: 404, asset_laptops: 200, asset_assets: 200 }],
      ['both', { assets: 200, asset_laptops: 200, asset_assets: 200 }],
    ] as const) {
      const s = await startSdpSim({ assetApi: mode, assets: 5, requests: 1 });
      try {
        assert.equal(await get(s, 'product_types'), 200);
        for (const [path, status] of Object.entries(want)) assert.equal(await get(s, path), status, `${mode}: ${path}`);
      } finally {
        await s.close();
      }
    }
  });
});

test('lookup lists that answer "more rows" forever stop at the page budget (TRIBUTARY_MAX_PAGES, read at call time)', async () => {
  let calls = 0;
  const endless = {
    deployment: 'onprem',
    apiBase: 'http://sdp.invalid/api/v3',
    list: async () => {
      calls++;
      return { rows: [{ id: String(calls), name: `Type ${calls}`, api_name: `t${calls}`, type: { name: 'Asset' } }], hasMore: true, key: null, body: {} };
    },
  } as unknown as SdpClient;
  const saved = process.env.TRIBUTARY_MAX_PAGES;
  process.env.TRIBUTARY_MAX_PAGES = '7';
  try {
    await assert.rejects(
      listAssetProductTypes(endless),
      /GET \/product_types: still more asset product types after 7 pages, the page budget \(TRIBUTARY_MAX_PAGES\)/,
    );
    assert.equal(calls, 7);
    calls = 0;
    await assert.rejects(listCiTypes(endless), /GET \/ci_types: still more CI types after 7 pages, the page budget \(TRIBUTARY_MAX_PAGES\)/);
    assert.equal(calls, 7);
  } finally {
    if (saved === undefined) delete process.env.TRIBUTARY_MAX_PAGES;
    else process.env.TRIBUTARY_MAX_PAGES = saved;
  }
  calls = 0;
  await assert.rejects(listAssetProductTypes(endless), /after 100 pages, the page budget \(the default for a lookup list\)/);
  assert.equal(calls, 100);
});
