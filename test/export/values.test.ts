// The export's value readers: epochMs reads the store's own time form digit by digit and must give
// exactly what Date.parse gives, for that form and for every other it hands on to Date.parse.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { epochMs } from '../../src/export/values.ts';

const parsed = (s: string) => {
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : null;
};

test('epochMs gives what Date.parse gives for stored times across two centuries', () => {
  // Every day from 1950 to 2150 at a time of day that moves through hours, minutes, seconds and milliseconds.
  for (let t = Date.UTC(1950, 0, 1), i = 0; t < Date.UTC(2150, 0, 1); t += 86_400_000, i++) {
    const iso = new Date(t + ((i * 7_919_037) % 86_400_000)).toISOString();
    assert.equal(epochMs(iso), parsed(iso), iso);
  }
});

test('epochMs hands other forms and out-of-range parts to Date.parse', () => {
  for (const s of [
    '2024-02-29T23:59:59.999Z',
    '2026-02-30T00:00:00.000Z',
    '2026-04-31T12:00:00.000Z',
    '2026-13-01T00:00:00.000Z',
    '2026-00-10T00:00:00.000Z',
    '2026-01-00T00:00:00.000Z',
    '2026-12-31T24:00:00.000Z',
    '2026-01-01T00:60:00.000Z',
    '0999-01-01T00:00:00.000Z',
    '0050-06-01T00:00:00.000Z',
    '2026-1a-01T00:00:00.000Z',
    '202x-01-01T00:00:00.000Z',
    '2026-01-01T00:00:0x.000Z',
    '2026-01-01T00:00:00.00xZ',
    '2026-01-01T0x:00:00.000Z',
    '2025-02-29T00:00:00.000Z',
    '2000-02-29T00:00:00.000Z',
    '1900-02-29T00:00:00.000Z',
    '2026-06-31T00:00:00.000Z',
    '2026-12-31T23:59:59.999Z',
    '2026-01-01 00:00:00.000Z',
    '2026-11-20',
    '2026-11-20T09:30:00Z',
    '2026-11-20T09:30:00.000+01:00',
    'not a time at all, really',
  ])
    assert.equal(epochMs(s), parsed(s), s);
  assert.equal(epochMs(null), null);
  assert.equal(epochMs(''), null);
});
