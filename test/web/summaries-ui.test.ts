// The summary screens in a real browser (issue 17): Vulnerabilities by plugin (rows from the summaries,
// sorting, the drill-down to a plugin's affected hosts) and the hosts list's open findings per severity
// and the scanner's own last-seen date, against a simulated Tenable.sc synced through the CLI.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { PluginSummary } from '../../src/core/api-shapes-reports.ts';
import { cliEnv } from '../helpers/cli.ts';
import { browserUnavailable, syncedScannerSuite } from './harness.ts';

const unavailable = browserUnavailable();
const env = cliEnv();

describe('summary screens in chromium', { skip: unavailable ?? false, timeout: 150_000 }, () => {
  const ui = syncedScannerSuite(env);

  it('lists vulnerabilities by plugin, sorts them, and drills down to the affected hosts', async () => {
    const { page, served, shots } = ui;
    await page.getByRole('link', { name: 'Vulnerabilities by plugin' }).click();
    await page.getByRole('heading', { name: 'Vulnerabilities by plugin', level: 1 }).waitFor();
    const all = await ui.api<PluginSummary>('/api/v1/vulnerabilities/plugins?limit=1000');
    assert.ok(all.total > 3, 'the sync left several plugins with open findings');
    await page.getByText(`1–${Math.min(50, all.total)} of ${all.total}`).waitFor();
    // Default order: most hosts first; the first row is the plugin with the most affected hosts.
    const top = all.items[0]!;
    const firstRow = page.locator('table tbody tr').first();
    assert.equal(await firstRow.locator('td').nth(2).innerText(), String(top.hosts));
    // Sorting by name (ascending) through the column header, kept in the URL.
    await page.getByRole('button', { name: /^Vulnerability/ }).click();
    await page.waitForURL((u) => u.searchParams.get('sort') === 'pluginName');
    const byName = await ui.api<PluginSummary>('/api/v1/vulnerabilities/plugins?limit=1&sort=pluginName');
    await page.locator('table tbody tr').first().getByText(byName.items[0]!.pluginName!).waitFor();
    await page.screenshot({ path: join(shots, 'plugins.png') });
    // The drill-down: the plugin's open findings, one per host (and port), each naming its host.
    await page.goto(served.url + '/reports/plugins');
    await firstRow.locator('td').nth(2).getByRole('link').click();
    await page.getByRole('heading', { name: top.pluginName ?? `Plugin ${top.pluginId}`, level: 1 }).waitFor();
    await page.getByText(`open on ${top.hosts} host`).waitFor();
    const rows = page.locator('table tbody tr');
    await rows.first().locator('a[href^="/inventory/hosts/"]').waitFor();
    assert.equal(await rows.count(), top.findings);
    const hostLinks = new Set(await rows.locator('a[href^="/inventory/hosts/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href'))));
    assert.equal(hostLinks.size, top.hosts, 'one distinct host per affected host');
  });

  it("shows each host's open findings per severity and the scanner's last-seen date", async () => {
    const { page, served, shots, pageErrors } = ui;
    await page.goto(served.url + '/inventory/hosts');
    await page.getByRole('heading', { name: 'Hosts', level: 1 }).waitFor();
    for (const h of ['Crit.', 'High', 'Med.', 'Low', 'Last seen']) await page.getByRole('columnheader', { name: h }).first().waitFor();
    const hosts = await ui.api<{ items: { id: string; hostname: string | null; scannerLastSeen: string | null }[] }>(
      '/api/v1/hosts?removed=false&sort=hostname&limit=50',
    );
    const first = hosts.items[0]!;
    const counts = await ui.api<{ items: { critical: number; high: number; medium: number; low: number }[] }>(`/api/v1/hosts/finding-counts?id=${first.id}`);
    const c = counts.items[0]!;
    assert.ok(c.critical + c.high + c.medium + c.low > 0, 'the first host has open findings');
    const row = page.locator('table tbody tr').first();
    await row.locator('td').nth(1).getByText(String(c.critical), { exact: true }).waitFor();
    const cells = await row.locator('td').allInnerTexts();
    assert.deepEqual(cells.slice(1, 5), [c.critical, c.high, c.medium, c.low].map(String));
    // The scanner's date, not the import time.
    assert.ok(first.scannerLastSeen, 'the simulator reports a last-seen date per host');
    const shown = new Date(first.scannerLastSeen).toLocaleDateString('en-GB', { dateStyle: 'medium', timeZone: 'UTC' });
    const headers = await page.locator('table thead th').allInnerTexts();
    assert.equal(cells[headers.findIndex((h) => h.startsWith('Last seen'))], shown, `the Last seen column shows the scanner's date: ${cells.join(' | ')}`);
    assert.notEqual(
      shown,
      new Date().toLocaleDateString('en-GB', { dateStyle: 'medium', timeZone: 'UTC' }),
      'the scanner saw it before today (not the import time)',
    );
    await page.screenshot({ path: join(shots, 'hosts-severity.png') });
    assert.deepEqual(pageErrors, []);
  });
});
