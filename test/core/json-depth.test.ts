// Nested JSON bounded in depth: a value nested 200,000 levels (which JSON.parse takes, and every
// recursive walk after it does not) comes back cut at the limit with one marker, serialisable; a value
// within the limit comes back as it is; a page's records are cut in place and counted per model.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { limitDepth, limitRecordsDepth, MAX_JSON_DEPTH, parseJsonLimited, TRUNCATED } from '../../src/core/json-depth.ts';

const DEEP = 200_000;
const deepText = '['.repeat(DEEP) + ']'.repeat(DEEP);

test('a value nested 200,000 levels is cut at the limit, marked, and serialisable', () => {
  const parsed = JSON.parse(deepText);
  assert.throws(() => JSON.stringify(parsed), RangeError, 'the walk the limit protects');
  const { value, truncated } = parseJsonLimited(deepText);
  assert.equal(truncated, true);
  const json = JSON.stringify(value);
  assert.equal(
    json,
    `${'['.repeat(MAX_JSON_DEPTH)}{"truncated":"nested deeper than 64 levels"}${']'.repeat(MAX_JSON_DEPTH)}`,
    '64 levels kept, the 65th is the marker',
  );
  assert.deepEqual(limitDepth({ a: { b: [1, { c: 2 }] } }, 3), { value: { a: { b: [1, TRUNCATED] } }, truncated: true });
});

test('a value within the limit comes back as it is, not copied', () => {
  const v = { drivers: [{ id: 'age', value: 3 }], list: [1, 2, 3] };
  const r = limitDepth(v);
  assert.equal(r.value, v);
  assert.equal(r.truncated, false);
  assert.equal(limitDepth('text').value, 'text');
  const frozen = Object.freeze({ a: Object.freeze([1]) });
  assert.equal(limitDepth(frozen).value, frozen);
  assert.equal(limitDepth(frozen).value, frozen, 'a frozen value is walked once');
});

test("a page's records are cut in place and counted per model; a mapper's marker counts too", () => {
  const deep = JSON.parse(deepText);
  const records = {
    vulnerabilities: [
      { key: 'a', fields: { vprKeyDrivers: { value: deep }, cves: ['CVE-2024-1'] } },
      { key: 'b', fields: { vprKeyDrivers: { age: 3 } } },
      { key: 'c', fields: { vprKeyDrivers: parseJsonLimited(deepText).value } },
    ],
    hosts: [{ key: 'h', fields: { name: 'x' } }],
  };
  assert.deepEqual(limitRecordsDepth(records), { vulnerabilities: 2 });
  assert.doesNotThrow(() => JSON.stringify(records));
  assert.deepEqual(records.vulnerabilities[0]!.fields.cves, ['CVE-2024-1']);
  assert.deepEqual(records.vulnerabilities[1]!.fields.vprKeyDrivers, { age: 3 });
});
