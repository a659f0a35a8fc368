// Schedules: validation, due times, and the in-process scheduler starting due syncs once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppContext } from '../../src/app/context.ts';
import { nextDue, validateSchedule } from '../../src/core/schedule.ts';
import { addSource } from '../../src/app/sources.ts';
import { Scheduler } from '../../src/sync/scheduler.ts';
import { createSqlite, type TestDatabase } from '../helpers/databases.ts';
import { newControl, openFixtureApp } from '../helpers/fixture-connector.ts';

test('schedules are intervals or cron expressions; anything else names the field', () => {
  assert.equal(validateSchedule('6h'), '6h');
  assert.equal(validateSchedule('0  */6 * * *'), '0 */6 * * *');
  assert.throws(() => validateSchedule('30s'), /shorter than one minute/);
  assert.throws(
    () => validateSchedule('every day'),
    (e: Error & { field?: string }) => e.field === 'schedule',
  );
  assert.throws(() => validateSchedule('61 * * * *'), /cron expression/);
});

test('due times follow the interval from the last start, or the next cron slot', () => {
  const last = new Date('2026-11-01T10:00:00Z');
  assert.equal(nextDue('6h', last).toISOString(), '2026-11-01T16:00:00.000Z');
  const now = new Date('2026-11-01T10:00:00Z');
  assert.equal(nextDue('6h', null, now).toISOString(), now.toISOString(), 'never run: due now');
  assert.equal(nextDue('0 */6 * * *', last).toISOString(), '2026-11-01T12:00:00.000Z');
  assert.equal(nextDue('30 2 * * 1', last).toISOString(), '2026-11-02T02:30:00.000Z');
});

let db: TestDatabase;
let app: AppContext;
before(async () => {
  db = await createSqlite();
  app = await openFixtureApp(db, newControl({ hosts: ['a'] }), { TRIBUTARY_MASTER_KEY: Buffer.alloc(32, 5).toString('base64') });
});
after(async () => {
  await app?.close();
  await db?.drop();
});

test('the scheduler starts a due source once and not again until it is due', async () => {
  await addSource(app, 'fixture', 'hourly', { url: 'https://x.example', token: 'good-token-123', schedule: '1h' });
  await addSource(app, 'fixture', 'manual', { url: 'https://x.example', token: 'good-token-123' });
  const scheduler = new Scheduler(app, { tickMs: 60_000 });
  assert.deepEqual(await scheduler.tick(), ['hourly']);
  await scheduler.stop();
  const runs = await app.store.runs.list((await app.store.sources.get('hourly')).id);
  assert.equal(runs.length, 1);
  assert.equal(runs[0].trigger, 'schedule');
  assert.equal(runs[0].status, 'succeeded');
  assert.deepEqual(await scheduler.tick(), [], 'not due again yet');
  assert.deepEqual(await scheduler.tick(new Date(Date.now() + 2 * 3600_000)), ['hourly']);
  await scheduler.stop();
});
