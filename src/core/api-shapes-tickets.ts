// The API's answers about remediation tickets (issue 32): a source's plan, an apply's result, the audit log.
import { z } from 'zod';

const ids = z.array(z.string());

const ticketActionShape = z.object({
  kind: z.enum(['create', 'note', 'resolve', 'reopen']),
  key: z.string(),
  marker: z.string(),
  requestId: z.string().nullable(),
  title: z.string(),
  severity: z.string(),
  findingIds: ids,
  added: ids,
  fixed: ids,
  left: ids,
  /** Of a `resolve`: `fixed` (every finding fixed), or a close: `moved` (to other groups' requests), `excepted`, or `emptied` (left without findings by an earlier version, which did not close such requests). */
  reason: z.enum(['fixed', 'moved', 'excepted', 'emptied']).optional(),
  movedTo: z.array(z.object({ key: z.string(), findingIds: ids })).optional(),
  exceptions: z.array(z.object({ id: z.string(), reason: z.string(), findingIds: ids })).optional(),
  deferred: z.boolean(),
  recover: z.boolean(),
});

export const ticketPlanShape = z.object({
  source: z.string(),
  enabled: z.boolean(),
  grouping: z.string(),
  findings: z.int(),
  groups: z.int(),
  counts: z.object({ create: z.int(), note: z.int(), resolve: z.int(), reopen: z.int(), deferred: z.int() }),
  actions: z.array(ticketActionShape),
  /** The contract's buckets (interfaces.md §7.4): the actions by kind, notes as `update`. */
  create: z.array(ticketActionShape),
  update: z.array(ticketActionShape),
  resolve: z.array(ticketActionShape),
  reopen: z.array(ticketActionShape),
});

export const ticketApplyShape = z.object({
  source: z.string(),
  runId: z.string(),
  created: z.int(),
  adopted: z.int(),
  noted: z.int(),
  resolved: z.int(),
  /** Requests set to `movedStatus`: every finding moved to another request or was excepted. */
  closed: z.int(),
  closedUpstream: z.int(),
  reopened: z.int(),
  /** Requests closed for good replaced by a new one (settings `reopen: new`). */
  replaced: z.int(),
  deferred: z.int(),
  skipped: z.int(),
  failed: z.int(),
  writes: z.int(),
  errors: z.array(z.string()),
});

export const ticketLogShape = z.object({
  items: z.array(
    z.object({
      seq: z.int(),
      at: z.string(),
      key: z.string(),
      requestId: z.string().nullable(),
      action: z.string(),
      runId: z.string(),
      ok: z.boolean(),
      detail: z.string().nullable(),
    }),
  ),
});
