// The findings' and compliance results' pages off the main thread (issue 30): the main thread reads each answer's
// bytes and moves them to a thread of the stream's own (page-thread.ts), which decodes, parses and
// maps them; the main thread resolves the rows' hosts (the stream's resolver, shared with the run) and
// hands the page on. Decoding, JSON.parse and mapping were two thirds of the main thread's time in a
// first import, while the store's writer thread waited for pages.
import { Worker } from 'node:worker_threads';
import type { RowFailure } from '../../../core/connector.ts';
import type { Logger } from '../../../core/log.ts';
import { collectInto, type RecordOf, type RecordsByModel } from '../../../core/models.ts';
import { errorMessage } from '../../../core/errors.ts';
import type { HttpResponse } from '../../../core/http.ts';
import type { EnvelopeProblem } from '../map/envelope.ts';
import type { HostResolver } from '../map/host-resolver.ts';
import type { DetailOptions } from '../map/plugins.ts';

/** What the thread answers of a parsed page: the paging loop's shape of it (its rows stay there). */
export interface ParsedPage {
  rowCount: number;
  total: number | null;
  returned: number;
  timestamp: number | null;
}

/** What a page thread maps a page's rows into: findings (and their plugins), or compliance results. */
export type PageKind = { kind: 'findings'; sourceType: 'cumulative' | 'patched' } | { kind: 'compliance' };

/** One page's records as the thread mapped them, hosts not yet resolved. */
export interface MappedFindings {
  model: 'vulnerabilities' | 'compliance';
  /**
   * The records, with an empty hostKey, set by the main thread; a compliance result's key starts with
   * its host's (complianceKey), so it comes without it, and gets it there too.
   */
  records: RecordOf<'vulnerabilities' | 'compliance'>[];
  plugins: RecordOf<'plugins'>[];
  /** Per row mapped, in order: its host values (hostRowOf), or 0 when they are the row before's. */
  hostRows: (Record<string, unknown> | 0)[];
  /** Per row mapped: the index of its record in `records`, of its plugin in `plugins`, or -1. */
  recordAt: number[];
  pluginAt: number[];
  errors: number;
  failures: RowFailure[];
  /** mapRows' warnings (fields, message), logged by the main thread. */
  warnings: [Record<string, unknown>, string][];
}

export type PageThreadRequest =
  | { id: number; parse: { status: number; contentType: string | null; server: string | null; body: ArrayBuffer; what: string } }
  | { id: number; map: { page: number; as: PageKind; what: string; firstRow: number } };

export type PageThreadReply =
  | { id: number; page: ParsedPage }
  | { id: number; problem: EnvelopeProblem }
  | { id: number; refused: { message: string; hint: string | null; status: number | null } }
  | { id: number; mapped: MappedFindings }
  | { id: number; error: string };

type ParseAnswer = Extract<PageThreadReply, { page: unknown } | { problem: unknown } | { refused: unknown }>;

const header = (res: HttpResponse, n: string): string | null => {
  const v = res.headers[n];
  return (Array.isArray(v) ? v[0] : v) ?? null;
};

export class PageWorker {
  readonly #worker: Worker;
  #next = 1;
  readonly #pending = new Map<number, { resolve: (r: PageThreadReply) => void; reject: (e: Error) => void }>();
  #failed: Error | null = null;

