// Tickets to assets and findings. Assets: the request's own associated assets (matched to the CMDB
// records of the same source by upstream id, else by name), then the host names, FQDNs, IP addresses
// and asset tags its text names. Findings: a ticket covers a finding when it names the finding's CVE or
// plugin and is tied to its asset (associated or named), or, naming no CVE or plugin at all, when it is
// associated with the asset (then it covers every finding there: its link says `covers`). A ticket
// naming more hosts or CVEs than one fix would (BROAD_TICKET_MENTIONS) is broad: only its associated
// assets count, so anyone who can file a ticket cannot cover the estate by pasting it. Each link keeps
// its reason; the coverage report counts only covering links.
import { mentionsOf } from '../../correlate/tickets.ts';
import type { Driver } from '../db/driver.ts';
import { allInChunks } from '../db/sql.ts';

/** A ticket naming a CVE found on thousands of machines links the first this many findings. */
const MAX_FINDINGS = 1000;
/** More distinct hosts (or addresses, CVEs, plugins) than this named in one ticket make it broad. */
export const BROAD_TICKET_MENTIONS = 25;

export interface AssetLink {
  assetId: string;
  reason: 'associated' | 'hostname' | 'fqdn' | 'ip' | 'asset-tag';
  value: string;
  /** Associated with a ticket that names no CVE or plugin: it covers every finding of the asset. */
  covers?: true;
}

/** Asset ids of hosts and CMDB records by record id. */
async function assetsOfRecords(db: Driver, ids: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const t of ['rec_hosts', 'rec_cmdb_assets']) {
    for (const r of await allInChunks(db, (ph) => `SELECT "id", "asset_id" FROM "${t}" WHERE "asset_id" IS NOT NULL AND "id" IN (${ph})`, ids))
      out.set(String(r.id), String(r.asset_id));
  }
  return out;
}

