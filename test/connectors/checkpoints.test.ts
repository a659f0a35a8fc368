// Each stream's checkpoint is read through its zod schema: a valid one resumes, a corrupt one is
// reported (stream and problem named) and the stream starts afresh with a full read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { startCheckpoint } from '../../src/connectors/servicedesk-plus/streams/paging.ts';
import { startCursor } from '../../src/connectors/tenable-sc/streams/cursor.ts';
import { readCheckpoint } from '../../src/core/checkpoint.ts';
import { emptyPos, type FileCheckpoint, fileCheckpointSchema } from '../../src/filedrop/csv/plan.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'warn' }, { write: (s: string) => lines.push(JSON.parse(s)) });
  return { log, lines };
}

test('Tenable.sc cursor: a valid checkpoint resumes; a corrupt one is logged and starts a full read', () => {
  const { log, lines } = capture();
  const mid = { v: 1, phase: 'b', offset: 2000, since: 100, until: 500 };
  assert.deepEqual(startCursor({ mode: 'incremental', checkpoint: mid, resumed: true, log, stream: 'vulnerabilities' }, ['a', 'b'], 999), mid);
  assert.equal(lines.length, 0);
  const corrupt = { v: 1, phase: 'b', offset: '2000', since: 100, until: 500 };
  const fresh = startCursor({ mode: 'incremental', checkpoint: corrupt, resumed: true, log, stream: 'vulnerabilities' }, ['a', 'b'], 999);
  assert.deepEqual(fresh, { v: 1, phase: 'a', offset: 0, since: null, until: 999 });
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.stream, 'vulnerabilities');
  assert.match(String(lines[0]!.problem), /^offset: /);
  assert.match(String(lines[0]!.msg), /checkpoint of vulnerabilities is not valid .*starting afresh with a full read/);
});

test('ServiceDesk Plus checkpoint: a valid one resumes; a corrupt cursor is logged and starts afresh', () => {
  const { log, lines } = capture();
  const cursor = { part: 'requests', mode: 'incremental' as const, since: 10, anchor: 20, skip: 100, maxUpdated: 30, floor: 40 };
  const cp = { v: 1, watermarks: { requests: 10 }, done: [], cursor };
  assert.deepEqual(startCheckpoint({ mode: 'incremental', checkpoint: cp, resumed: true, log, stream: 'tickets' }), cp);
  // The incremental run after a completed one keeps the watermarks only.
  assert.deepEqual(startCheckpoint({ mode: 'incremental', checkpoint: cp, resumed: false, log }), {
    v: 1,
    watermarks: { requests: 10 },
    done: [],
    cursor: null,
  });
  assert.equal(lines.length, 0);
  const corrupt = { ...cp, cursor: { ...cursor, mode: 'sideways' } };
  assert.deepEqual(startCheckpoint({ mode: 'incremental', checkpoint: corrupt, resumed: true, log, stream: 'tickets' }), {
    v: 1,
    watermarks: {},
    done: [],
    cursor: null,
  });
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.stream, 'tickets');
  assert.match(String(lines[0]!.problem), /^cursor\.mode: /);
});

test('file checkpoint: the schema takes what the file stream stores and refuses a damaged one', () => {
  const cp: FileCheckpoint = {
    v: 2,
    files: [{ key: 'a.csv', etag: 'e1', size: 10, kind: 'k', origin: 'abc', covered: [] }],
    full: true,
    at: emptyPos(0),
    stats: { k: { imported: 1, rejected: 0 } },
    scope: [],
    swept: { models: ['hosts'], scope: { origins: ['abc'] } },
  };
  assert.deepEqual(readCheckpoint(fileCheckpointSchema, structuredClone(cp), { stream: 'files' }).value, cp);
  const damaged = { ...cp, at: { ...cp.at, file: -1 } };
  const r = readCheckpoint(fileCheckpointSchema, damaged, { stream: 'files' });
  assert.equal(r.value, null);
  assert.match(String(r.problem), /^at\.file: /);
  assert.deepEqual(readCheckpoint(fileCheckpointSchema, null, { stream: 'files' }), { value: null, problem: null });
});
