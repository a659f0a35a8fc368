// The Feeds page in a real browser (issue 27.1): a KEV catalog imported from the form is listed; an older
// one is refused naming the replace option, and goes in with "Replace a newer feed" ticked; one dated far
// ahead is refused even then.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { day, kevCatalog } from '../feeds/fixtures.ts';
import { browserSuite, browserUnavailable, startAll, startServe } from './harness.ts';

const unavailable = browserUnavailable();

describe('Feeds page in chromium', { skip: unavailable ?? false, timeout: 120_000 }, () => {
  const ui = browserSuite(() => startAll({ served: startServe() }));

  it('imports a catalog, refuses an older one unless "Replace a newer feed" is ticked, and a future-dated one always', async () => {
    const { page, pageErrors } = ui;
    const upload = async (name: string, buffer: Buffer) => {
      await page.getByLabel('Feed file', { exact: true }).setInputFiles({ name, mimeType: 'application/json', buffer });
      await page.getByRole('button', { name: 'Import', exact: true }).click();
    };
    const version = async () => (await ui.api<{ items: { kind: string; version: string }[] }>('/api/v1/feeds')).items.find((f) => f.kind === 'kev')?.version;
    await page.getByRole('link', { name: 'Feeds' }).click();
    await page.getByRole('heading', { name: 'Feeds', level: 1 }).waitFor();
    await page.getByText('No feeds imported yet.').waitFor();

    await upload('kev.json', kevCatalog('2026.11.20', `${day(-1)}T00:00:00Z`, [{ cve: 'CVE-2024-1000', added: day(-10) }]));
    await page.getByText('Imported CISA Known Exploited Vulnerabilities 2026.11.20').waitFor();
    const row = page.locator('table tbody tr').filter({ hasText: '2026.11.20' });
    await row.waitFor();
    // Dated yesterday: its age reads in the singular.
    assert.equal(await row.locator('td').last().textContent(), '1 day');

    const older = kevCatalog('2026.10.01', `${day(-50)}T00:00:00Z`, [{ cve: 'CVE-2024-2000', added: day(-50) }]);
    await upload('kev-old.json', older);
    await page.getByText(/is older than the one imported/).waitFor();
    assert.equal(await version(), '2026.11.20');

    await page.getByLabel('Replace a newer feed').check();
    await upload('kev-2099.json', kevCatalog('2099.12.31', '2099-12-31T00:00:00Z', [{ cve: 'CVE-2024-1000', added: '2099-12-31' }]));
    await page.getByText(/is dated in the future/).waitFor();
    assert.equal(await version(), '2026.11.20');

    await upload('kev-old.json', older);
    await page.getByText('Imported CISA Known Exploited Vulnerabilities 2026.10.01').waitFor();
    await page.locator('table tbody tr').filter({ hasText: '2026.10.01' }).waitFor();
    assert.equal(await version(), '2026.10.01');
    assert.deepEqual(pageErrors, []);
  });
});
