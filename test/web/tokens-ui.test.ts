// The API tokens page in a real browser (issue 27.5): a token created with the scope chosen in the form is
// shown once, listed with that scope, does what the scope allows (403 beyond it), and once revoked gets 401.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { browserSuite, browserUnavailable, startAll, startServe } from './harness.ts';

const unavailable = browserUnavailable();

describe('API tokens page in chromium', { skip: unavailable ?? false, timeout: 120_000 }, () => {
  const ui = browserSuite(() => startAll({ served: startServe() }));

  it('creates a token with the chosen scope, shows it once, lists it and revokes it', async () => {
    const { page, served, shots, pageErrors } = ui;
    const status = async (method: string, path: string, token: string) =>
      (
        await fetch(served.url + path, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: method === 'GET' ? undefined : '{}',
        })
      ).status;
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
    await page.getByText('None yet.').waitFor();
    await page.getByLabel('Name').fill('siem');
    await page.getByLabel('Scope').selectOption('operate');
    await page.getByText('operate: read, and syncs, file uploads').waitFor();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByText("Token 'siem' (operate) created").waitFor();
    const token = (await page.locator('.secret-value').textContent())!.trim();
    assert.match(token, /^trb_/);
    const row = page.locator('table tbody tr').filter({ hasText: 'siem' });
    await row.getByRole('cell', { name: 'operate', exact: true }).waitFor();
    await page.screenshot({ path: join(shots, 'api-tokens.png') });

    assert.equal(await status('GET', '/api/v1/sources', token), 200);
    assert.equal(await status('POST', '/api/v1/sources/nope/sync', token), 404, 'operate may start syncs');
    assert.equal(await status('POST', '/api/v1/tokens', token), 403, 'but not make tokens');
    const listed = await ui.api<{ items: { name: string; scope: string }[] }>('/api/v1/tokens');
    assert.deepEqual(
      listed.items.map((t) => `${t.name} ${t.scope}`),
      ['siem operate'],
    );
    assert.ok(!(await page.locator('table').textContent())!.includes(token), 'the list never shows a value');

    await page.getByRole('button', { name: 'Revoke the token siem' }).click();
    await page.getByText('None yet.').waitFor();
    assert.equal(await status('GET', '/api/v1/sources', token), 401);
    assert.deepEqual(pageErrors, []);
  });
});
