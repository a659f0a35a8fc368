// An export's time and which earlier exports make it older (src/filedrop/csv/scopes.ts): the date in a
// file name, else the upload time; only a newer export of the same kind from another snapshot covers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ImportedExport } from '../../src/core/files.ts';
import { exportTimeOf, fileNameDate, newerExports, whollyCovered } from '../../src/filedrop/csv/scopes.ts';

test('the date in a file name, as UTC; anything that is no date is none', () => {
  assert.equal(fileNameDate('corp-2026-03-08.csv'), '2026-03-08T00:00:00.000Z');
  assert.equal(fileNameDate('exports/vulns_20260308_1405.csv'), '2026-03-08T14:05:00.000Z');
  assert.equal(fileNameDate('2026-03-08T14:05:09 corp.csv'), '2026-03-08T14:05:09.000Z');
  for (const name of ['issue_11102.csv', 'nessus_many_vuln.csv', '2026-02-30.csv', 'plugin-120260308.csv', '2026-13-01.csv', '1999-03-08.csv'])
    assert.equal(fileNameDate(name), null, name);
  assert.equal(exportTimeOf('corp.csv', '2026-03-09T10:00:00Z'), '2026-03-09T10:00:00.000Z', 'else the upload time');
  assert.equal(exportTimeOf('corp-2026-03-01.csv', '2026-03-09T10:00:00Z'), '2026-03-01T00:00:00.000Z');
});

test('newer exports: same kind, another snapshot, later (a tie goes to the later snapshot); files of one snapshot never', () => {
  const known = (over: Partial<ImportedExport>): ImportedExport => ({
    key: 'corp.csv',
    etag: 'e1',
    kind: 'vulnerability-detail-list',
    snapshot: 'run-1',
    snapshotAt: '2026-03-08T10:00:00.000Z',
    scope: { repositories: ['Corp'], fileName: false },
    exportedAt: '2026-03-08T00:00:00.000Z',
    ...over,
  });
  const file = { key: 'corp-old.csv', kind: 'vulnerability-detail-list', snapshot: '', snapshotAt: '9999', exportedAt: '2026-03-01T00:00:00.000Z' };
  assert.deepEqual(newerExports(file, [known({})]), [{ repository: 'Corp', key: 'corp.csv', at: '2026-03-08T00:00:00.000Z' }]);
  assert.deepEqual(newerExports(file, [known({ kind: 'host-assets' })]), [], 'a host list is no newer vulnerability export');
  assert.deepEqual(newerExports(file, [known({ snapshot: '' })]), [], 'uploaded together: one snapshot');
  assert.deepEqual(newerExports({ ...file, exportedAt: '2026-03-08T00:00:00.000Z' }, [known({})]), [], 'a tie: this run is the later snapshot');
  const byName = known({ key: 'nessus.csv', scope: { repositories: [], fileName: true } });
  assert.deepEqual(newerExports({ ...file, key: 'nessus.csv' }, [byName]), [{ repository: null, key: 'nessus.csv', at: '2026-03-08T00:00:00.000Z' }]);
  assert.deepEqual(newerExports(file, [byName]), [], 'another file name is another scope');
  const newer = newerExports(file, [known({})]);
  assert.equal(whollyCovered({ repositories: ['Corp'], fileName: false }, newer), true);
  assert.equal(whollyCovered({ repositories: ['Corp', 'Lab'], fileName: false }, newer), false);
  assert.equal(whollyCovered({ repositories: ['Corp'], fileName: true }, newer), false);
  assert.equal(whollyCovered({ repositories: [], fileName: false }, newer), false, 'a file that named nothing is read');
});
