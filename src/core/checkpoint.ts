// A stream's stored checkpoint, read through the stream's zod schema: one that does not match (corrupt,
// or written by another version) is reported with what is wrong and the stream starts afresh (a full
// read: nothing is skipped, and an incremental run never sweeps), instead of resuming from a guess.
import type { z } from 'zod';
import type { Logger } from './log.ts';

export interface CheckpointRead<T> {
  /** The checkpoint, valid; null when there is none or it was refused. */
  value: T | null;
  /** Why a stored checkpoint was refused (null: none was, or there was none). */
  problem: string | null;
}

/** What is wrong with a value, by path (the first few issues; values are not quoted). */
function problemOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

/**
 * Reads `checkpoint` with `schema`. A stored checkpoint the schema refuses is logged (when `log` is
 * given) as a warning that names the stream and the problem, and reads as none.
 */
export function readCheckpoint<T>(schema: z.ZodType<T>, checkpoint: unknown, opts: { stream: string; log?: Logger }): CheckpointRead<T> {
  if (checkpoint === null || checkpoint === undefined) return { value: null, problem: null };
  const r = schema.safeParse(checkpoint);
  if (r.success) return { value: r.data, problem: null };
  const problem = problemOf(r.error);
  opts.log?.warn({ stream: opts.stream, problem }, `the stored checkpoint of ${opts.stream} is not valid (${problem}); starting afresh with a full read`);
  return { value: null, problem };
}
