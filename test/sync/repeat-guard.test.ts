// The repeated-page guard alone: a page with the records of the page before it, or of one a few pages
// back, stops the stream naming the repetition; the same records carrying other fields or values (a
// stream's next phase enriching the hosts it named), in another order, and pages without records are
// not repetitions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from '../../src/core/connector.ts';
import { UpstreamError } from '../../src/core/errors.ts';
import { PageRepeatGuard } from '../../src/sync/guard.ts';

const hosts = (keys: string[], fields: Record<string, unknown> = { name: 'h' }): Page['records'] => ({ hosts: keys.map((key) => ({ key, fields })) });

test('a page repeating the page before it stops the stream, naming the repetition', () => {
  const guard = new PageRepeatGuard();
  guard.check(hosts(['a', 'b']));
  assert.throws(
    () => guard.check(hosts(['a', 'b'])),
    (e: unknown) =>
      e instanceof UpstreamError &&
      !e.transient &&
      e.message === 'stopped at page 2: the upstream answered the same 2 records as the page before it (repeated pages: the paging does not advance)',
  );
});

test('a cycle through a few pages is a repetition too; a page further back is not compared', () => {
  const guard = new PageRepeatGuard();
  guard.check(hosts(['a']));
  guard.check(hosts(['b']));
  assert.throws(() => guard.check(hosts(['a'])), /stopped at page 3: the upstream answered the same 1 records as page 1/);
  const long = new PageRepeatGuard();
  for (const k of ['a', 'b', 'c', 'd']) long.check(hosts([k]));
  long.check(hosts(['a']));
});

test('the same records with other fields (a next phase) and pages without records are not repetitions', () => {
  const guard = new PageRepeatGuard();
  guard.check(hosts(['a', 'b'], { name: 'h', ip: '10.0.0.1' }));
  guard.check(hosts(['a', 'b'], { os: 'Linux' }));
  guard.check(hosts(['a', 'b'], { lastSeen: '2026-11-01T00:00:00Z', acrScore: 5 }));
  guard.check({});
  guard.check({ hosts: [] });
  guard.check(hosts(['a', 'b'], { os: 'Windows' }));
  guard.check(hosts(['b', 'a'], { os: 'Windows' }));
  assert.throws(() => guard.check(hosts(['a', 'b'], { os: 'Windows' })), /same 2 records as page 6/);
});
