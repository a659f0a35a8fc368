// Filters on enum fields, on both stores: severity compares in its order (info < low < medium < high
// < critical), enum values compare case-insensitively, and a value outside the enum, an order asked
// of an unordered enum or an unknown field is refused naming what is allowed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InputError } from '../../src/core/errors.ts';
import { parseFilter } from '../../src/store/records/filter-syntax.ts';
import { BACKENDS } from '../helpers/databases.ts';
import { labStoreSuite, writeRecords } from '../helpers/store.ts';

const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'];

for (const backend of BACKENDS) {
  describe(`enum filters on ${backend.kind}`, { skip: backend.skip }, () => {
    const t = labStoreSuite(backend, async (store, lab) => {
      const vulns = SEVERITIES.map((severity, i) => ({
        key: `h|${i}`,
        hostKey: 'h',
        fields: { pluginId: String(i), severity, status: i % 2 ? 'fixed' : 'open' },
      }));
      await writeRecords(store, lab, { hosts: [{ key: 'h', fields: {} }], vulnerabilities: vulns });
    });

    const severities = async (...where: string[]) =>
      (await t.store.records.query('vulnerabilities', { filters: where.map((w) => parseFilter(w)) })).records
        .map((r) => String(r.severity))
        .sort((a, b) => SEVERITIES.indexOf(a) - SEVERITIES.indexOf(b));

    test('severity comparisons follow its order, not the alphabet', async () => {
      assert.deepEqual(await severities('severity>=high'), ['high', 'critical']);
      assert.deepEqual(await severities('severity>medium'), ['high', 'critical']);
      assert.deepEqual(await severities('severity<=low'), ['info', 'low']);
      assert.deepEqual(await severities('severity<critical', 'severity>info'), ['low', 'medium', 'high']);
    });

    test('enum values compare case-insensitively', async () => {
      assert.deepEqual(await severities('severity=Critical'), ['critical']);
      assert.deepEqual(await severities('severity>=HIGH'), ['high', 'critical']);
      assert.deepEqual(await severities('status=FIXED'), ['low', 'high']);
      assert.deepEqual(await severities('severity!=Info', 'status=Open'), ['medium', 'critical']);
    });

    test('an unknown enum value, an order on an unordered enum, an unknown field: refused naming the allowed ones', async () => {
      const refused = async (where: string, field: string, message: RegExp) => {
        await assert.rejects(severities(where), (err: unknown) => err instanceof InputError && err.field === field && message.test(err.message), where);
      };
      await refused('severity=urgent', 'severity', /unknown severity 'urgent'.*one of: info, low, medium, high, critical/);
      await refused('severity>=severe', 'severity', /one of: info, low, medium, high, critical/);
      await refused('status>open', 'status', /status has no order.*open, fixed, reopened/);
      await refused('colour=red', 'colour', /unknown field 'colour'.*severity/);
    });
  });
}
