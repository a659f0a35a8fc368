// Remediation tickets (issue 32): the settings a ticketing source's `remediationTickets` section holds, and
// the small interface through which the vendor-neutral planner (src/tickets/) writes to a service desk.
// A connector offers writing by declaring `tickets` (connector.ts); nothing here knows a vendor.
import { z } from 'zod';
import { boolish, intish } from './config.ts';
import type { CheckResult } from './connector.ts';
import type { Severity } from './models.ts';

export const TICKET_GROUPINGS = ['fix-owner', 'fix', 'asset'] as const;
export type TicketGrouping = (typeof TICKET_GROUPINGS)[number];

const severity = z.enum(['info', 'low', 'medium', 'high', 'critical']);
/** A comma list given as one string (a CLI flag, a form field) read as the array it names. */
const commaList = (v: unknown): unknown =>
  typeof v === 'string'
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : v;
const names = z.preprocess(commaList, z.array(z.string().min(1)));

/** How a request is written: its subject, priority by severity, support group by department, category. */
export const ticketTemplateSchema = z
  .object({
    /** Placeholders: {fix} (the check's name), {owner} (department or owner), {hosts}, {findings}, {severity}. */
    subject: z.string().min(1).max(200).default('Remediate: {fix} ({hosts} hosts, {owner})'),
    /** Service desk priority name per highest severity in the group. */
    priority: z.record(severity, z.string().min(1)).default({ critical: 'High', high: 'High', medium: 'Medium', low: 'Low', info: 'Low' }),
    /** Support group name per department (the owner's department from the CMDB). */
    groups: z.record(z.string(), z.string().min(1)).default({}),
    category: z.string().min(1).optional(),
  })
  .strict();

/** The SSVC decisions a source may ticket, by the contract's names (`track-star` is Track*). */
export const TICKET_DECISIONS = ['act', 'attend', 'track-star', 'track'] as const;
const decisionName = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .trim()
          .toLowerCase()
          .replace(/^track\*$/, 'track-star')
      : v,
  z.enum(TICKET_DECISIONS),
);
/** `ticketDecisions`: a comma list or an array of decisions, as the findings' decision values (`track*` read as `track-star`). */
export const ticketDecisionsSchema = z.preprocess(
  commaList,
  z
    .array(decisionName)
    .min(1)
    .transform((ds) => [...new Set(ds)]),
);

export const remediationTicketsSchema = z
  .object({
    enabled: boolish.default(false),
    /** Findings at this severity or above are ticketed … */
    minSeverity: severity.default('high'),
    /** … and known-exploited findings whatever their severity (when true). */
    knownExploited: boolish.default(true),
    /** When set (the top-level `ticketDecisions`), findings of these SSVC decisions are ticketed instead of by severity. */
    decisions: ticketDecisionsSchema.optional(),
    /** Only findings of these departments / sites (empty: all). */
    departments: names.default([]),
    sites: names.default([]),
    /** One request per fix and owner group (default), per fix, or per asset. */
    grouping: z.enum(TICKET_GROUPINGS).default('fix-owner'),
    template: ticketTemplateSchema.default(ticketTemplateSchema.parse({})),
    /** Requests created per run at most (the rest wait for the next run). */
    maxCreatesPerRun: intish(0, 10_000).default(50),
    /** Status set when every finding of a request is fixed (e.g. "Resolved", or a verification status). */
    resolvedStatus: z.string().min(1).default('Resolved'),
    /**
     * Status set on an open request whose findings all left it without being fixed: moved to another
     * group's request (its owner, department or the grouping changed) or taken out by approved risk
     * exceptions (default: the common service desk status for work no longer needed).
     */
    movedStatus: z.string().min(1).default('Canceled'),
    /**
     * A finding that comes back to a request we resolved: `reopen` sets it open again; `new` does too while
     * it is resolved, and opens a new request when the old one is closed for good (closed or cancelled).
     */
    reopen: z.enum(['reopen', 'new']).default('reopen'),
    /** Status a reopened request is set to. */
    reopenStatus: z.string().min(1).default('Open'),
  })
  .strict();

export type RemediationTicketsConfig = z.infer<typeof remediationTicketsSchema>;

/** The section as a source that never set it holds it: off. */
export const REMEDIATION_TICKETS_OFF: RemediationTicketsConfig = remediationTicketsSchema.parse({});

/** A request to create: the key's marker is in its subject and description so a search finds it again. */
export interface TicketDraft {
  marker: string;
  subject: string;
  /** HTML. */
  description: string;
  priority: string | null;
  group: string | null;
  category: string | null;
  /** The service desk's own asset ids the group's findings are on, where correlation knows them. */
  assetIds: string[];
  dueAt: string | null;
  severity: Severity;
}

/** What the service desk says of a request. */
export interface RemoteTicket {
  id: string;
  status: string;
  /** Resolved, closed or cancelled: no longer worked on. */
  closed: boolean;
  /** Closed for good (closed or cancelled, not merely resolved). */
  final: boolean;
}

/** Whether the credentials may create and update requests, found without creating anything. */
export interface WriteAccess {
  create: boolean;
  update: boolean;
  /** One line per verdict, naming the scope or role that is missing. */
  results: CheckResult[];
}

/**
 * A service desk's write side. Every method makes at most the calls its name says; errors are thrown
 * as UpstreamError (transient ones already retried).
 */
export interface TicketWriter {
  /**
   * The request carrying `marker`, if one exists (a search: it creates nothing). The marker is looked for
   * wherever the request carries it: the key field when one is set, the subject and the description (a
   * person may edit the subject).
   */
  findByMarker(marker: string, signal?: AbortSignal): Promise<RemoteTicket | null>;
  /** Whether a note of request `id` contains `text` (a write tag: was a note sent before a crash written?). */
  hasNote(id: string, text: string, signal?: AbortSignal): Promise<boolean>;
  get(id: string, signal?: AbortSignal): Promise<RemoteTicket | null>;
  create(draft: TicketDraft, signal?: AbortSignal): Promise<RemoteTicket>;
  /** Adds a note (HTML). */
  note(id: string, html: string, signal?: AbortSignal): Promise<void>;
  /** Sets `status` with `resolution` as its resolution text. */
  resolve(id: string, status: string, resolution: string, signal?: AbortSignal): Promise<void>;
  /** Sets a resolved or closed request to `status` (open again). */
  reopen(id: string, status: string, signal?: AbortSignal): Promise<void>;
  writeAccess(signal?: AbortSignal): Promise<WriteAccess>;
  close(): Promise<void>;
}
