// Lists, runs, the overview and the file drop in a real browser (Debian's chromium) against a
// `tributary serve` whose data dir the CLI filled from the simulators: a scanner answering 429 twice,
// then re-synced from a console with fewer hosts (some records removed), a ServiceDesk Plus, and a
// file-mode source. Totals and the page in the URL (reload, back), detail pages of tickets and CMDB
// records, the Source filter per kind, no sideways scrolling at 1280 px, the runs filter with retries,
// 429s and a log excerpt, live-only overview counts, the compliance page's order, the ports' services,
// and the file-drop guide only for file mode with a local bucket shown as a folder.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { startTenableSim } from '../../sim/tenable-sc/index.ts';
import { addTenableArgs, cliEnv, runCliAsync, tenableSets } from '../helpers/cli.ts';
import { browserSuite, browserUnavailable, startAll, startServe } from './harness.ts';

const unavailable = browserUnavailable();
const env = cliEnv();
const LISTS = ['hosts', 'vulnerabilities', 'assets', 'compliance', 'software', 'ports', 'tickets', 'cmdb-assets', 'users', 'services'];

describe('lists, runs, overview and file drop in chromium', { skip: unavailable ?? false, timeout: 180_000 }, () => {
  const ui = browserSuite(
    () =>
      startAll({
        served: startServe({ TRIBUTARY_MASTER_KEY: env.TRIBUTARY_MASTER_KEY }),
        // Two 429s (Retry-After: 0) before the first answers: the run retries them.
        before40: startTenableSim({ port: 0, seed: 5, hosts: 40, findingsPerHost: 20, rateLimit: { times: 2, retryAfter: 0 } }),
        after30: startTenableSim({ port: 0, seed: 5, hosts: 30, findingsPerHost: 20 }),
        desk: startSdpSim({ port: 0, seed: 5, requests: 70, assets: 30, users: 10, technicians: 3 }),
      }),
    {
      viewport: { width: 1280, height: 800 },
      prepare: async ({ served, before40, after30, desk }) => {
        const cli = async (...args: string[]) => {
          const r = await runCliAsync(['--data-dir', served.dataDir, ...args], env);
          assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
        };
        await cli(...addTenableArgs('scan', before40));
        await cli('sync', 'scan');
        // The same console with ten hosts fewer: a full run removes them (and fixes their findings).
        await cli('sources', 'configure', 'scan', ...tenableSets(after30.url, after30.analyst));
        await cli('sync', 'scan', '--full', '--allow-large-removal');
        await cli('sources', 'add', 'servicedesk-plus', '--name', 'desk', '--set', `serverUrl=${desk.url}`, '--set', `apiKey=${desk.apiKey}`);
        await cli('sync', 'desk');
        await cli('sources', 'add', 'tenable-sc', '--name', 'drop', '--set', 'inputMode=file');
      },
    },
  );
  /** Waits until `check` holds (the page settles asynchronously). */
  const until = async (check: () => Promise<boolean>, what: string) => {
    for (let i = 0; i < 150; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`gave up waiting: ${what}`);
  };
  const count = async (path: string) => (await ui.api<{ count: number }>(path)).count;
  /** The texts of one column of the page's first table, found by its header. */
  const column = async (label: string): Promise<string[]> =>
    (await ui.page.evaluate(`(() => {
      const table = document.querySelector('table');
      if (!table) return [];
      const i = [...table.querySelectorAll('thead th')].findIndex((th) => th.textContent.trim().startsWith(${JSON.stringify(label)}));
      return i < 0 ? [] : [...table.querySelectorAll('tbody tr')].map((tr) => tr.children[i]?.textContent ?? '');
    })()`)) as string[];

  it('shows totals and keeps the page and filters in the URL across reload and back', async () => {
    const { page, served } = ui;
    const total = await count('/api/v1/vulnerabilities/count?removed=false');
    assert.ok(total > 100, `findings: ${total}`);
    await page.goto(served.url + '/inventory/vulnerabilities');
    await page.locator('tbody .sev').first().waitFor();
    await page.getByText(`Showing 1–50 of ${total.toLocaleString('en-US')}`).waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForURL(/[?&]page=2/);
    await page.getByText(`Showing 51–100 of ${total.toLocaleString('en-US')}`).waitFor();
    const secondPage = await column('Vulnerability');
    // A reload lands on the same page (fetched by offset now), with the same rows.
    await page.reload();
    await page.getByText(`Showing 51–100 of ${total.toLocaleString('en-US')}`).waitFor();
    await page.locator('tbody .sev').first().waitFor();
    assert.deepEqual(await column('Vulnerability'), secondPage);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText('Showing 1–50').waitFor();
    assert.ok(!/[?&]page=/.test(page.url()), page.url());

    // A filter goes to the URL and starts at page 1; its total is the filtered one.
    const high = await count('/api/v1/vulnerabilities/count?removed=false&severity=high');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForURL(/page=2/);
    await page.getByLabel('Severity').selectOption('high');
    await page.waitForURL((u) => u.searchParams.get('severity') === 'high' && !u.searchParams.has('page'));
    await page.getByText(new RegExp(`Showing 1–${Math.min(50, high)} of ${high.toLocaleString('en-US')}$`)).waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForURL(/page=2/);
    const filtered = page.url();
    // Away to a host page and back: the page and the filter are still there.
    await page.locator('tbody tr td a[href^="/inventory/hosts/"]').first().click();
    await page.waitForURL(/\/inventory\/hosts\/[^/?]+$/);
    await page.goBack();
    await page.waitForURL(filtered);
    await page.getByText(`Showing 51–`).waitFor();
    assert.equal(await page.getByLabel('Severity').inputValue(), 'high');
    const sev = await page.locator('tbody .sev').allTextContents();
    assert.ok(sev.length > 0 && sev.every((s) => s === 'High'), sev.join(','));
  });

  it('offers in the Source filter only the sources of the list’s kind', async () => {
    const { page, served } = ui;
    const options = async () => (await page.locator('#f-source option').allTextContents()).filter((o) => o !== 'All sources').sort();
    await page.goto(served.url + '/inventory/vulnerabilities');
    await page.locator('#f-source option', { hasText: 'scan' }).waitFor({ state: 'attached' });
    assert.deepEqual(await options(), ['drop', 'scan'], 'scanner sources only');
    await page.goto(served.url + '/inventory/tickets');
    await page.locator('#f-source option', { hasText: 'desk' }).waitFor({ state: 'attached' });
    assert.deepEqual(await options(), ['desk'], 'service desk sources only');
  });

  it('opens a ticket and a CMDB record from their rows', async () => {
    const { page, served, shots } = ui;
    await page.goto(served.url + '/inventory/tickets');
    const subject = page.locator('tbody tr').first().locator('td').nth(1).getByRole('link');
    const title = (await subject.textContent()) ?? '';
    await subject.click();
    await page.waitForURL(/\/inventory\/tickets\/[^/?]+$/);
    await page.getByRole('heading', { level: 1, name: new RegExp(title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) }).waitFor();
    await page.getByRole('heading', { name: 'Details' }).waitFor();
    await page.getByRole('heading', { name: 'Findings' }).waitFor();
    assert.ok((await page.getByLabel('Details').locator('dd').count()) >= 10);
    await page.screenshot({ path: join(shots, 'ticket.png') });

    await page.goto(served.url + '/inventory/cmdb-assets');
    const name = page.locator('tbody tr').first().getByRole('link').first();
    const assetName = (await name.textContent()) ?? '';
    await name.click();
    await page.waitForURL(/\/inventory\/cmdb-assets\/[^/?]+$/);
    await page.getByRole('heading', { level: 1, name: assetName }).waitFor();
    await page.getByLabel('Details').getByText('Asset tag').waitFor();
    await page
      .getByRole('link', { name: 'Inventory' })
      .or(page.getByRole('link', { name: 'CMDB assets' }).first())
      .first()
      .waitFor();
  });

  it('fits every list and the runs page in 1280 px without sideways scrolling', async () => {
    const { page, served } = ui;
    const wide: string[] = [];
    for (const path of [...LISTS.map((m) => `/inventory/${m}`), '/runs', '/']) {
      await page.goto(served.url + path);
      await page.locator('h1').waitFor();
      await page
        .locator(path === '/' ? '.count-card' : 'table tbody tr')
        .first()
        .waitFor();
      const width = Number(await page.evaluate('document.scrollingElement.scrollWidth'));
      if (width > 1280) wide.push(`${path}: ${width}px`);
      // Nor does a table scroll sideways inside its frame.
      const tables = (await page.evaluate("[...document.querySelectorAll('.table-wrap')].map((w) => [w.scrollWidth, w.clientWidth])")) as [number, number][];
      for (const [scroll, client] of tables) if (scroll > client + 1) wide.push(`${path}: a table ${scroll}px in ${client}px`);
    }
    assert.deepEqual(wide, []);
  });

  it('filters runs by source and status and shows a run’s retries, 429s and log excerpt', async () => {
    const { page, served, shots } = ui;
    await page.goto(served.url + '/runs');
    const table = page.getByRole('table', { name: 'Sync runs, newest first' });
    await table.locator('tbody tr').nth(2).waitFor();
    await page.getByLabel('Source').selectOption('desk');
    await page.waitForURL(/source=desk/);
    await until(async () => (await table.locator('tbody tr').count()) === 1, 'one run of desk');
    await page.getByLabel('Status').selectOption('failed');
    await page.waitForURL(/status=failed/);
    await table.getByText('No runs with this status.').waitFor();
    await page.reload();
    await until(async () => (await page.getByLabel('Source').inputValue()) === 'desk', 'the source filter after a reload');
    assert.equal(await page.getByLabel('Status').inputValue(), 'failed');
    await table.getByText('No runs with this status.').waitFor();

    // The scanner's first run: the older of its two, with the two 429s it retried.
    await page.goto(served.url + '/runs?source=scan');
    await table.locator('tbody tr').nth(1).waitFor();
    assert.equal(await table.locator('tbody tr').count(), 2);
    await table.locator('tbody tr').nth(1).getByText('2 (2 × 429)').waitFor();
    await table.locator('tbody tr').nth(1).getByRole('link').first().click();
    await page.waitForURL(/\/runs\/[^/?]+$/);
    await page.getByRole('heading', { level: 1, name: /^Sync run of scan/ }).waitFor();
    await page.getByRole('heading', { name: /^Summary: scan/ }).waitFor();
    assert.equal(await page.getByText('Latest sync').count(), 0, 'an old run is not the latest sync');
    const stat = (label: string) => page.locator('.stat', { has: page.locator('.stat-label', { hasText: label }) }).locator('.stat-value');
    assert.equal(await stat('retries').textContent(), '2');
    assert.equal(await stat('rate limited (429)').textContent(), '2');
    const log = page.getByRole('list', { name: 'Latest log lines of the run' });
    await log
      .getByText(/retrying .*status=429/)
      .first()
      .waitFor();
    await log.getByText('sync finished').waitFor();
    await page.screenshot({ path: join(shots, 'run.png') });
  });

  it('counts live records on the overview and links known-exploited to open findings only', async () => {
    const { page, served } = ui;
    const liveHosts = await count('/api/v1/hosts/count?removed=false');
    const allHosts = await count('/api/v1/hosts/count?all=true');
    assert.equal(allHosts, 40);
    assert.equal(liveHosts, 30);
    assert.ok((await count('/api/v1/vulnerabilities/count?status=fixed')) > 0, 'the second run fixed findings');
    await page.goto(served.url + '/');
    const card = (label: string) => page.locator('.count-card', { has: page.locator('.count-label', { hasText: new RegExp(`^${label}$`) }) }).locator('.count');
    await card('Hosts').filter({ hasNotText: '…' }).waitFor();
    assert.equal(await card('Hosts').textContent(), '30');
    assert.equal(Number(((await card('Vulnerabilities').textContent()) ?? '').replace(/,/g, '')), await count('/api/v1/vulnerabilities/count?removed=false'));
    const kev = page.getByRole('link', { name: /known exploited/ });
    const kevCount = Number(((await kev.locator('strong').textContent()) ?? '').replace(/,/g, ''));
    assert.ok(kevCount > 0);
    assert.ok((await count('/api/v1/vulnerabilities/count?knownExploited=true&all=true')) > kevCount, 'fixed known-exploited findings exist too');
    await kev.click();
    await page.waitForURL(/knownExploited=true/);
    await page.getByText(new RegExp(`of ${kevCount.toLocaleString('en-US')}$`)).waitFor();
    assert.equal(await page.getByLabel('Status').inputValue(), 'open,reopened');
    await page.locator('tbody .sev').first().waitFor();
    const statuses = await column('Status');
    assert.ok(statuses.length > 0 && statuses.every((s) => s === 'open' || s === 'reopened'), statuses.join(','));
  });

  it('puts the compliance filters before the summary, and shows the service the scanner named', async () => {
    const { page, served } = ui;
    await page.goto(served.url + '/inventory/compliance');
    await page.getByRole('heading', { name: 'Benchmark results per host' }).waitFor();
    // Both parts rendered (the summary's heading can come before the filters on a busy machine).
    await page.locator('form.filters').waitFor();
    await page.locator('#compliance-summary-title').waitFor();
    const order = Number(
      await page.evaluate(`(() => {
        const form = document.querySelector('form.filters');
        const summary = document.getElementById('compliance-summary-title');
        return form && summary ? form.compareDocumentPosition(summary) : 0;
      })()`),
    );
    assert.ok(order & 4, 'the filters come first (the summary follows them)');

    // Service detection named the service on some ports (the others only a port scanner saw).
    assert.ok((await count('/api/v1/ports/count?service=www')) > 0);
    assert.equal(await count('/api/v1/ports/count?where=service~wrapped'), 0, "the wrapping is not the service's name");
    await page.goto(served.url + '/inventory/ports?sort=-service');
    // The rows arrive after the table's frame: wait for the sorted page, not for any first row.
    let services: string[] = [];
    await until(async () => {
      services = await column('Service');
      return services.some((s) => s !== '');
    }, 'the ports page sorted by service');
    assert.ok(services.includes('www'), `services on the first page: ${services.join(',')}`);
  });

  it('offers the file-drop guide for file-mode sources only, with a local bucket as its folder', async () => {
    const { page, served, pageErrors } = ui;
    const { csrfToken } = await ui.api<{ csrfToken: string }>('/api/v1/auth/session');
    const refused = await page.request.post(served.url + '/api/v1/sources/scan/file-drop', { data: {}, headers: { 'x-csrf-token': csrfToken } });
    assert.equal(refused.status(), 400, await refused.text());
    assert.match(((await refused.json()) as { error: { message: string } }).error.message, /reads from its API.*file-mode sources/);
    await page.goto(served.url + '/sources/scan/files');
    await page.getByRole('heading', { name: 'This source reads from the API' }).or(page.getByText('This source reads from the API')).first().waitFor();
    assert.equal(await page.getByRole('button', { name: 'Generate upload credentials' }).count(), 0);

    await page.goto(served.url + '/sources/drop/files');
    const folder = join(served.dataDir, 'drop', 'vuln-scanner');
    await page.getByText(`Files go to the folder ${folder}`).waitFor();
    await page.getByRole('button', { name: 'Generate upload credentials' }).click();
    await page.locator('.guide dt', { hasText: 'Folder' }).waitFor();
    await page.locator('.guide dd code', { hasText: folder }).waitFor();
    assert.equal(await page.locator('.files').getByText('s3://').count(), 0, 'no s3:// address for a local bucket');
    assert.deepEqual(pageErrors, []);
  });
});

if (unavailable) {
  describe('lists, runs, overview and file drop in chromium', () => {
    it('needs chromium', { skip: unavailable }, () => {});
  });
}
