// The write side for remediation tickets (issue 32), behind core/tickets.ts's TicketWriter: requests
// created with their marker in the subject and the description (and the key field when one is set), found
// again by one list_info search_criteria OR-ing the three (a person may edit the subject), notes (`request_note` on cloud, `note` on-premises, as the vendor's two
// API pages name the wrapper), resolution by a status and a resolution text. Creating a request is never
// repeated after a server error or a lost connection: the planner's marker search decides.
// Whether the credentials may write is probed without creating anything: an empty create answers
// "mandatory field subject" (4012) only past the scope or role check, and an edit of request 0 answers
// "not found" (4007) only past it; a refusal answers 4002 (cloud scopes, HTTP 401; on-prem role, 403).
import type { CheckResult, ConnectorContext } from '../../core/connector.ts';
import { errorMessage, UpstreamError } from '../../core/errors.ts';
import type { RemoteTicket, TicketDraft, TicketWriter, WriteAccess } from '../../core/tickets.ts';
import { SdpApiError, SdpClient } from './client.ts';
import { deploymentOf, type SdpConfig, WRITE_SCOPES } from './config.ts';
import type { Json } from './map/envelope.ts';
import type { TokenManager, TokenState } from './oauth.ts';

const CLOSED = new Set(['resolved', 'closed', 'canceled', 'cancelled']);
const FINAL = new Set(['closed', 'canceled', 'cancelled']);

/** Whether a request carries the marker: in the key field, the subject or the description. */
function carries(rec: Json, marker: string, field: string | undefined): boolean {
  const udf = field ? (rec.udf_fields as Json | undefined)?.[field] : undefined;
  return (
    udf === marker ||
    (typeof rec.subject === 'string' && rec.subject.includes(marker)) ||
    (typeof rec.description === 'string' && rec.description.includes(marker))
  );
}

function remoteOf(rec: Json): RemoteTicket {
  const status = String((rec.status as Json | null)?.name ?? '');
  return { id: String(rec.id), status, closed: CLOSED.has(status.toLowerCase()), final: FINAL.has(status.toLowerCase()) };
}

export class SdpTicketWriter implements TicketWriter {
  readonly #client: SdpClient;
  readonly #config: SdpConfig;
  readonly #ctx: ConnectorContext;

  constructor(config: SdpConfig, ctx: ConnectorContext, tokens: TokenManager | null) {
    this.#config = config;
    this.#ctx = ctx;
    this.#client = new SdpClient({ config, ctx, tokens });
  }

  get calls(): ReadonlyMap<string, number> {
    return this.#client.calls;
  }

