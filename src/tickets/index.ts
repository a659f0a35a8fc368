// Remediation tickets, vendor-neutral (issue 32): planning (plan.ts), the findings it reads (findings.ts)
// and applying a plan through a connector's TicketWriter (apply.ts). The write client lives in the
// ticketing connector's folder; the rows, intents and audit log in store/tickets.
export { type ApplyOptions, type ApplyResult, applyTickets, type TicketSource, ticketPlan } from './apply.ts';
export { loadTicketFindings } from './findings.ts';
export {
  assetIdentity,
  groupKey,
  type KnownTicket,
  markerOf,
  planTickets,
  type TicketAction,
  type TicketActionKind,
  type TicketFinding,
  type TicketPlan,
} from './plan.ts';
