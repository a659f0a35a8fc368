// The shared estate both simulators serve: deterministic, and every kind of drift the issue names is
// present in an estate of a few hundred machines.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Estate, estateCves, parseEstate, scannedIp } from '../../sim/shared/estate.ts';
import { tempDir } from '../helpers/databases.ts';

test('an estate is a pure function of its seed', () => {
  const a = new Estate(7, 300);
  const b = new Estate(7, 300);
  assert.deepEqual(a.cmdb(), b.cmdb());
  assert.deepEqual(a.scannerView(42), b.scannerView(42));
  assert.notDeepEqual(new Estate(8, 300).machine(42), a.machine(42));
  assert.equal(a.machine(5).ip, scannedIp(5));
});

test('the drift of a real estate: missing serials, new NICs, renames, FQDN vs short names, stale addresses, duplicates, one-system machines', () => {
  const e = new Estate(7, 300);
  const cmdb = e.cmdb();
  const live = cmdb.filter((c) => !c.stale);
  assert.ok(
    live.some((c) => c.serial === null),
    'CMDB records without serial',
  );
  assert.ok(
    live.some((c) => c.machine < e.scanned && c.macs[0] !== e.machine(c.machine).macs[0]),
    'replaced NICs',
  );
  assert.ok(
    Array.from({ length: e.scanned }, (_, i) => i).some((i) => e.scannerName(i) !== e.machine(i).name && live.some((c) => c.machine === i)),
    'renamed hosts',
  );
  assert.ok(live.some((c) => c.name.includes('.')) && live.some((c) => !c.name.includes('.')), 'FQDN and short names');
  assert.ok(
    live.some((c) => c.machine < e.scanned && c.ip !== e.machine(c.machine).ip),
    'DHCP-stale addresses',
  );
  assert.ok(
    cmdb.some((c) => c.stale),
    'duplicate names',
  );
  assert.ok(
    Array.from({ length: e.scanned }, (_, i) => i).some((i) => !e.drift(i).inCmdb),
    'scanned machines missing from the CMDB',
  );
  assert.ok(
    live.some((c) => c.machine >= e.scanned),
    'CMDB machines never scanned',
  );
});

test('requests are associated with assets and name hosts and CVEs of the scanner catalog', async () => {
  const e = new Estate(7, 300);
  const cves = await estateCves();
  assert.ok(cves.length > 10 && cves.every((c) => /^CVE-\d{4}-\d+$/.test(c)));
  const about = Array.from({ length: 200 }, (_, i) => e.request(i, cves));
  assert.ok(about.some((r) => r.asset !== null));
  assert.ok(about.some((r) => r.cve !== null));
  assert.ok(about.some((r) => r.namesHost !== null));
});

test('--estate takes SEED, SEED:MACHINES or a JSON file, and says what is wrong', () => {
  assert.equal(parseEstate('7').machines, 200);
  assert.deepEqual([parseEstate('7:40').seed, parseEstate('7:40').machines], [7, 40]);
  const f = join(tempDir(), 'estate.json');
  writeFileSync(f, JSON.stringify({ seed: 3, machines: 50 }));
  assert.equal(parseEstate(f).machines, 50);
  assert.throws(() => parseEstate('/nonexistent.json'), /SEED\[:MACHINES\]/);
});
