// What to fix first in a real browser (issue 31 §1–2): the overview's Act count linked to the Act
// findings by priority, a finding's decision and its reason, and the Top remediations page with its
// drill-down to a fix's hosts, against a simulated Tenable.sc synced through the CLI.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { DecisionCounts, RemediationHosts, RemediationsReport } from '../../src/core/api-shapes-reports.ts';
import { cliEnv } from '../helpers/cli.ts';
import { browserUnavailable, syncedScannerSuite } from './harness.ts';

const unavailable = browserUnavailable();
const env = cliEnv();

describe('priority screens in chromium', { skip: unavailable ?? false, timeout: 150_000 }, () => {
  const ui = syncedScannerSuite(env);

  it('starts the overview with the Act count, linked to the Act findings; a finding says what to do and why', async () => {
    const { page, served, shots } = ui;
    await page.goto(served.url + '/');
    await page.getByRole('heading', { name: 'Act now', level: 2 }).waitFor();
    const counts = await ui.api<DecisionCounts>('/api/v1/reports/decisions');
    const act = counts.items[0]!.act;
    const link = page.getByRole('link', { name: /open findings to act on/ });
    await link.getByText(String(act), { exact: true }).waitFor();
    await page.screenshot({ path: join(shots, 'overview-act-now.png') });
    await link.click();
    await page.waitForURL((u) => u.pathname === '/inventory/vulnerabilities' && u.searchParams.get('decision') === 'act');
    const rows = page.locator('table tbody tr');
    assert.ok(act > 0, 'the simulated estate has findings to act on');
    await rows.first().getByText('Act', { exact: true }).waitFor();
    // The finding's page: its decision and the sentence of its parts.
    await rows.first().locator('a[href^="/inventory/vulnerabilities/"]').first().click();
    await page.getByRole('heading', { name: 'What to do', level: 2 }).waitFor();
    await page.getByText(/^Act: .+asset criticality .+\(priority \d+(\.\d)?\)$/).waitFor();
  });

  it('lists the top remediations by share of priority and drills down to a fix’s hosts', async () => {
    const { page, served, shots } = ui;
    await page.goto(served.url + '/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Top remediations' }).click();
    await page.getByRole('heading', { name: 'Top remediations', level: 1 }).waitFor();
    const report = await ui.api<RemediationsReport>('/api/v1/reports/remediations?limit=100');
    assert.ok(report.items.length > 3, 'the sync left several fixes');
    const top = report.items[0]!;
    const first = page.locator('table tbody tr').first();
    await first.getByText(top.fix).waitFor();
    assert.equal(await first.locator('td').nth(1).innerText(), `${(top.share * 100).toFixed(1)}%`);
    assert.equal(await page.locator('table tbody tr').count(), report.items.length);
    await page.getByRole('link', { name: 'Download CSV' }).waitFor();
    await page.screenshot({ path: join(shots, 'remediations.png') });
    await first.getByRole('link', { name: top.fix }).click();
    await page.getByRole('heading', { name: top.fix, level: 1 }).waitFor();
    // The page asks for its first 100 hosts and says how many there are in all.
    const hosts = await ui.api<RemediationHosts>(`/api/v1/reports/remediations/hosts?fix=${encodeURIComponent(top.key)}&limit=100`);
    const rows = page.locator('table tbody tr');
    await rows.first().locator('a[href^="/inventory/hosts/"]').waitFor();
    assert.equal(await rows.count(), hosts.hosts.length);
    assert.equal(hosts.fix?.hostsExact, true);
    assert.equal(hosts.total, hosts.fix?.hosts);
    assert.ok(hosts.total > 1 && hosts.total <= 100, 'the small estate: one page of several hosts');
    const pager = page.getByRole('navigation', { name: 'Pagination' });
    await pager.getByText(`1–${hosts.total} of ${hosts.total} hosts`).waitFor();
    assert.equal(await pager.getByRole('button', { name: 'Next page' }).isDisabled(), true);
    // A later page (its offset in the URL) starts past the first host, and can go back.
    await page.goto(`${served.url}/reports/remediations/fix?key=${encodeURIComponent(top.key)}&offset=1`);
    await pager.getByText(`2–${hosts.total} of ${hosts.total} hosts`).waitFor();
    assert.equal(await rows.count(), hosts.total - 1);
    assert.equal(await rows.first().locator('a[href^="/inventory/hosts/"]').innerText(), hosts.hosts[1]!.name ?? hosts.hosts[1]!.hostId);
    await pager.getByRole('button', { name: 'Previous page' }).click();
    await pager.getByText(`1–${hosts.total} of ${hosts.total} hosts`).waitFor();
  });
});
