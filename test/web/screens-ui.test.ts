// The screens to work from, in a real browser at 1280×800 against a `tributary serve` filled from both
// simulators on one estate: the vulnerabilities list dense enough to scan (20 or more whole rows on the
// first screen, the total above the table, one line per row, a finding's details opened on demand).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cliEnv } from '../helpers/cli.ts';
import { startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { Estate } from '../../sim/shared/estate.ts';
import { startTenableSim } from '../../sim/tenable-sc/index.ts';
import { browserSuite, browserUnavailable, openBrowser, startAll, startServe, syncEstate } from './harness.ts';

const unavailable = browserUnavailable();
const env = cliEnv();

describe('screens to work from in chromium', { skip: unavailable ?? false, timeout: 180_000 }, () => {
  const start = () => {
    const estate = new Estate(21, 40);
    return startAll({
      served: startServe({ TRIBUTARY_MASTER_KEY: env.TRIBUTARY_MASTER_KEY }),
      scanner: startTenableSim({ port: 0, seed: 3, findingsPerHost: 20, estate }),
      desk: startSdpSim({ port: 0, seed: 3, requests: 40, users: 10, technicians: 3, estate }),
    });
  };
  const ui = browserSuite(start, { viewport: { width: 1280, height: 800 }, prepare: (servers) => syncEstate(servers, env) });

  it('shows 20 or more findings on the first screen at 1280×800, the total above them, details on demand', async (t) => {
    const { page, served, shots } = ui;
    const total = (await ui.api<{ count: number }>('/api/v1/vulnerabilities/count')).count;
    assert.ok(total >= 50, `findings: ${total}`);
    await page.goto(served.url + '/inventory/vulnerabilities');
    await page.locator('tbody .sev').first().waitFor();
    await page.locator('table[aria-busy="true"]').waitFor({ state: 'detached' });
    // The total, above the table.
    const totalEl = page.getByTestId('list-total');
    await totalEl.waitFor();
    assert.equal(await totalEl.textContent(), total.toLocaleString('en-US'));
    const totalBox = await totalEl.boundingBox();
    const tableBox = await page.locator('table').first().boundingBox();
    assert.ok(totalBox && tableBox && totalBox.y + totalBox.height <= tableBox.y, 'the total is above the table');
    assert.ok(totalBox.y + totalBox.height <= 800, 'the total is on the first screen');
    await page.screenshot({ path: join(shots, 'vulnerabilities.png') });
    // Rows wholly inside the viewport, the page scrolled to its top.
    const visible = (await page.evaluate(`(() => {
      window.scrollTo(0, 0);
      const h = window.innerHeight;
      return [...document.querySelectorAll('table tbody tr')].filter((tr) => {
        const r = tr.getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= h;
      }).length;
    })()`)) as number;
    t.diagnostic(`fully visible rows at 1280×800: ${visible}`);
    assert.ok(visible >= 20, `fully visible rows at 1280×800: ${visible}`);
    // No sideways scrolling at 1280 px.
    assert.ok(((await page.evaluate('document.documentElement.scrollWidth')) as number) <= 1280, 'no horizontal scroll');
    const wrap = (await page.evaluate(`(() => { const w = document.querySelector('.table-wrap'); return [w.scrollWidth, w.clientWidth]; })()`)) as number[];
    assert.ok(wrap[0] <= wrap[1], `the table scrolls sideways: ${wrap}`);
    // A long name is clipped, its full text in the tooltip.
    const first = page.locator('tbody tr').first();
    const link = first.locator('a[href^="/inventory/vulnerabilities/"]');
    const title = (await link.getAttribute('title')) ?? '';
    assert.ok(title.startsWith((await link.textContent()) ?? '\u0000'), title);
    assert.match(title, /Plugin \d+/);
    // Details on demand: a row's toggle opens its synopsis and solution under it, and closes them.
    const toggle = first.getByRole('button', { name: /^Show details of / });
    await toggle.click();
    const detail = page.locator('tr.detail-row .finding-detail');
    await detail.waitFor();
    assert.match((await detail.textContent()) ?? '', /Solution:/);
    await first.getByRole('button', { name: /^Hide details of / }).click();
    await detail.waitFor({ state: 'detached' });
    assert.deepEqual(ui.pageErrors, []);
  });

  it('saves a list’s filters and sort as a named view, opens it from the menu by its URL, and deletes it', async () => {
    const { page, served } = ui;
    await page.goto(served.url + '/inventory/vulnerabilities?severity=critical&knownExploited=true&sort=cvssV3BaseScore&page=2');
    await page.locator('table[aria-busy="true"]').waitFor({ state: 'detached' });
    await page.getByText('Saved views', { exact: true }).click();
    await page.getByText('No saved views of this list yet.').waitFor();
    await page.getByLabel('Save the current filters and sort as').fill('Critical KEV by CVSS');
    await page.getByRole('button', { name: 'Save view' }).click();
    const link = page.getByRole('link', { name: 'Critical KEV by CVSS' });
    await link.waitFor();
    // Stored server-side for this user, without the page.
    const stored = await ui.api<{ items: { name: string; path: string; query: string }[] }>('/api/v1/views?path=/inventory/vulnerabilities');
    assert.deepEqual(
      stored.items.map((v) => [v.name, v.path, v.query]),
      [['Critical KEV by CVSS', '/inventory/vulnerabilities', 'knownExploited=true&severity=critical&sort=cvssV3BaseScore']],
    );
    // The view's link is a shareable URL of the list with its filters and sort.
    assert.equal(await link.getAttribute('href'), '/inventory/vulnerabilities?knownExploited=true&severity=critical&sort=cvssV3BaseScore');

    // From the bare list, the menu brings the filters and sort back.
    await page.goto(served.url + '/inventory/vulnerabilities');
    await page.locator('table[aria-busy="true"]').waitFor({ state: 'detached' });
    await page.locator('.views-menu summary').click();
    await page.getByRole('link', { name: 'Critical KEV by CVSS' }).click();
    await page.waitForURL((u) => u.searchParams.get('severity') === 'critical' && u.searchParams.get('knownExploited') === 'true');
    await page.locator('.views-menu summary', { hasText: 'View: Critical KEV by CVSS' }).waitFor();
    assert.equal(await page.locator('#f-severity').inputValue(), 'critical');
    assert.ok(await page.getByLabel('Known exploited only').isChecked());
    await page.locator('table[aria-busy="true"]').waitFor({ state: 'detached' });
    const sev = await page.locator('tbody .sev').allTextContents();
    assert.ok(sev.length > 0 && sev.every((s) => s === 'Critical'), sev.join(','));

    // Deleted, it is gone from the menu and the store.
    if ((await page.locator('.views-menu[open]').count()) === 0) await page.locator('.views-menu summary').click();
    await page.getByRole('button', { name: 'Delete view Critical KEV by CVSS' }).click();
    await page.getByText('No saved views of this list yet.').waitFor();
    assert.deepEqual((await ui.api<{ items: unknown[] }>('/api/v1/views')).items, []);
    assert.deepEqual(ui.pageErrors, []);
  });

  it('adds a scheduled export, runs it now with its last result, and edits it', async () => {
    const { page, served, shots } = ui;
    type Dest = {
      name: string;
      source: string | null;
      target: string;
      format: string;
      models: string[];
      mode: string;
      status: { source: string; status: string; records: number; files: string[] }[];
    };
    const dest = async () => (await ui.api<{ items: Dest[] }>('/api/v1/exports')).items.find((d) => d.name === 'siem');
    await page.goto(served.url + '/settings/exports');
    await page.getByRole('heading', { name: 'Scheduled exports', level: 1 }).waitFor();
    await page.getByText('No scheduled exports yet.').waitFor();
    await page.getByRole('button', { name: 'Add export' }).click();
    await page.getByLabel('Name').fill('siem');
    await page.getByLabel('Source').selectOption('scan');
    await page.getByLabel('Target').fill('siem/daily');
    await page.getByLabel('Format').selectOption({ label: 'JSON Lines' });
    await page.getByRole('checkbox', { name: 'vulnerabilities' }).check();
    await page.locator('form.export-form').getByRole('button', { name: 'Add export' }).click();
    await page.getByText('Added siem;').waitFor();
    const row = page.locator('tbody tr', { hasText: 'siem/daily' });
    await row.getByText('not run yet').waitFor();
    let d = await dest();
    // The target as stored: the folder under the export root.
    assert.deepEqual(
      [d?.source, d?.target, d?.format, d?.models, d?.mode],
      ['scan', join(served.dataDir, 'exports', 'siem', 'daily'), 'jsonl', ['vulnerabilities'], 'full'],
    );

    // Run now: written from the source's last sync; the last result shows on the row.
    await page.getByRole('button', { name: 'Run siem now' }).click();
    await page.getByText(/^Ran siem: scan [\d,]+ records\.$/).waitFor();
    await row.locator('.badge', { hasText: 'succeeded' }).waitFor();
    d = await dest();
    const st = d?.status.find((s) => s.source === 'scan');
    assert.equal(st?.status, 'succeeded');
    assert.ok((st?.records ?? 0) > 0 && (st?.files.length ?? 0) > 0, JSON.stringify(st));
    assert.match((await row.textContent()) ?? '', new RegExp(`${st?.records.toLocaleString('en-US')} records`));
    await page.screenshot({ path: join(shots, 'exports.png') });

    // Edit: a new target and changes only; the name stays.
    await page.getByRole('button', { name: 'Edit siem' }).click();
    assert.equal(await page.getByLabel('Target').inputValue(), d?.target);
    assert.ok(await page.getByLabel('Name').isDisabled());
    await page.getByLabel('Target').fill('siem/changes');
    await page.getByLabel('Records').selectOption('changes');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved siem.').waitFor();
    await page.locator('tbody tr', { hasText: 'siem/changes' }).waitFor();
    d = await dest();
    assert.deepEqual([d?.target, d?.mode, d?.models], [join(served.dataDir, 'exports', 'siem', 'changes'), 'changes', ['vulnerabilities']]);
    // An edit the server refuses leaves the destination as it was.
    await page.getByRole('button', { name: 'Edit siem' }).click();
    await page.getByLabel('Target').fill('s3://');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('alert').waitFor();
    d = await dest();
    assert.equal(d?.target, join(served.dataDir, 'exports', 'siem', 'changes'));
    assert.deepEqual(ui.pageErrors, []);
  });

  it('fits the compliance page’s 50 rows in two screens at 1280×800', async (t) => {
    const { page, served } = ui;
    const total = (await ui.api<{ count: number }>('/api/v1/compliance/count')).count;
    assert.ok(total >= 50, `compliance results: ${total}`);
    await page.goto(served.url + '/inventory/compliance');
    await page.getByRole('heading', { name: 'Benchmark results per host' }).waitFor();
    await page.locator('table[aria-busy="true"]').waitFor({ state: 'detached' });
    await page.getByText('Showing 1–50').waitFor();
    await page.locator('.compliance-summary tbody tr').first().waitFor();
    const rows = await page.locator('table').last().locator('tbody tr').count();
    assert.equal(rows, 50);
    const height = (await page.evaluate('document.documentElement.scrollHeight')) as number;
    t.diagnostic(`compliance page height at 1280 wide: ${height} px`);
    assert.ok(height <= 1600, `the compliance page is ${height} px tall`);
    // The whole summary is one click away.
    const pairs = (await ui.api<{ items: unknown[] }>('/api/v1/compliance/summary?limit=200')).items.length;
    if (pairs > 3) {
      await page.getByRole('button', { name: `Show all ${pairs.toLocaleString('en-US')}` }).click();
      assert.equal(await page.locator('.compliance-summary tbody tr').count(), pairs);
    }
  });

  it('filters assets by match rule, one system only, owner and department, with their open findings', async () => {
    const { page, served } = ui;
    const count = async (q: string) => (await ui.api<{ count: number }>(`/api/v1/assets/count${q}`)).count;
    const shownTotal = async () => Number(((await page.getByTestId('list-total').textContent()) ?? '').replace(/,/g, ''));
    const settle = async (n: number) => {
      for (let i = 0; i < 100 && (await shownTotal()) !== n; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(await shownTotal(), n);
    };
    await page.goto(served.url + '/inventory/assets');
    await page.getByRole('columnheader', { name: 'Open findings' }).waitFor();
    await settle(await count(''));
    // One system only: the assets correlation linked to nothing.
    const single = await count('?matchRule=none');
    assert.ok(single > 0 && single < (await count('')), `one system only: ${single}`);
    await page.getByLabel('In one system only').check();
    await page.waitForURL((u) => u.searchParams.get('matchRule') === 'none');
    await settle(single);
    // By match rule.
    await page.getByLabel('Linked by').selectOption('serial');
    await page.waitForURL((u) => u.searchParams.get('matchRule') === 'serial');
    assert.equal(await page.getByLabel('In one system only').isChecked(), false);
    await settle(await count('?matchRule=serial'));
    await page.getByRole('button', { name: 'Clear filters' }).click();
    // By owner and department (contains), from an asset that has both.
    const withOwner = (
      await ui.api<{ items: { owner: string | null; department: string | null; openFindings: Record<string, number> | null }[] }>('/api/v1/assets?limit=200')
    ).items.find((a) => a.owner && a.department);
    assert.ok(withOwner, 'an asset with an owner and a department');
    const owner = withOwner.owner!.split(' ')[0]!;
    await page.getByLabel('Owner').fill(owner);
    await page.getByLabel('Owner').press('Enter');
    await page.waitForURL((u) => u.searchParams.get('owner') === owner);
    await settle(await count(`?where=${encodeURIComponent(`owner~${owner}`)}`));
    await page.getByLabel('Department').fill(withOwner.department!);
    await page.getByLabel('Department').press('Enter');
    await page.waitForURL((u) => u.searchParams.get('department') === withOwner.department);
    await settle(await count(`?where=${encodeURIComponent(`owner~${owner}`)}&where=${encodeURIComponent(`department~${withOwner.department}`)}`));
    // The open findings column: a row's total is its asset's open findings.
    await page.locator('table[aria-busy="true"]').waitFor({ state: 'detached' });
    const cells = await page.locator('tbody tr').first().locator('td').allTextContents();
    assert.ok(
      cells.some((c) => /^(\d+ (critical|high|medium|low) · )?\d+$/.test(c.trim())),
      cells.join(' | '),
    );
    assert.deepEqual(ui.pageErrors, []);
  });

  it('shows a CMDB record’s tickets and its findings', async () => {
    const { page, served } = ui;
    const records = (await ui.api<{ items: { id: string; name: string | null; assetId: string | null }[] }>('/api/v1/cmdb-assets?limit=200')).items;
    let chosen: { id: string; name: string | null; assetId: string; tickets: number; findings: number } | null = null;
    for (const r of records) {
      if (!r.assetId) continue;
      const tickets = (await ui.api<{ count: number }>(`/api/v1/tickets/count?assetIds=${r.assetId}`)).count;
      const findings = (await ui.api<{ count: number }>(`/api/v1/vulnerabilities/count?assetId=${r.assetId}`)).count;
      if (findings > 0 && (tickets > 0 || !chosen)) chosen = { ...r, assetId: r.assetId, tickets, findings };
      if (chosen && chosen.tickets > 0) break;
    }
    assert.ok(chosen && chosen.findings > 0, 'a CMDB record correlated with a scanned host');
    await page.goto(served.url + `/inventory/cmdb-assets/${chosen.id}`);
    const tickets = page.locator('section', { has: page.getByRole('heading', { name: 'Tickets', level: 2 }) });
    const findings = page.locator('section', { has: page.getByRole('heading', { name: 'Open findings', level: 2 }) });
    await findings
      .getByTestId('list-total')
      .filter({ hasText: chosen.findings.toLocaleString('en-US') })
      .waitFor();
    await tickets
      .getByTestId('list-total')
      .filter({ hasText: chosen.tickets.toLocaleString('en-US') })
      .waitFor();
    await findings.locator('tbody .sev').first().waitFor();
    if (chosen.tickets > 0) await tickets.locator('tbody a[href^="/inventory/tickets/"]').first().waitFor();
    assert.deepEqual(ui.pageErrors, []);
  });

  it('shows timestamps in the user’s time zone with the zone, and no raw ISO string on any screen', async () => {
    const { served } = ui;
    const finding = (await ui.api<{ items: { id: string }[] }>('/api/v1/vulnerabilities?limit=1')).items[0]!;
    const run = (await ui.api<{ items: { id: string; startedAt: string }[] }>('/api/v1/runs?limit=1')).items[0]!;
    const cmdb = (await ui.api<{ items: { id: string }[] }>('/api/v1/cmdb-assets?limit=1')).items[0]!;
    const ticket = (await ui.api<{ items: { id: string }[] }>('/api/v1/tickets?limit=1')).items[0]!;
    const host = (await ui.api<{ items: { id: string }[] }>('/api/v1/hosts?limit=1')).items[0]!;
    // A browser in another zone than the server's (UTC): the browser's own is what the page shows.
    const tokyoBrowser = await openBrowser(served.url, { viewport: { width: 1280, height: 800 }, timezoneId: 'Asia/Tokyo' });
    const { page } = tokyoBrowser;
    try {
      const raw = /\b\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}[^\s]*)?\b/;
      const pages = [
        '/',
        '/runs',
        `/runs/${run.id}`,
        '/sources/scan/runs',
        '/inventory/hosts',
        `/inventory/hosts/${host.id}`,
        '/inventory/vulnerabilities',
        `/inventory/vulnerabilities/${finding.id}`,
        '/inventory/assets',
        '/inventory/tickets',
        `/inventory/tickets/${ticket.id}`,
        '/inventory/cmdb-assets',
        `/inventory/cmdb-assets/${cmdb.id}`,
        '/inventory/compliance',
        '/inventory/users',
        '/reports/trends',
        '/reports/coverage',
        '/settings/feeds',
        '/settings/exports',
        '/settings/tokens',
      ];
      for (const path of pages) {
        await page.goto(served.url + path);
        await page.locator('main h1').first().waitFor();
        await page.waitForLoadState('networkidle');
        await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
        const text = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
        const m = raw.exec(text);
        assert.equal(m, null, `${path} shows a raw ISO string: …${m ? text.slice(Math.max(0, m.index - 60), m.index + 40) : ''}…`);
      }
      // The run's start, in Tokyo time with its zone.
      const tokyo = new Intl.DateTimeFormat('en-GB', {
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZoneName: 'short',
        timeZone: 'Asia/Tokyo',
      }).format(new Date(run.startedAt));
      assert.match(tokyo, /GMT\+9|JST/);
      await page.goto(served.url + `/runs/${run.id}`);
      await page.locator('main').getByText(tokyo).first().waitFor();
      assert.deepEqual(tokyoBrowser.pageErrors, []);
    } finally {
      await tokyoBrowser.close();
    }
  });
});
