// What every Tenable.sc stream shares: the client's lifetime and the severity filter.
import type { KnownHost, Page, StreamContext } from '../../../core/connector.ts';
import { HostResolver, SEED_FIELDS, seedOnly } from '../map/host-resolver.ts';
import { TenableScClient } from '../client.ts';
import type { AnalysisFilter } from '../client.ts';
import type { TenableScApiConfig } from '../config.ts';
import type { ScanWindows } from './scan-window.ts';

export interface StreamDeps {
  config: TenableScApiConfig;
  /** For tests: a client factory (default: a real client for the config). */
  client?: (ctx: StreamContext) => TenableScClient;
  /** The stored hosts the streams of one run share (tenableScStreams makes one per run). */
  hosts?: SharedHosts;
  /** Where the streams of one run start their incremental windows (one per run: it warns once). */
  scanWindows?: ScanWindows;
}

/**
 * The stored hosts every stream of a run seeds its host resolver from, read from the store once and
 * again only after a page of this run carried host records (the hosts stream's, or a host a later
 * stream created or completed): a stream starts after every page before it is stored, so each
 * resolver is seeded with exactly the hosts the store holds then, as when each stream read them. Read
 * (a page of hosts at a time) and kept cut to what seeding reads (SEED_FIELDS). The read again is of
 * the hosts the pages since named (their host records and the hosts their records are on), merged into
 * the list, where the context can read hosts by key (issue 30: an incremental run read every stored
 * host once per stream). A different `knownHosts` function (another store or source, in tests) is
 * read afresh.
 */
/** Past this many hosts named since the last read (a first import's), every host is read again: one scan costs less than their lookups. */
const NAMED_MAX = 5000;

export class SharedHosts {
  #from: StreamContext['knownHosts'] | null = null;
  #list: Promise<KnownHost[]> | null = null;
  /** Whether a page since the last read carried host records; the host keys the pages since named (null: past NAMED_MAX, all are read again). */
  #stale = false;
  #named: Set<string> | null = new Set();

  async resolver(ctx: Pick<StreamContext, 'knownHosts' | 'knownHostsByKey'>): Promise<HostResolver> {
    if (!ctx.knownHosts) return new HostResolver();
    if (this.#from !== ctx.knownHosts || this.#list === null) {
      this.#from = ctx.knownHosts;
      this.#keep(seedHosts(ctx.knownHosts));
    } else if (this.#stale) {
      const byKey = this.#named ? ctx.knownHostsByKey : undefined;
      const keys = [...(this.#named ?? [])];
      const before = this.#list;
      const seededBefore = this.#seeded?.list === before ? this.#seeded.resolver : null;
      const merged = byKey
        ? Promise.all([before, byKey(keys)]).then(([list, changed]) => {
            const at = new Map(list.map((h, i) => [h.key, i]));
            const next = [...list];
            const seeds = changed.map(seedOnly);
            let onlyAdds = true;
            for (const h of seeds) {
              const i = at.get(h.key);
              onlyAdds &&= HostResolver.onlyAdds(i === undefined ? undefined : list[i], h);
              if (i === undefined) next.push(h);
              else next[i] = h;
            }
            return { next, seeds, onlyAdds };
          })
        : null;
      this.#keep(merged ? merged.then((m) => m.next) : seedHosts(ctx.knownHosts));
      // Hosts that only gained identifiers are seeded on a copy of the resolver of the list before
      // (issue 30: seeding every host again after the hosts stream of an incremental run was a second).
      if (merged && seededBefore) {
        const list = this.#list!;
        this.#seeded = {
          list,
          resolver: Promise.all([merged, seededBefore]).then(([m, r]) => {
            if (!m.onlyAdds) return HostResolver.seeded(m.next);
            const next = r.clone();
            for (const h of m.seeds) next.seed(h);
            return next;
          }),
        };
      }
    }
    // Each stream changes its resolver: it gets a copy of the one seeded with the list (seeded once per list).
    const list = this.#list!;
    if (this.#seeded?.list !== list) this.#seeded = { list, resolver: list.then((hosts) => HostResolver.seeded(hosts)) };
    return (await this.#seeded.resolver).clone();
  }

  /** The resolver seeded with the current list, which each stream's is copied from. */
  #seeded: { list: Promise<KnownHost[]>; resolver: Promise<HostResolver> } | null = null;

  #keep(list: Promise<KnownHost[]>): void {
    this.#list = list;
    this.#stale = false;
    this.#named = new Set();
    list.catch(() => {
      if (this.#list === list) this.#list = null;
    });
  }

  /** A page a stream yields: host records in it make the stored hosts change (those it names, and the hosts of its records). */
  saw(page: Page): void {
    for (const [model, records] of Object.entries(page.records))
      for (const r of records ?? []) {
        if (model === 'hosts') this.#stale = true;
        const key = model === 'hosts' ? r.key : r.hostKey;
        if (key !== undefined) this.#named?.add(key);
      }
    if (this.#named && this.#named.size > NAMED_MAX) this.#named = null;
  }
}

/** Every stored host with only SEED_FIELDS, read a page at a time (never a whole host, nor every host's row at once). */
async function seedHosts(knownHosts: NonNullable<StreamContext['knownHosts']>): Promise<KnownHost[]> {
  const out: KnownHost[] = [];
  for await (const page of knownHosts(SEED_FIELDS)) for (const h of page) out.push(h);
  return out;
}

/** The host resolver a stream starts from: the run's shared stored hosts, or (without them) the store read now. */
export function loadResolver(deps: StreamDeps, ctx: StreamContext): Promise<HostResolver> {
  return deps.hosts ? deps.hosts.resolver(ctx) : HostResolver.load(ctx.knownHosts);
}

/** Runs `body` with a client that is closed afterwards, whatever happens. */
export async function* withClient(deps: StreamDeps, ctx: StreamContext, body: (client: TenableScClient) => AsyncGenerator<Page>): AsyncGenerator<Page> {
  const client = deps.client ? deps.client(ctx) : new TenableScClient(deps.config, { log: ctx.log });
  try {
    for await (const page of body(client)) {
      deps.hosts?.saw(page);
      yield page;
    }
  } finally {
    await client.close();
  }
}

/** Info findings are only asked for when they become vulnerabilities. */
export function severityFilter(includeInformational: boolean): AnalysisFilter[] {
  return includeInformational ? [] : [{ filterName: 'severity', operator: '=', value: '1,2,3,4' }];
}

export function pluginFilter(ids: readonly string[]): AnalysisFilter {
  return { filterName: 'pluginID', operator: '=', value: ids.join(',') };
}
