// The page thread of the findings and compliance streams (page-worker.ts): decodes and parses each /rest/analysis
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
import { isComplianceRow, mapComplianceRow, mapVulnerability } from '../map/vulndetails.ts';
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
  const as = req.as;
  const model = as.kind === 'compliance' ? 'compliance' : 'vulnerabilities';
  const out: MappedFindings = { model, records: [], plugins: [], hostRows: [], recordAt: [], pluginAt: [], errors: 0, failures: [], warnings: [] };
  const log = { warn: (fields: Record<string, unknown>, msg: string) => out.warnings.push([fields, msg]) } as unknown as Logger;
  let last: Record<string, unknown> | null = null;
  const mapped = mapRows(
    rows,
    (row) => {
      // Findings are the rows that are not compliance results, and the other way round.
      if (isComplianceRow(row) !== (as.kind === 'compliance')) return;
      // The row's host values, unless they are the row before's (the resolver would answer the same).
      out.hostRows.push(last !== null && sameHostValues(row, last) ? 0 : hostRowOf(row));
      last = row;
      out.recordAt.push(-1);
      out.pluginAt.push(-1);
      const at = out.recordAt.length - 1;
      // (a compliance result's key without its host's: `|plugin…`, the main thread puts the host first)
      const r = as.kind === 'compliance' ? mapComplianceRow(row, '') : mapVulnerability(row, as.sourceType, '', detail);
      if (r) out.recordAt[at] = out.records.push(r) - 1;
      if (as.kind === 'compliance') return;
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
