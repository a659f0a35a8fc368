// The coercions both connectors' mappers share (core/values.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeEntities, trimmedText, uniqueParts, yesNo } from '../../src/core/values.ts';

test('trimmedText: blank and non-strings are null', () => {
  assert.equal(trimmedText('  a b '), 'a b');
  assert.equal(trimmedText('   '), null);
  assert.equal(trimmedText(5), null);
  assert.equal(trimmedText(undefined), null);
});

test('yesNo: the yes/no words, numbers and booleans; anything else null', () => {
  for (const v of [true, 1, '1', 'TRUE', ' yes ', 'Y']) assert.equal(yesNo(v), true, String(v));
  for (const v of [false, 0, '0', 'False', 'no', 'n']) assert.equal(yesNo(v), false, String(v));
  for (const v of ['maybe', '', null, {}]) assert.equal(yesNo(v), null, String(v));
});

test('uniqueParts: trimmed, no blanks or repeats, across values added to one list', () => {
  assert.deepEqual(uniqueParts(' a, b,,a ,c', ','), ['a', 'b', 'c']);
  const into = uniqueParts('10.0.0.1; 10.0.0.2', /[,;\s]+/);
  assert.deepEqual(uniqueParts('10.0.0.2 10.0.0.3', /[,;\s]+/, into), ['10.0.0.1', '10.0.0.2', '10.0.0.3']);
});

test('decodeEntities: the common entities, &amp; last', () => {
  assert.equal(decodeEntities('&lt;b&gt; &quot;x&quot; it&#39;s it&#039;s it&apos;s &amp;lt;'), `<b> "x" it's it's it's &lt;`);
});