  async findByMarker(marker: string, signal?: AbortSignal): Promise<RemoteTicket | null> {
    // One search, OR-ed: the key field (when the source names one), the subject, the description. The
    // subject is what a person sees and may edit; the description keeps the marker too, and the key field
    // is the one a person is least likely to touch.
    const field = this.#config.ticketKeyField;
    const criteria: Json[] = [
      ...(field ? [{ field: `udf_fields.${field}`, condition: 'is', value: marker }] : []),
      { field: 'subject', condition: 'contains', value: marker },
      { field: 'description', condition: 'contains', value: marker },
    ].map((c, i) => (i ? { ...c, logical_operator: 'OR' } : c));
    let rows: Json[];
    try {
      rows = (await this.#client.list('requests', { row_count: 10, start_index: 1, search_criteria: criteria }, { signal, key: 'requests' })).rows;
    } catch (err) {
      if (!(err instanceof SdpApiError && err.kind === 'input')) throw err;
      // A service desk that refuses a criterion (an OR, the description): the fields one at a time.
      this.#ctx.log.warn(`the marker search was refused (${errorMessage(err)}): searching the subject, the description and the key field one at a time`);
      rows = [];
      for (const c of criteria) {
        try {
          const { logical_operator: _, ...one } = c;
          rows = (await this.#client.list('requests', { row_count: 10, start_index: 1, search_criteria: [one] }, { signal, key: 'requests' })).rows;
        } catch (e) {
          if (!(e instanceof SdpApiError && e.kind === 'input')) throw e;
          continue;
        }
        if (rows.some((r) => carries(r, marker, field))) break;
      }
    }
    const hit = rows.find((r) => carries(r, marker, field));
    if (hit) return remoteOf(hit);
    // A list answers a reduced set of fields (no description): a row the server matched is read whole.
    for (const r of rows.slice(0, 10)) {
      if (r.id === undefined || typeof r.description === 'string') continue;
      const body = await this.#client.get(`requests/${encodeURIComponent(String(r.id))}`, {}, { signal });
      const rec = body.request as Json | undefined;
      if (rec && carries(rec, marker, field)) return remoteOf(rec);
    }
    return null;
  }

  async hasNote(id: string, text: string, signal?: AbortSignal): Promise<boolean> {
    for (let start = 1; ; start += 100) {
      const page = await this.#client.list(`requests/${encodeURIComponent(id)}/notes`, { row_count: 100, start_index: start }, { signal, key: 'notes' });
      if (page.rows.some((n) => typeof n.description === 'string' && n.description.includes(text))) return true;
      if (!page.hasMore || page.rows.length === 0) return false;
    }
  }

  async get(id: string, signal?: AbortSignal): Promise<RemoteTicket | null> {
    try {
      const body = await this.#client.get(`requests/${encodeURIComponent(id)}`, {}, { signal });
      const rec = body.request as Json | undefined;
      return rec ? remoteOf(rec) : null;
    } catch (err) {
      if (err instanceof SdpApiError && err.kind === 'not-found') return null;
      throw err;
    }
  }

  async create(d: TicketDraft, signal?: AbortSignal): Promise<RemoteTicket> {
    const request: Json = { subject: d.subject, description: d.description };
    if (d.priority) request.priority = { name: d.priority };
    if (d.group) request.group = { name: d.group };
    if (d.category) request.category = { name: d.category };
    if (d.assetIds.length) request.assets = d.assetIds.map((id) => ({ id }));
    if (d.dueAt) request.due_by_time = { value: String(Date.parse(d.dueAt)) };
    // The key in a single-line UDF the service desk keeps (interfaces.md §7.4), when the source names one.
    if (this.#config.ticketKeyField) request.udf_fields = { [this.#config.ticketKeyField]: d.marker };
    const body = await this.#client.write('POST', 'requests', { request }, { signal, once: true });
    const rec = body.request as Json | undefined;
    if (!rec?.id) throw new UpstreamError('POST /requests: the answer names no request id');
    return remoteOf(rec);
  }

  async note(id: string, html: string, signal?: AbortSignal): Promise<void> {
    const wrapper = deploymentOf(this.#config) === 'cloud' ? 'request_note' : 'note';
    await this.#client.write(
      'POST',
      `requests/${encodeURIComponent(id)}/notes`,
      { [wrapper]: { description: html, show_to_requester: false } },
      { signal, once: true },
    );
  }

  async resolve(id: string, status: string, resolution: string, signal?: AbortSignal): Promise<void> {
    await this.#client.write(
      'PUT',
      `requests/${encodeURIComponent(id)}`,
      { request: { status: { name: status }, resolution: { content: resolution } } },
      { signal },
    );
  }

  async reopen(id: string, status: string, signal?: AbortSignal): Promise<void> {
    await this.#client.write('PUT', `requests/${encodeURIComponent(id)}`, { request: { status: { name: status } } }, { signal });
  }

  async writeAccess(signal?: AbortSignal): Promise<WriteAccess> {
    const cloud = deploymentOf(this.#config) === 'cloud';
    const probe = async (method: 'POST' | 'PUT', path: string, allowedKind: SdpApiError['kind']): Promise<boolean | Error> => {
      try {
        await this.#client.write(method, path, { request: {} }, { signal, once: true, retry: { attempts: 2 } });
        // A server that took an empty request: writing is allowed (and nothing meaningful was written).
        return true;
      } catch (err) {
        if (err instanceof SdpApiError && err.kind === allowedKind) return true;
        if (err instanceof SdpApiError && err.kind === 'permission') return false;
        return err instanceof Error ? err : new Error(String(err));
      }
    };
    const create = await probe('POST', 'requests', 'input');
    const update = await probe('PUT', 'requests/0', 'not-found');
    const st = cloud ? ((await this.#ctx.state.get()) as TokenState) : null;
    const granted = st?.grantedScope ? ` (the token's scopes: ${st.grantedScope})` : '';
    const verdict = (id: string, what: string, r: boolean | Error, scope: string, role: string): CheckResult => {
      if (r instanceof Error) return { id, ok: false, message: `could not tell whether requests may be ${what}: ${errorMessage(r)}`, hint: null };
      if (r) return { id, ok: true, message: `requests may be ${what}${granted}`, hint: null };
      return cloud
        ? {
            id,
            ok: false,
            message: `the OAuth token may not ${role} requests${granted}`,
            hint: `Generate a new authorization code whose scopes include ${scope} beside the read scopes, and save it`,
          }
        : {
            id,
            ok: false,
            message: `the technician of this API key may not ${role} requests`,
            hint: `Give the technician's role the permission to ${role} requests, or use the key of a technician who has it`,
          };
    };
    const results = [
      verdict('remediation-create', 'created', create, WRITE_SCOPES[0]!, 'add'),
      verdict('remediation-update', 'edited and noted', update, WRITE_SCOPES[1]!, 'edit'),
    ];
    return { create: create === true, update: update === true, results };
  }

  async close(): Promise<void> {
    await this.#client.close();
  }
}
