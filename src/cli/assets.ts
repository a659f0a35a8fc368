// `tributary assets link|unlink HOST_ID CMDB_ASSET_ID`, `assets recompute`, `assets show ASSET_ID` and
// `tributary report coverage [--days 30] [--list KIND]` (interfaces.md §6.3).
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { InputError } from '../core/errors.ts';
import { fieldsOf } from '../core/models.ts';
import { matchReasons } from '../correlate/reasons.ts';
import { COVERAGE_KINDS, isCoverageKind, MAX_COVERAGE_DAYS, MODEL_OF_KIND } from '../store/index.ts';
import { commandGroup, globals, printJson, wholeNumberOption, withApp } from './app.ts';
import { renderTable, terminalSafe } from './output.ts';

/** Who makes a change from the command line: the local user, as the system names them. */
function commandLineUser(): string {
  try {
    return `${userInfo().username} (command line)`;
  } catch {
    return 'the command line';
  }
}

/** A record's name for people: a host's name or address, a CMDB record's name or tag, else its id's start. */
function nameOf(r: Record<string, unknown> | undefined, id: string): string {
  const ip = (r?.ipAddresses as string[] | undefined)?.[0];
  return String(r?.hostname ?? r?.name ?? r?.fqdn ?? r?.assetTag ?? ip ?? id.slice(0, 8));
}

