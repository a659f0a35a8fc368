// One formatter for sizes and durations: what every message, CLI line and screen prints.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { counted, formatBytes, formatDuration } from '../../src/core/format.ts';

test('sizes read in binary units with one decimal at most', () => {
  assert.equal(formatBytes(0), '0 bytes');
  assert.equal(formatBytes(1023), '1023 bytes');
  assert.equal(formatBytes(1024), '1 KiB');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(64 * 1024 ** 2), '64 MiB');
  assert.equal(formatBytes(1.25 * 1024 ** 3), '1.3 GiB');
  assert.equal(formatBytes(3 * 1024 ** 5), '3072 TiB');
});

test('durations read in the largest whole unit', () => {
  assert.equal(formatDuration(600_000), '10 min');
  assert.equal(formatDuration(7_200_000), '2 h');
  assert.equal(formatDuration(1500), '1.5 s');
  assert.equal(formatDuration(250), '250 ms');
});

test('counts take the singular for one', () => {
  assert.equal(counted(1, 'day'), '1 day');
  assert.equal(counted(0, 'day'), '0 days');
  assert.equal(counted(2, 'fix', 'fixes'), '2 fixes');
});
