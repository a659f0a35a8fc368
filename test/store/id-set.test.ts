// The run's set of stored record ids (id-set.ts): agrees with a Set of the id strings through growth,
// for ids that differ in either half of their last 16 hex digits, in either letter case.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { RecordIdSet } from '../../src/store/records/id-set.ts';

test('has/add agree with a Set of the ids, through growth', () => {
  const set = new RecordIdSet();
  const ref = new Set<string>();
  const id = (i: number) => createHash('sha256').update(String(i)).digest('hex').slice(0, 32);
  for (let i = 0; i < 20_000; i++) {
    const v = id(i % 15_000);
    assert.equal(set.has(v), ref.has(v));
    assert.equal(set.add(v), !ref.has(v));
    ref.add(v);
  }
  assert.equal(set.size, 15_000);
  // Only one half differs: the first 8 of the last 16 digits, then the last 8.
  const base = 'aaaaaaaaaaaaaaaa0123456789abcdef';
  assert.equal(set.add(base), true);
  assert.equal(set.add('aaaaaaaaaaaaaaaa1123456789abcdef'), true);
  assert.equal(set.add('aaaaaaaaaaaaaaaa0123456789abcdee'), true);
  assert.equal(set.has('bbbbbbbbbbbbbbbb0123456789ABCDEF'), true, 'the last 16 digits name the record, in either case');
  assert.equal(set.has('aaaaaaaaaaaaaaaaffffffffffffffff'), false);
});