export function registerAssetsCommands(program: Command): void {
  const assets = program.command('assets').description('correlated machines across sources');
  for (const action of ['link', 'unlink'] as const) {
    assets
      .command(`${action} <hostId> <cmdbAssetId>`)
      .description(
        action === 'link'
          ? 'link a scanner host to a CMDB record (beats every rule, kept across syncs)'
          : 'forbid a host and a CMDB record from being linked (kept across syncs)',
      )
      .action(async (hostId: string, cmdbAssetId: string, _o: unknown, cmd: Command) => {
        const g = globals(cmd);
        await withApp(cmd, async (app) => {
          await app.store.correlation.setOverride(hostId, cmdbAssetId, action, commandLineUser());
          const host = await app.store.records.get('hosts', hostId);
          const out = { ok: true, action, hostId, cmdbAssetId, assetId: host.assetId ?? null };
          if (g.json) printJson(out);
          else
            process.stdout.write(
              `${action === 'link' ? 'linked' : 'unlinked'} host ${hostId} ${action === 'link' ? 'to' : 'from'} CMDB record ${cmdbAssetId}; the host is now in asset ${out.assetId}\n`,
            );
        });
      });
  }
  assets
    .command('recompute')
    .description('correlate every host with every CMDB record again and relink every ticket')
    .action(async (_o: unknown, cmd: Command) => {
      const g = globals(cmd);
      await withApp(cmd, async (app) => {
        const r = await app.store.correlation.correlateAll();
        const out = { mode: r.mode, hosts: r.hosts, cmdbAssets: r.cmdbAssets, assets: r.assets, linked: r.linked, ambiguous: r.ambiguous, tickets: r.tickets };
        if (g.json) printJson(out);
        else
          process.stdout.write(
            `${r.assets} assets from ${r.hosts} hosts and ${r.cmdbAssets} CMDB records: ${r.linked} links, ${r.ambiguous} ambiguous hosts; ${r.tickets} tickets relinked\n`,
          );
      });
    });
  assets
    .command('show <assetId>')
    .description('one asset with its scanner hosts and CMDB records side by side, and why they are linked')
    .action(async (assetId: string, _o: unknown, cmd: Command) => {
      const g = globals(cmd);
      await withApp(cmd, async (app) => {
        const asset = await app.store.records.get('assets', assetId);
        const hosts = await Promise.all((asset.hostIds as string[]).map((id) => app.store.records.get('hosts', id)));
        const cmdb = await Promise.all((asset.cmdbAssetIds as string[]).map((id) => app.store.records.get('cmdb-assets', id)));
        if (g.json) return printJson({ asset, hosts, cmdbAssets: cmdb });
        const w = (s: string) => process.stdout.write(s + '\n');
        w(`${asset.name ?? asset.id}  (${asset.matchRule})  owner ${asset.owner ?? '-'}, department ${asset.department ?? '-'}, site ${asset.site ?? '-'}`);
        const rows = [
          ['source', ...hosts.map((h) => h.source), ...cmdb.map((c) => c.source)],
          ['record', ...hosts.map(() => 'host'), ...cmdb.map(() => 'cmdb-asset')],
          ['name', ...hosts.map((h) => h.hostname ?? h.netbiosName), ...cmdb.map((c) => c.name)],
          ['fqdn', ...hosts.map((h) => h.fqdn), ...cmdb.map((c) => c.fqdn)],
          ['serial', ...hosts.map((h) => h.serialNumber), ...cmdb.map((c) => c.serialNumber)],
          ['mac', ...hosts.map((h) => h.macAddresses), ...cmdb.map((c) => c.macAddresses)],
          ['ip', ...hosts.map((h) => h.ipAddresses), ...cmdb.map((c) => c.ipAddresses)],
        ];
        const cols = ['field', ...rows[0]!.slice(1).map((_, i) => `#${i + 1}`)];
        w(
          renderTable(
            cols,
            rows.map((r) => Object.fromEntries(r.map((v, i) => [cols[i]!, v]))),
          ),
        );
        const records = new Map([...hosts, ...cmdb].map((r) => [r.id, r]));
        const name = (id: string) => nameOf(records.get(id), id);
        const reasons = matchReasons((asset.matchDetails as Record<string, unknown> | null) ?? {}, name);
        if (reasons.length === 0) w('why: seen in one source only');
        else w('why:');
        for (const r of reasons) {
          const pair = r.cmdbAssetId ? `host ${name(r.hostId)} ↔ CMDB record ${name(r.cmdbAssetId)}` : `host ${name(r.hostId)}`;
          w(terminalSafe(`  ${pair}: ${r.text}`));
          for (const note of r.notes) w(terminalSafe(`    ${note}`));
        }
      });
    });

  const report = commandGroup(program, 'report', 'reports computed from the store: remediation, trends, coverage');
  report
    .command('coverage')
    .description('CMDB assets not scanned, scanned hosts not in the CMDB, urgent findings without ticket, tickets whose findings are fixed')
    .option('--days <n>', 'a CMDB asset counts as scanned when one of its hosts was seen within this many days', '30')
    .option('--list <kind>', `print the records behind one number: ${COVERAGE_KINDS.join(', ')}`)
    .action(async (o: { days: string; list?: string }, cmd: Command) => {
      const g = globals(cmd);
      const days = wholeNumberOption(o.days, 'days', 0, MAX_COVERAGE_DAYS);
      if (o.list !== undefined && !isCoverageKind(o.list)) throw new InputError(`--list must be one of ${COVERAGE_KINDS.join(', ')}`, 'list');
      await withApp(cmd, async (app) => {
        if (o.list !== undefined && isCoverageKind(o.list)) {
          const records = await app.store.reports.coverageList(o.list, days);
          if (g.json) for (const r of records) process.stdout.write(JSON.stringify(r) + '\n');
          else if (records.length === 0) process.stdout.write(`no ${o.list}\n`);
          else
            process.stdout.write(
              renderTable(
                fieldsOf(MODEL_OF_KIND[o.list])
                  .map((f) => f.name)
                  .slice(0, 12),
                records,
              ) + '\n',
            );
          return;
        }
        const r = await app.store.reports.coverage(days);
        if (g.json) return printJson(r);
        process.stdout.write(
          [
            `CMDB assets not scanned in ${days} days: ${r.cmdbNotScanned}`,
            `scanned hosts not in the CMDB:          ${r.scannedNotInCmdb}`,
            `urgent findings without a ticket:        ${r.findingsWithoutTicket}`,
            `open tickets whose findings are fixed:   ${r.ticketsForFixedFindings}`,
          ].join('\n') + '\n',
        );
      });
    });
}
