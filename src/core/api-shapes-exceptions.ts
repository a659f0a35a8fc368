// Risk exceptions (interfaces.md §7.3, issue 31 §3): the shapes of /api/v1/exceptions, its requests and
// answers, declared once for the server, the store, the CLI and the web client. Only zod here.
import { z } from 'zod';
import { EXCEPTION_ACTIONS, EXCEPTION_SCOPES, EXCEPTION_STATES } from './models.ts';

export { EXCEPTION_ACTIONS, EXCEPTION_SCOPES, EXCEPTION_STATES };

export const exceptionScope = z.enum(EXCEPTION_SCOPES);
export const exceptionState = z.enum(EXCEPTION_STATES);

export const exceptionChange = z.object({
  n: z.int().describe('1 for the proposal, then one more per change'),
  action: z.enum(EXCEPTION_ACTIONS),
  from: exceptionState.nullable(),
  to: exceptionState,
  by: z.string(),
  at: z.string(),
  note: z.string().nullable(),
});
export type ExceptionChange = z.infer<typeof exceptionChange>;

export const riskException = z.object({
  id: z.string(),
  scope: exceptionScope,
  findingId: z.string().nullable(),
  pluginId: z.string().nullable(),
  assetIds: z.array(z.string()).describe('plugin-assets: the assets (or scanner hosts) whose findings of the plugin it covers'),
  reason: z.string(),
  expiresAt: z.string(),
  requestedBy: z.string(),
  approvedBy: z.string().nullable().describe('who approved, rejected or revoked it last'),
  decidedAt: z.string().nullable(),
  state: exceptionState.describe('expired when proposed or approved and past expiresAt, whatever was stored'),
  active: z.boolean().describe("approved and unexpired: its findings are out of the overdue counts and coverage's urgent list now"),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type RiskException = z.infer<typeof riskException>;

export const riskExceptionDetail = riskException.extend({ history: z.array(exceptionChange) });
export type RiskExceptionDetail = z.infer<typeof riskExceptionDetail>;

export const riskExceptionList = z.object({ items: z.array(riskException) });

export const exceptionListQuery = z.strictObject({
  state: exceptionState.optional(),
  findingId: z.string().max(200).optional().describe('the exceptions that cover this finding'),
  pluginId: z.string().max(200).optional(),
});
export type ExceptionListQuery = z.infer<typeof exceptionListQuery>;

export const exceptionProposal = z.strictObject({
  scope: exceptionScope.optional().describe('default: finding with findingId, plugin-assets with pluginId and assetIds, else plugin'),
  findingId: z.string().min(1).max(200).optional(),
  pluginId: z.string().min(1).max(200).optional(),
  assetIds: z.array(z.string().min(1).max(200)).max(1000).optional(),
  reason: z.string().trim().min(1).max(4000),
  expiresAt: z.string().min(1).max(40).describe('a date (valid through its end, UTC) or an ISO-8601 time; in the future'),
});
export type ExceptionProposal = z.infer<typeof exceptionProposal>;

export const exceptionDecision = z.strictObject({ note: z.string().max(4000).optional() });
export type ExceptionDecision = z.infer<typeof exceptionDecision>;

export const exceptionPolicy = z.object({
  requireOtherApprover: z.boolean().describe('approval and rejection need a user other than the requester'),
  approverScope: z.enum(['operate', 'admin']).describe('the least scope that may approve or reject'),
});
export type ExceptionPolicy = z.infer<typeof exceptionPolicy>;