/** Recomputes assetIds, findingIds and assetLinks of the given tickets (null: every ticket). Returns how many changed. */
export async function linkTickets(db: Driver, ticketIds: string[] | null): Promise<number> {
  const cols = `"id", "source_id", "subject", "description", "associated_assets", "asset_ids", "finding_ids", "asset_links", "broad"`;
  const tickets =
    ticketIds === null
      ? await db.all(`SELECT ${cols} FROM "rec_tickets" WHERE "removed" = 0`)
      : await allInChunks(db, (ph) => `SELECT ${cols} FROM "rec_tickets" WHERE "removed" = 0 AND "id" IN (${ph})`, ticketIds);
  if (tickets.length === 0) return 0;
  const parsed = tickets.map((t) => ({
    row: t,
    associated: (JSON.parse(String(t.associated_assets ?? '[]')) ?? []) as { id?: string | null; name?: string | null }[],
    mentions: mentionsOf((t.subject as string | null) ?? null, (t.description as string | null) ?? null),
  }));

  // Identifier values named anywhere → records → assets, resolved once for all tickets.
  const byKind = { hostname: new Set<string>(), fqdn: new Set<string>(), ip: new Set<string>() };
  const tags = new Set<string>();
  const cves = new Set<string>();
  const plugins = new Set<string>();
  for (const p of parsed) {
    for (const v of p.mentions.hostnames) byKind.hostname.add(v);
    for (const v of p.mentions.fqdns) byKind.fqdn.add(v);
    for (const v of p.mentions.ips) byKind.ip.add(v);
    for (const v of p.mentions.tokens) tags.add(v).add(v.toUpperCase());
    for (const v of p.mentions.cves) cves.add(v);
    for (const v of p.mentions.plugins) plugins.add(v);
  }
  const identHits = new Map<string, string[]>();
  const recordIds = new Set<string>();
  for (const [kind, values] of Object.entries(byKind)) {
    for (const r of await allInChunks(
      db,
      (ph) => `SELECT "record_id", "value" FROM "asset_idents" WHERE "kind" = ? AND "value" IN (${ph})`,
      [...values],
      [kind],
    )) {
      const k = `${kind}\u0000${r.value}`;
      identHits.set(k, [...(identHits.get(k) ?? []), String(r.record_id)]);
      recordIds.add(String(r.record_id));
    }
  }
  const recordAsset = await assetsOfRecords(db, [...recordIds]);
  const tagAsset = new Map<string, string>();
  for (const r of await allInChunks(
    db,
    (ph) => `SELECT "asset_tag", "asset_id" FROM "rec_cmdb_assets" WHERE "removed" = 0 AND "asset_id" IS NOT NULL AND "asset_tag" IN (${ph})`,
    [...tags],
  ))
    tagAsset.set(String(r.asset_tag), String(r.asset_id));

  // Findings by CVE (one keyset scan of the findings that have CVEs) and by plugin id (indexed).
  const findingsBy = new Map<string, { id: string; assetId: string | null }[]>();
  const addFinding = (key: string, id: string, assetId: string | null) => {
    const list = findingsBy.get(key) ?? [];
    list.push({ id, assetId });
    findingsBy.set(key, list);
  };
  if (cves.size > 0) {
    let after = '';
    for (;;) {
      const rows = await db.all(
        `SELECT v."id", h."asset_id", v."cves" FROM "rec_vulnerabilities" v LEFT JOIN "rec_hosts" h ON h."id" = v."host_id" WHERE v."removed" = 0 AND v."cves" IS NOT NULL AND v."id" > ? ORDER BY v."id" LIMIT 20000`,
        [after],
      );
      for (const r of rows) {
        const s = String(r.cves);
        if (!s.includes('CVE')) continue;
        for (const c of JSON.parse(s) as string[])
          if (cves.has(String(c).toUpperCase())) addFinding(`cve\u0000${String(c).toUpperCase()}`, String(r.id), (r.asset_id as string | null) ?? null);
      }
      if (rows.length < 20000) break;
      after = String(rows[rows.length - 1]!.id);
    }
  }
  for (const r of await allInChunks(
    db,
    (ph) =>
      `SELECT v."id", h."asset_id", v."plugin_id" FROM "rec_vulnerabilities" v LEFT JOIN "rec_hosts" h ON h."id" = v."host_id" WHERE v."removed" = 0 AND v."plugin_id" IN (${ph})`,
    [...plugins],
  ))
    addFinding(`plugin\u0000${r.plugin_id}`, String(r.id), (r.asset_id as string | null) ?? null);

  // Associated assets: CMDB records of the ticket's source, by upstream id, else by name.
  const assocIds = new Map<string, Set<string>>();
  for (const p of parsed)
    for (const a of p.associated)
      if (a.id) (assocIds.get(String(p.row.source_id)) ?? assocIds.set(String(p.row.source_id), new Set()).get(String(p.row.source_id))!).add(String(a.id));
  const cmdbByExternal = new Map<string, string>();
  const cmdbByName = new Map<string, string>();
  for (const [sourceId, ids] of assocIds) {
    for (const r of await allInChunks(
      db,
      (ph) => `SELECT "external_id", "asset_id" FROM "rec_cmdb_assets" WHERE "source_id" = ? AND "asset_id" IS NOT NULL AND "external_id" IN (${ph})`,
      [...ids],
      [sourceId],
    ))
      cmdbByExternal.set(`${sourceId}\u0000${r.external_id}`, String(r.asset_id));
  }
  const assocNames = [
    ...new Set(
      parsed.flatMap((p) => p.associated.filter((a) => a.name && !(a.id && cmdbByExternal.has(`${p.row.source_id}\u0000${a.id}`))).map((a) => String(a.name))),
    ),
  ];
  for (const r of await allInChunks(
    db,
    (ph) => `SELECT "name", "asset_id" FROM "rec_cmdb_assets" WHERE "removed" = 0 AND "asset_id" IS NOT NULL AND "name" IN (${ph})`,
    assocNames,
  ))
    cmdbByName.set(String(r.name), String(r.asset_id));

  let changed = 0;
  for (const p of parsed) {
    const links: AssetLink[] = [];
    const seen = new Set<string>();
    const add = (assetId: string | undefined | null, reason: AssetLink['reason'], value: string) => {
      if (!assetId || seen.has(assetId)) return;
      seen.add(assetId);
      links.push({ assetId, reason, value });
    };
    const m = p.mentions;
    const namesFixes = m.cves.length > 0 || m.plugins.length > 0;
    for (const a of p.associated)
      add(
        (a.id ? cmdbByExternal.get(`${p.row.source_id}\u0000${a.id}`) : undefined) ?? (a.name ? cmdbByName.get(String(a.name)) : undefined),
        'associated',
        String(a.name ?? a.id),
      );
    // Named hosts, collected apart so that a ticket naming too many of them links by association only.
    const mentioned: AssetLink[] = [];
    const mentionedSeen = new Set<string>();
    const mention = (assetId: string | undefined | null, reason: AssetLink['reason'], value: string) => {
      if (!assetId || seen.has(assetId) || mentionedSeen.has(assetId)) return;
      mentionedSeen.add(assetId);
      mentioned.push({ assetId, reason, value });
    };
    for (const v of m.fqdns) for (const r of identHits.get(`fqdn\u0000${v}`) ?? []) mention(recordAsset.get(r), 'fqdn', v);
    for (const v of m.hostnames) for (const r of identHits.get(`hostname\u0000${v}`) ?? []) mention(recordAsset.get(r), 'hostname', v);
    for (const v of m.ips) for (const r of identHits.get(`ip\u0000${v}`) ?? []) mention(recordAsset.get(r), 'ip', v);
    for (const v of m.tokens) mention(tagAsset.get(v) ?? tagAsset.get(v.toUpperCase()), 'asset-tag', v);
    const broad = [mentioned.length, m.ips.length, m.cves.length, m.plugins.length].some((n) => n > BROAD_TICKET_MENTIONS);
    if (!broad) for (const l of mentioned) add(l.assetId, l.reason, l.value);
    if (!namesFixes) for (const l of links) if (l.reason === 'associated') l.covers = true;
    // The named CVEs and plugins, on the assets the ticket is tied to.
    const tied = new Set(seen);
    const findingIds = new Set<string>();
    const byFinding = (key: string) => {
      for (const f of findingsBy.get(key) ?? []) {
        if (findingIds.size >= MAX_FINDINGS) return;
        if (f.assetId && tied.has(f.assetId)) findingIds.add(f.id);
      }
    };
    for (const c of m.cves) byFinding(`cve\u0000${c}`);
    for (const pl of m.plugins) byFinding(`plugin\u0000${pl}`);
    const assetIds = JSON.stringify(links.map((l) => l.assetId).sort());
    const fids = JSON.stringify([...findingIds].sort());
    const linkJson = JSON.stringify(links);
    const broadFlag = broad ? 1 : 0;
    if (assetIds === p.row.asset_ids && fids === p.row.finding_ids && linkJson === p.row.asset_links && broadFlag === Number(p.row.broad ?? 0)) continue;
    await db.run(`UPDATE "rec_tickets" SET "asset_ids" = ?, "finding_ids" = ?, "asset_links" = ?, "broad" = ? WHERE "id" = ?`, [
      assetIds,
      fids,
      linkJson,
      broadFlag,
      p.row.id,
    ]);
    changed++;
  }
  return changed;
}
