// The correlation screens in a real browser: both simulators on one estate synced through the CLI into
// the data dir a `tributary serve` runs on; the Assets list, an asset page with both sources side by
// side and why they are linked, an unlink from that page, owners on the Vulnerabilities list, and the
// Coverage page with its four numbers and a list; a ticket's assets by name with why and whether it
// covers them, a broad ticket's note, and a CMDB record's nested attributes as key/value lists.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cliEnv, runCliAsync } from '../helpers/cli.ts';
import { browserSuite, browserUnavailable, startEstateServe, syncEstate } from './harness.ts';

const unavailable = browserUnavailable();
const env = cliEnv();

describe('correlation screens in chromium', { skip: unavailable ?? false, timeout: 150_000 }, () => {
  const ui = browserSuite(() => startEstateServe(env), { prepare: (servers) => syncEstate(servers, env) });

  it('lists assets and shows one with both sources side by side, why, and an unlink that sticks', async () => {
    const { page, served, shots } = ui;
    await page.goto(served.url + '/inventory/assets');
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    await page.locator('table tbody tr a').first().waitFor();
    // One linked by serial: its page from the list's link.
    const asset = (await ui.api<{ items: { id: string; name: string }[] }>('/api/v1/assets?matchRule=serial&limit=1')).items[0]!;
    await page.goto(served.url + `/inventory/assets/${asset.id}`);
    await page.getByRole('heading', { name: asset.name, level: 1 }).waitFor();
    await page.getByText('Both sources side by side').waitFor();
    await page.getByRole('columnheader', { name: /Scanner host \(scan\)/ }).waitFor();
    await page.getByRole('columnheader', { name: /CMDB record \(desk\)/ }).waitFor();
    // Why, by the records' names, in a sentence naming the shared serial (not JSON).
    const records = await ui.api<{ hosts: { hostname: string | null }[]; cmdbAssets: { name: string }[] }>(`/api/v1/assets/${asset.id}/records`);
    const cmdbName = records.cmdbAssets[0]!.name;
    await page
      .locator('.why li')
      .filter({ hasText: new RegExp(`CMDB record ${cmdbName}: same serial \\S+`) })
      .waitFor();
    assert.doesNotMatch((await page.locator('.why').textContent()) ?? '', /[{}"]/);
    await page.screenshot({ path: join(shots, 'asset.png') });
    await page.getByRole('button', { name: `Unlink CMDB record ${cmdbName}` }).click();
    await page.getByText('Unlinked; kept across syncs.').waitFor();
    await page.getByText(/linked by none/).waitFor();
    // Link it back by hand: find the CMDB record by name, then Link.
    await page.getByLabel('Find a CMDB record').fill(cmdbName);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: `Link ${cmdbName}` }).click();
    await page.getByText('Linked; kept across syncs.').waitFor();
    await page.getByText(/linked by manual/).waitFor();
    // Who linked the pair by hand (the signed-in user) and when.
    await page
      .locator('.why li')
      .filter({ hasText: new RegExp(`CMDB record ${cmdbName}: linked manually by admin on \\d{4}-\\d{2}-\\d{2}`) })
      .waitFor();
    await page.getByRole('columnheader', { name: /CMDB record \(desk\)/ }).waitFor();
  });

  it('shows a ticket’s assets by name, why and coverage, explains a broad ticket, and nested CMDB attributes as key/value lists', async () => {
    const { page, served, pageErrors } = ui;
    type Rec = Record<string, unknown> & { id: string };
    const literal = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // A ticket associated with an asset: a row naming the asset (linking to its page), why, and coverage.
    const ticket = (await ui.api<{ items: Rec[] }>('/api/v1/tickets?assetLinks~=associated&limit=1')).items[0]!;
    const link = (ticket.assetLinks as { assetId: string; reason: string; value: string; covers?: boolean }[]).find((l) => l.reason === 'associated')!;
    const asset = await ui.api<Rec>(`/api/v1/assets/${link.assetId}`);
    await page.goto(served.url + `/inventory/tickets/${ticket.id}`);
    const row = page
      .getByRole('table', { name: 'Linked assets' })
      .locator('tbody tr')
      .filter({ hasText: `associated with the request (${link.value})` });
    await row.waitFor();
    const assetLink = row.getByRole('link');
    assert.equal(await assetLink.getAttribute('href'), `/inventory/assets/${link.assetId}`);
    assert.match((await assetLink.textContent()) ?? '', new RegExp(`^${literal(String(asset.name))}`));
    await row.getByText(link.covers ? 'Yes: every finding on it' : 'Only the findings listed below').waitFor();
    const ticketText = (await page.locator('body').textContent()) ?? '';
    assert.doesNotMatch(ticketText, /\[object Object\]|Asset [0-9a-f]{8}\b/);

    // A ticket naming 30 addresses is broad; its page says what that means.
    const csv = join(served.dataDir, 'requests.csv');
    const addresses = Array.from({ length: 30 }, (_, i) => `10.99.0.${i + 1}`).join(' ');
    writeFileSync(csv, `Request ID,Subject,Request Status,Created Time\nR-900,Patch ${addresses},Open,2026-11-20 10:00\n`);
    for (const args of [
      ['sources', 'add', 'servicedesk-plus', '--name', 'deskfiles', '--set', 'inputMode=file'],
      ['upload', 'deskfiles', csv],
      ['sync', 'deskfiles'],
    ]) {
      const r = await runCliAsync(['--data-dir', served.dataDir, ...args], env);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    }
    const broad = (await ui.api<{ items: Rec[] }>('/api/v1/tickets?source=deskfiles')).items[0]!;
    assert.equal(broad.broad, true);
    await page.goto(served.url + `/inventory/tickets/${broad.id}`);
    await page
      .getByRole('note')
      .filter({ hasText: /is broad: it names more than 25 hosts, addresses, CVEs or plugins/ })
      .waitFor();

    // A CMDB record's nested attributes (its operating system) as a key/value list, not JSON.
    const records = (await ui.api<{ items: Rec[] }>('/api/v1/cmdb-assets?limit=200')).items;
    const cmdb = records.find((r) => typeof (r.attributes as Rec | null)?.operating_system === 'object');
    assert.ok(cmdb, 'a CMDB record from a per-product-type list has its operating system as an object');
    const os = (cmdb.attributes as { operating_system: { os: string } }).operating_system.os;
    await page.goto(served.url + `/inventory/cmdb-assets/${cmdb.id}`);
    const attributes = page.locator('dl[aria-label="Attributes"]');
    const system = attributes.locator('.prop').filter({ has: page.locator('dt', { hasText: /^Operating system$/ }) });
    await system.locator('dl.nested .prop').filter({ hasText: os }).locator('dt', { hasText: /^Os$/ }).waitFor();
    assert.doesNotMatch((await attributes.textContent()) ?? '', /[{}]|"/);
    assert.deepEqual(pageErrors, []);
  });

  it('shows owners on findings and the coverage report with its lists', async () => {
    const { page, served, shots, pageErrors } = ui;
    await page.goto(served.url + '/inventory/vulnerabilities');
    await page.getByRole('columnheader', { name: /Owner/ }).waitFor();
    await page.goto(served.url + '/reports/coverage');
    await page.getByRole('heading', { name: 'Coverage', level: 1 }).waitFor();
    for (const label of [
      'CMDB assets not scanned',
      'Scanned hosts not in the CMDB',
      'Urgent findings without a ticket',
      'Open tickets whose findings are fixed',
    ])
      await page.getByText(label).waitFor();
    await page.getByText('Scanned hosts not in the CMDB').click();
    await page.getByRole('heading', { name: 'Scanned hosts not in the CMDB', level: 2 }).waitFor();
    // The number on the card is the list's length (counted once the list says it has loaded them), and
    // the columns are named for people.
    const number = Number(((await page.locator('.card.stat[aria-current="true"] .stat-value').textContent()) ?? '').replace(/,/g, ''));
    await page.getByText(`${number} record`).waitFor();
    const rows = await page.locator('section table tbody tr').count();
    assert.ok(rows > 0);
    assert.equal(number, rows);
    await page.getByRole('columnheader', { name: 'Host name' }).waitFor();
    // An urgent finding opens its finding page.
    await page.getByText('Urgent findings without a ticket').click();
    await page.getByRole('heading', { name: 'Urgent findings without a ticket', level: 2 }).waitFor();
    const first = page.locator('section table tbody tr a').first();
    await first.waitFor();
    const finding = ((await first.textContent()) ?? '').trim();
    await first.click();
    await page.getByRole('heading', { name: finding, level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Scores and CVEs', level: 2 }).waitFor();
    await page.goBack();
    await page.screenshot({ path: join(shots, 'coverage.png') });
    assert.deepEqual(pageErrors, []);
  });
});
