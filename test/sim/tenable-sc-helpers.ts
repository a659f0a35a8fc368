// Shared helpers for the Tenable.sc simulator tests: a tiny client that speaks to a running sim.
import { Agent, request } from 'undici';
import type { RunningTenableSim, SimCredentials } from '../../sim/tenable-sc/index.ts';

export interface SimResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON shapes
  json: any;
}

export function apiKeyHeader(c: SimCredentials): string {
  return `accesskey=${c.accessKey}; secretkey=${c.secretKey};`;
}

export async function call(
  sim: RunningTenableSim,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  opts: { body?: unknown; creds?: SimCredentials | null; headers?: Record<string, string> } = {},
): Promise<SimResponse> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const creds = opts.creds === undefined ? sim.analyst : opts.creds;
  if (creds && !('x-apikey' in headers)) headers['x-apikey'] = apiKeyHeader(creds);
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const dispatcher = sim.caCertificate ? new Agent({ connect: { ca: sim.caCertificate } }) : undefined;
  try {
    const res = await request(`${sim.url}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), dispatcher });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text, json };
  } finally {
    await dispatcher?.close();
  }
}

export function vulnQuery(filters: unknown[] = [], start = 0, end = 1000, extra: Record<string, unknown> = {}) {
  return { type: 'vuln', sourceType: 'cumulative', query: { type: 'vuln', tool: 'vulndetails', filters }, startOffset: start, endOffset: end, ...extra };
}

export const analysis = (sim: RunningTenableSim, body: unknown, creds?: SimCredentials) => call(sim, 'POST', '/rest/analysis', { body, creds });

/** Pages through a query until an empty or short page; returns every row. */
export async function pageAll(sim: RunningTenableSim, body: ReturnType<typeof vulnQuery>, pageSize = 100) {
  // biome-ignore lint/suspicious/noExplicitAny: rows are arbitrary JSON
  const rows: any[] = [];
  for (let start = 0; ; start += pageSize) {
    const r = await analysis(sim, { ...body, startOffset: start, endOffset: start + pageSize });
    if (r.status !== 200) throw new Error(`page at ${start} failed: ${r.status} ${r.text.slice(0, 200)}`);
    rows.push(...r.json.response.results);
    if (r.json.response.returnedRecords < pageSize) return rows;
  }
}

export const findingKey = (row: { ip: string; port: string; protocol: string; pluginID: string; repository: { id: string } }) =>
  `${row.repository.id}|${row.ip}|${row.port}|${row.protocol}|${row.pluginID}`;
