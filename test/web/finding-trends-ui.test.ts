// The finding page and the Trends page in a real browser: both simulators on one estate synced through the
// CLI, a KEV feed naming one of a finding's CVEs, and a finding patched upstream and synced again. The
// finding page (opened from the list) shows the finding's own synopsis, proof, CVEs with KEV (and so known exploited), owner,
// linked tickets and its history; Trends shows today's open counts as the store has them, the days before
// the first sync from the scanner's dates, and the fix.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Rec } from '../../src/core/api-shapes.ts';
import { kevCatalog } from '../feeds/fixtures.ts';
import { cliEnv, runCliAsync } from '../helpers/cli.ts';
import { browserSuite, browserUnavailable, startEstateServe, syncEstate } from './harness.ts';

const unavailable = browserUnavailable();
const env = cliEnv();

describe('finding page and trends in chromium', { skip: unavailable ?? false, timeout: 180_000 }, () => {
  const ui = browserSuite(() => startEstateServe(env), { prepare: (servers) => syncEstate(servers, env) });

  /** A finding with CVEs and a linked ticket, the ticket, and a finding patched between two syncs. */
  let finding: Rec;
  let ticket: Rec;
  let patched: Rec;
  const cli = (...args: string[]) => runCliAsync(['--data-dir', ui.served.dataDir, ...args], env);

  before(async () => {
    const { served, scanner } = ui;
    // A ticket linked to findings (by finding, else by asset), and one of its findings with CVEs.
    const tickets = (await ui.api<{ items: Rec[] }>('/api/v1/tickets?limit=1000')).items;
    for (const t of tickets) {
      const byFinding = ((t.findingIds as string[] | null) ?? [])[0];
      const candidates = byFinding
        ? [await ui.api<Rec>(`/api/v1/vulnerabilities/${byFinding}`)]
        : ((t.assetIds as string[] | null) ?? []).length
          ? (await ui.api<{ items: Rec[] }>(`/api/v1/vulnerabilities?assetId=${(t.assetIds as string[])[0]}&limit=100`)).items
          : [];
      const withCves = candidates.find((v) => ((v.cves as string[] | null) ?? []).length > 0 && v.proof);
      if (withCves) {
        [finding, ticket] = [withCves, t];
        break;
      }
    }
    assert.ok(finding && ticket, 'the estate has a ticket linked to a finding with CVEs and proof');
    const kev = join(served.dataDir, 'kev.json');
    writeFileSync(kev, kevCatalog('2026.11.20', new Date().toISOString(), [{ cve: (finding.cves as string[])[0]!, added: '2026-10-01', due: '2026-10-22' }]));
    assert.equal((await cli('feeds', 'import', kev)).code, 0);

    // Patch one open finding upstream (not the one above), sync again: it is fixed, with a fixed event.
    const open = (await ui.api<{ items: Rec[] }>('/api/v1/vulnerabilities?status=open&severity>=low&limit=100')).items;
    const target = open.find((v) => v.id !== finding.id)!;
    const host = await ui.api<Rec>(`/api/v1/hosts/${target.hostId}`);
    const res = await fetch(`${scanner.url}/_sim/patch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hosts: [(host.ipAddresses as string[])[0]], pluginIDs: [target.pluginId] }),
    });
    assert.equal(res.status, 200, await res.text());
    assert.equal((await cli('sync', 'scan')).code, 0);
    patched = await ui.api<Rec>(`/api/v1/vulnerabilities/${target.id}`);
    assert.equal(patched.status, 'fixed');
  });

  it('opens a finding from the Vulnerabilities list', async () => {
    const { page, served } = ui;
    await page.goto(served.url + '/inventory/vulnerabilities');
    const link = page.locator('tbody tr a[href^="/inventory/vulnerabilities/"]').first();
    await link.waitFor();
    const name = ((await link.textContent()) ?? '').trim();
    await link.click();
    await page.getByRole('heading', { name, level: 1 }).waitFor();
    for (const h of ['Synopsis', 'Solution', 'Asset and owner', 'Scores and CVEs', 'Proof (plugin output)', 'History', 'Linked tickets'])
      await page.getByRole('heading', { name: h, level: 2 }).waitFor();
  });

  it("shows a finding's synopsis, proof, CVEs with KEV, owner, linked tickets and history", async () => {
    const { page, served, shots } = ui;
    await page.goto(`${served.url}/inventory/vulnerabilities/${finding.id}`);
    await page.getByRole('heading', { name: String(finding.pluginName), level: 1 }).waitFor();
    if (finding.synopsis) await page.getByText(String(finding.synopsis), { exact: true }).waitFor();
    const proof = (await page.locator('pre.proof').textContent()) ?? '';
    assert.ok(proof.startsWith(String(finding.proof).slice(0, 40)), 'the proof is the plugin output');
    const cves = finding.cves as string[];
    const cveTable = page.getByRole('table', { name: 'CVEs of this finding' });
    assert.equal(await cveTable.locator('tbody tr').count(), cves.length);
    await cveTable
      .getByRole('row', { name: new RegExp(cves[0]!) })
      .getByText('Listed 1 Oct 2026, due 22 Oct 2026')
      .waitFor();
    // The catalog lists one of its CVEs: known exploited, whatever the scanner said, and by whom.
    await page
      .locator('.props')
      .getByText(/^Yes: (the scanner and )?the CISA KEV catalog, listed since 1 Oct 2026$/)
      .waitFor();
    const tickets = page.getByRole('table', { name: 'Tickets linked to this finding' });
    await tickets.getByRole('link', { name: String(ticket.displayId ?? ticket.externalId) }).waitFor();
    if (finding.owner) await page.locator('.props').getByText(String(finding.owner)).first().waitFor();
    const plugins = await ui.api<{ items: Rec[] }>(`/api/v1/plugins?pluginId=${String(finding.pluginId)}&limit=1`);
    const checkType = String(plugins.items[0]?.checkType ?? '');
    assert.match(checkType, /^(local|remote|combined)$/, 'the plugin catalog has the check type the simulator sent');
    await page
      .locator('.props')
      .getByText(new RegExp(`^${checkType}\\b`))
      .first()
      .waitFor();
    await page
      .getByRole('link', { name: /./ })
      .and(page.locator(`a[href="/inventory/hosts/${finding.hostId}"]`))
      .waitFor();
    const history = page.getByRole('list', { name: 'History of this finding' });
    await history.getByText('First imported').waitFor();
    await page.screenshot({ path: join(shots, 'finding.png'), fullPage: true });
  });

  it("shows a patched finding's fix in its history", async () => {
    const { page, served } = ui;
    await page.goto(`${served.url}/inventory/vulnerabilities/${patched.id}`);
    const history = page.getByRole('list', { name: 'History of this finding' });
    await history.getByText('First imported').waitFor();
    await history.getByText('Fixed', { exact: true }).waitFor();
    await history.getByText('(open → fixed)').waitFor();
  });

  it("shows trends: today's open findings by severity as the store counts them, and the fix's time to remediate", async () => {
    const { page, shots, pageErrors } = ui;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Trends' }).click();
    await page.getByRole('heading', { name: 'Trends', level: 1 }).waitFor();
    await page.getByText('Show the numbers').click();
    const perDay = page.getByRole('table', { name: 'Open findings by severity per day' });
    await perDay.locator('tbody tr').first().waitFor();
    assert.equal(await perDay.locator('tbody tr').count(), 30);
    const counts = await ui.api<{ items: { values: { severity: string }; count: number }[] }>(
      '/api/v1/vulnerabilities/counts?by=severity&removed=false&status!=fixed',
    );
    const expected = ['critical', 'high', 'medium', 'low', 'info'].map((s) => String(counts.items.find((i) => i.values.severity === s)?.count ?? 0));
    const today = (await perDay.locator('tbody tr').first().locator('td').allTextContents()).map((t) => t.replace(/,/g, ''));
    assert.deepEqual(today, expected, "today's row is the store's open count per severity");
    assert.ok(expected.some((n) => n !== '0'));
    // Days before the first sync (today, here) come from the scanner's dates: counts, not dashes.
    const oldest = await perDay.locator('tbody tr').last().locator('td').allTextContents();
    assert.ok(
      oldest.every((t) => /^[\d,]+$/.test(t)),
      `the oldest day has counts: ${oldest.join(' ')}`,
    );
    await page.getByText(/the history starts on \d{1,2} \w+ \d{4}, when the earliest finding was first seen/).waitFor();
    const mttr = page.getByRole('table', { name: 'Mean time to remediate per severity' });
    const sev = String(patched.severity);
    const row = (
      await mttr
        .getByRole('row', { name: new RegExp(`^${sev[0]!.toUpperCase()}${sev.slice(1)}`) })
        .locator('td')
        .allTextContents()
    ).map((t) => t.trim());
    assert.ok(Number(row[0]) >= 1, `a ${sev} fix is counted: ${row.join(' ')}`);
    assert.match(row[1]!, /^\d+\.\d$/);
    // The charts are drawn (pixels on both canvases) and described for screen readers.
    await page.getByRole('img', { name: /^Open findings by severity per day, .* on \d{1,2} \w+ \d{4}: critical \d+/ }).waitFor();
    await page.getByRole('img', { name: /^Mean time to remediate per severity/ }).waitFor();
    // Painted pixels per canvas (a function, not a string: the page's CSP forbids evaluating strings).
    type Canvas = {
      width: number;
      height: number;
      getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
    };
    const drawn = await page.locator('canvas').evaluateAll((els) =>
      (els as unknown as Canvas[]).map((c) => {
        const d = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data;
        let painted = 0;
        for (let i = 3; d && i < d.length; i += 4) if ((d[i] ?? 0) > 0) painted++;
        return painted;
      }),
    );
    assert.equal(drawn.length, 2);
    assert.ok(
      drawn.every((n) => n > 500),
      `both charts have pixels: ${drawn.join(', ')}`,
    );
    await page.screenshot({ path: join(shots, 'trends.png'), fullPage: true });
    await page.getByLabel('Period').selectOption('90');
    await page.waitForURL(/days=90/);
    await perDay.locator('tbody tr').nth(89).waitFor();
    assert.equal(await perDay.locator('tbody tr').count(), 90);
    assert.deepEqual(pageErrors, []);
  });
});

if (unavailable) {
  describe('finding page and trends in chromium', () => {
    it('needs chromium', { skip: unavailable }, () => {});
  });
}
