// The vulnerabilities stream's page thread (page-worker.ts): decodes and parses each /rest/analysis
// answer it is handed (its bytes moved here, not copied), keeps the page's rows, and maps them when
// asked, in the order asked; hosts are left to the stream's resolver on the main thread, which gets
// each row's host values (only when they change from the row before).
import { parentPort, workerData } from 'node:worker_threads';
import type { Logger } from '../../../core/log.ts';
import { mapRows } from '../../../core/map-rows.ts';
import type { RecordOf } from '../../../core/models.ts';
import { errorMessage, UpstreamError } from '../../../core/errors.ts';
import { readAnalysisResponse, readEnvelope } from '../map/envelope.ts';
import { hostRowOf, sameHostValues } from '../map/host-resolver.ts';
import { missingFindingIdentity } from '../map/identity.ts';
import type { DetailOptions } from '../map/plugins.ts';
import { mapPlugin } from '../map/plugins.ts';
import { text } from '../map/values.ts';
import { isComplianceRow, mapVulnerability } from '../map/vulndetails.ts';
import type { MappedFindings, PageThreadReply, PageThreadRequest } from './page-worker.ts';

const detail = (workerData as { detail: DetailOptions }).detail;
/** Parsed pages not mapped yet, by id. */
const pages = new Map<number, Record<string, unknown>[]>();
/** A plugin's record is written once per read (its text is the same on every finding of it). */
const pluginsSeen = new Set<string>();

function parse(req: Extract<PageThreadRequest, { parse: unknown }>['parse'], id: number): PageThreadReply {
  const body = Buffer.from(req.body).toString('utf8');
  const r = readEnvelope(req.status, body, { contentType: req.contentType, server: req.server });
  if (!r.ok) return { id, problem: r.problem };
  try {
    const page = readAnalysisResponse(r.envelope.response, { strict: true, what: req.what });
    pages.set(id, page.rows);
    return { id, page: { rowCount: page.rows.length, total: page.total, returned: page.returned, timestamp: r.envelope.timestamp } };
  } catch (err) {
    const e = err instanceof UpstreamError ? err : null;
    return { id, refused: { message: errorMessage(err), hint: e?.hint ?? null, status: e?.status ?? null } };
  }
}

function map(req: Extract<PageThreadRequest, { map: unknown }>['map'], id: number): PageThreadReply {
  const rows = pages.get(req.page) ?? [];
  pages.delete(req.page);
  const out: MappedFindings = { vulnerabilities: [], plugins: [], hostRows: [], vulnAt: [], pluginAt: [], errors: 0, failures: [], warnings: [] };
  const log = { warn: (fields: Record<string, unknown>, msg: string) => out.warnings.push([fields, msg]) } as unknown as Logger;
  let last: Record<string, unknown> | null = null;
  const mapped = mapRows(
    rows,
    (row) => {
      if (isComplianceRow(row)) return;
      // The row's host values, unless they are the row before's (the resolver would answer the same).
      out.hostRows.push(last !== null && sameHostValues(row, last) ? 0 : hostRowOf(row));
      last = row;
      out.vulnAt.push(-1);
      out.pluginAt.push(-1);
      const at = out.vulnAt.length - 1;
      const v = mapVulnerability(row, req.sourceType, '', detail);
      if (v) out.vulnAt[at] = out.vulnerabilities.push(v) - 1;
      const pid = text(row.pluginID);
      if (pid !== null && !pluginsSeen.has(pid)) {
        pluginsSeen.add(pid);
        const p = mapPlugin(row);
        if (p) out.pluginAt[at] = out.plugins.push(p as RecordOf<'plugins'>) - 1;
      }
    },
    { what: req.what, firstRow: req.firstRow, log, missing: missingFindingIdentity },
  );
  out.errors = mapped.errors;
  out.failures = mapped.failures;
  return { id, mapped: out };
}

parentPort!.on('message', (req: PageThreadRequest) => {
  let reply: PageThreadReply;
  try {
    reply = 'parse' in req ? parse(req.parse, req.id) : map(req.map, req.id);
  } catch (err) {
    reply = { id: req.id, error: errorMessage(err) };
  }
  parentPort!.postMessage(reply);
});
