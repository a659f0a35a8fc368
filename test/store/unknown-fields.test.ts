// A record field its model does not have (a mapper's typo) is never silently dropped: at run time it
// is reported once per (source, model, field) and the record is still stored; in the test suite
// (TRIBUTARY_STRICT_FIELDS=1) it throws, so every test that writes records guards the mappers.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import { openApp } from '../../src/app/context.ts';
import { createLogger } from '../../src/core/log.ts';
import type { IncomingRecord } from '../../src/core/models.ts';
// Imported for its side effect too: the test helpers turn strict fields on.
import '../helpers/databases.ts';
import { prepareUpserts, setUnknownFieldReporter, type UnknownFields, type WriteStamp } from '../../src/store/records/upsert.ts';

const stamp = (sourceName: string): WriteStamp => ({ sourceId: 's1', sourceName, runId: 'r1', generation: 'g1', now: '2026-01-01T00:00:00.000Z' });

const finding = (i: number, extra: Record<string, unknown> = {}): IncomingRecord => ({
  key: `f${i}`,
  hostKey: 'h1',
  fields: { pluginId: String(i), severity: 'high', status: 'open', ...extra },
});

describe('unknown record fields', () => {
  const strictBefore = process.env.TRIBUTARY_STRICT_FIELDS;
  afterEach(() => {
    process.env.TRIBUTARY_STRICT_FIELDS = strictBefore;
    setUnknownFieldReporter(() => {});
  });

  it('at run time: reported once per source, model and field, never thrown; the known fields are stored', () => {
    process.env.TRIBUTARY_STRICT_FIELDS = '0';
    const reports: UnknownFields[] = [];
    setUnknownFieldReporter((u) => reports.push(u));
    const page = [finding(1, { pluginNmae: 'x' }), finding(2, { pluginNmae: 'y' })];
    const upserts = prepareUpserts('vulnerabilities', page, stamp('sc-unknown-1'));
    assert.equal(
      upserts.reduce((n, u) => n + u.rows.length, 0),
      2,
    );
    // A second page, and a second unknown field: only the new one is reported.
    prepareUpserts('vulnerabilities', [finding(3, { pluginNmae: 'z', cvssV9: 1 })], stamp('sc-unknown-1'));
    // Another source: reported again, for that source.
    prepareUpserts('vulnerabilities', [finding(4, { pluginNmae: 'z' })], stamp('sc-unknown-2'));
    assert.deepEqual(reports, [
      { source: 'sc-unknown-1', model: 'vulnerabilities', fields: ['pluginNmae'] },
      { source: 'sc-unknown-1', model: 'vulnerabilities', fields: ['cvssV9'] },
      { source: 'sc-unknown-2', model: 'vulnerabilities', fields: ['pluginNmae'] },
    ]);
  });

  it('a reporter that fails does not fail the write', () => {
    process.env.TRIBUTARY_STRICT_FIELDS = '0';
    setUnknownFieldReporter(() => {
      throw new Error('log closed');
    });
    assert.equal(prepareUpserts('vulnerabilities', [finding(1, { severityy: 'high' })], stamp('sc-unknown-3')).length, 1);
  });

  it('in the test suite (strict): every record is checked, and an unknown field throws naming it', () => {
    process.env.TRIBUTARY_STRICT_FIELDS = '1';
    // The unknown field is on the second record of the same shape: a per-shape sample would miss it.
    const page = [finding(1), finding(2, { pluginNmae: 'x' })];
    assert.throws(() => prepareUpserts('vulnerabilities', page, stamp('sc-unknown-4')), /vulnerabilities record of sc-unknown-4 .*: pluginNmae/);
    assert.equal(prepareUpserts('vulnerabilities', [finding(1), finding(2)], stamp('sc-unknown-4')).length, 1);
  });

  it("a sync's writes report them through the app's logger, and store the record", async () => {
    process.env.TRIBUTARY_STRICT_FIELDS = '0';
    const dir = mkdtempSync(join(tmpdir(), 'trib-unknown-'));
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const app = await openApp({ dataDir: dir, log: createLogger({ destination }) });
    try {
      const src = await app.store.sources.create('sc-unknown-app', 'fixture', {}, null);
      const stamp = { sourceId: src.id, sourceName: src.name, runId: 'r1', generation: 'g1', now: new Date().toISOString() };
      for (const page of [[finding(1, { pluginNmae: 'a' })], [finding(2, { pluginNmae: 'b' })]])
        await app.store.records.writePage(stamp, 'vulnerabilities', 'full', { vulnerabilities: page }, { value: null, complete: false });
      const warned = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'record fields unknown to the model are not stored');
      assert.equal(warned.length, 1, 'once per source, model and field');
      assert.deepEqual([warned[0].source, warned[0].model, warned[0].fields], ['sc-unknown-app', 'vulnerabilities', ['pluginNmae']]);
      assert.equal((await app.store.records.query('vulnerabilities', {})).records.length, 2);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the suite runs strict', () => {
    // Set by package.json's test:unit and by the test helpers, so a mapper's typo fails whichever test writes its records.
    assert.equal(strictBefore, '1');
  });
});