  constructor(detail: DetailOptions) {
    this.#worker = new Worker(new URL('./page-thread.ts', import.meta.url), {
      workerData: { detail: { proofMaxBytes: detail.proofMaxBytes } },
      // Two or three pages at a time (parsed, then mapped); the old generation may hold a large page.
      resourceLimits: { maxYoungGenerationSizeMb: 16 },
    });
    this.#worker.unref();
    this.#worker.on('message', (m: PageThreadReply) => {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (this.#pending.size === 0) this.#worker.unref();
      if ('error' in m) p.reject(new Error(`mapping a page failed: ${m.error}`));
      else p.resolve(m);
    });
    const fail = (err: Error) => {
      this.#failed ??= err;
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
    };
    this.#worker.on('error', (err) => fail(new Error(`the page thread failed: ${err.message}`)));
    this.#worker.on('exit', (code) => fail(new Error(`the page thread stopped (exit code ${code})`)));
  }

  #send(body: Omit<PageThreadRequest, 'id'>, transfer: ArrayBuffer[] = []): Promise<PageThreadReply> {
    if (this.#failed) return Promise.reject(this.#failed);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.ref();
      this.#worker.postMessage({ ...body, id } as PageThreadRequest, transfer);
    });
  }

  /** Parses an answer on the thread (its bytes move there): the page's shape, or why the call failed. */
  async parse(res: HttpResponse, what: string): Promise<ParseAnswer & { id: number }> {
    const bytes = res.bytes ?? Buffer.from(res.text);
    // Moved, not copied, when the bytes own their memory: a small answer sits in Node's shared pool,
    // which cannot move (its bytes are copied into memory of their own).
    const own = bytes.byteLength >= 4096 && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const body = (own ? bytes.buffer : new Uint8Array(bytes).buffer) as ArrayBuffer;
    const reply = await this.#send({ parse: { status: res.status, contentType: header(res, 'content-type'), server: header(res, 'server'), body, what } }, [
      body,
    ]);
    return reply as ParseAnswer & { id: number };
  }

  /**
   * Maps a parsed page (pages are mapped in the order asked) and resolves its rows' hosts with
   * `hosts`, adding the records in the order the rows name them, as mapping on this thread does.
   */
  async map(
    page: number,
    as: PageKind,
    at: { what: string; firstRow: number; log?: Logger },
    hosts: HostResolver,
    before: Promise<unknown>,
  ): Promise<{ records: RecordsByModel; errors: number; failures: RowFailure[] }> {
    const reply = this.#send({ map: { page, as, what: at.what, firstRow: at.firstRow } });
    // Hosts are resolved in page order, after the pages before (the resolver learns as it goes).
    await before.catch(() => {});
    const m = ((await reply) as Extract<PageThreadReply, { mapped: unknown }>).mapped;
    for (const [fields, msg] of m.warnings) at.log?.warn(fields, msg);
    return resolveHosts(m, hosts, at);
  }

  close(): Promise<number> {
    return this.#worker.terminate();
  }
}

/**
 * A mapped page with its hosts resolved: each finding row's host found (or created) by `hosts`, the
 * records added row by row (its host's, its finding, its plugin), as mapping the row here adds them.
 */
export function resolveHosts(
  m: MappedFindings,
  hosts: HostResolver,
  at: { what: string; firstRow: number; log?: Logger },
): { records: RecordsByModel; errors: number; failures: RowFailure[] } {
  const records: RecordsByModel = {};
  const add = collectInto(records);
  let errors = m.errors;
  const failures = [...m.failures];
  let key = '';
  let host: Record<string, unknown> = {};
  /** The last host values failed to resolve: the rows after with the same values are tried again. */
  let broken = false;
  for (let i = 0; i < m.hostRows.length; i++) {
    const h = m.hostRows[i]!;
    const v = m.recordAt[i]! >= 0 ? m.records[m.recordAt[i]!]! : null;
    const p = m.pluginAt[i]! >= 0 ? m.plugins[m.pluginAt[i]!]! : null;
    if (h !== 0) host = h;
    if (h !== 0 || broken)
      try {
        key = hosts.rowHost(host, add);
        broken = false;
      } catch (err) {
        // As a row whose mapping throws: counted and listed, its finding not stored.
        broken = true;
        errors++;
        failures.push({ row: v?.externalId ? `id ${v.externalId}` : `a row of ${at.what}`, field: null, reason: errorMessage(err).slice(0, 300) });
        if (p) add('plugins', p);
        continue;
      }
    if (v && m.model === 'compliance') {
      v.hostKey = key;
      v.key = key + v.key;
      add('compliance', v as RecordOf<'compliance'>);
    } else if (v) {
      const f = v as RecordOf<'vulnerabilities'>;
      f.hostKey = key;
      // Values the mapper shares across findings (a plugin's CVE list, its VPR drivers) arrive once per
      // page; frozen again, the store writes each one's JSON once (db/schema.ts toColumnValue).
      deepFreeze(f.fields.cves);
      deepFreeze(f.fields.vprKeyDrivers);
      add('vulnerabilities', f);
    }
    if (p) add('plugins', p);
  }
  return { records, errors, failures };
}

function deepFreeze(v: unknown): void {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
}
