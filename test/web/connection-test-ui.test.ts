// Test Connection before saving, in a real browser against the simulators: on the unsaved Tenable.sc form a
// wrong key fails and the right one passes with nothing stored, the outcome shown at the top by the
// buttons (above the fields); a later save's banner is cleared by the next test; ServiceDesk Plus
// on-premises is tested unsaved; for ServiceDesk Plus cloud the test spends the one-time code and the
// save keeps its token (the stored configuration's test then passes). No secret reaches the browser.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startSdpSim } from '../../sim/servicedesk-plus/index.ts';
import { startTenableSim } from '../../sim/tenable-sc/index.ts';
import { browserSuite, browserUnavailable, startAll, startServe } from './harness.ts';

const unavailable = browserUnavailable();
const WRONG = 'wrong-secret-key-in-the-form-0000';

describe('Test Connection before saving, in chromium', { skip: unavailable ?? false, timeout: 120_000 }, () => {
  const ui = browserSuite(
    () =>
      startAll({
        served: startServe(),
        sc: startTenableSim({ port: 0, hosts: 3, seed: 11 }),
        sdp: startSdpSim({ port: 0, dc: 'eu', requests: 5, assets: 3, users: 3 }),
      }),
    { keepApiBodies: true },
  );
  const sources = async () => (await ui.api<{ items: { name: string }[] }>('/api/v1/sources')).items.map((s) => s.name);
  const test = async () => {
    const { page } = ui;
    await page.getByRole('button', { name: 'Test Connection' }).click();
    const heading = page.getByRole('heading', { name: /^Connection test (passed|failed)$/ });
    await heading.waitFor({ timeout: 30_000 });
    return (await heading.textContent()) ?? '';
  };

  it('tests an unsaved Tenable.sc form: wrong key fails, right key passes, nothing stored; the result sits at the top', async () => {
    const { page, served, shots, sc } = ui;
    await page.goto(`${served.url}/sources/new/tenable-sc`);
    await page.getByLabel('Source name').fill('sc-trial');
    await page.getByLabel('API URL').fill(sc.url);
    await page.getByLabel('Access Key').fill(sc.analyst.accessKey);
    await page.getByLabel('Secret Key').fill(WRONG);
    assert.equal(await page.getByRole('button', { name: 'Test Connection' }).isEnabled(), true, 'no save needed first');
    assert.equal(await test(), 'Connection test failed');
    await page.getByText('Tested with the values in this form; they are not saved yet.').waitFor();
    assert.ok((await page.locator('.checks li.bad').count()) >= 1);
    // The outcome is above the fields, under the buttons, and in view.
    const result = await page.locator('.check-results').boundingBox();
    const field = await page.getByLabel('API URL').boundingBox();
    assert.ok(result && field && result.y < field.y, 'the result is shown above the form fields');
    assert.ok(result.y < 800, 'the result is in the first screen');
    assert.deepEqual(await sources(), [], 'a test stores nothing');
    await page.screenshot({ path: join(shots, 'configure-test-connection.png') });

    await page.getByLabel('Secret Key').fill(sc.analyst.secretKey);
    assert.equal(await test(), 'Connection test passed');
    assert.equal(await page.locator('.checks li.bad').count(), 0);
    assert.deepEqual(await sources(), []);

    await page.getByRole('button', { name: 'Save Configuration' }).click();
    await page.waitForURL(/\/sources\/sc-trial/);
    const banner = page.getByRole('status').filter({ hasText: 'Configuration saved.' });
    await banner.waitFor();
    assert.equal(await test(), 'Connection test passed');
    await page.getByText('Tested with the saved configuration.').waitFor();
    assert.equal(await banner.count(), 0, 'the stale "Configuration saved" banner is gone');
    assert.doesNotMatch(page.url(), /saved=1/);
  });

  it('tests an unsaved ServiceDesk Plus on-premises form', async () => {
    const { page, served, sdp } = ui;
    await page.goto(`${served.url}/sources/new/servicedesk-plus`);
    await page.getByLabel('Source name').fill('sdp-onprem');
    await page.getByLabel('Server URL', { exact: true }).fill(sdp.url);
    await page.getByLabel('API Key').fill('not-the-api-key');
    assert.equal(await test(), 'Connection test failed');
    await page.getByLabel('API Key').fill(sdp.apiKey);
    assert.equal(await test(), 'Connection test passed');
    assert.ok(!(await sources()).includes('sdp-onprem'));
  });

  it('tests ServiceDesk Plus cloud with the one-time code, and the save keeps the token', async () => {
    const { page, served, sdp } = ui;
    await page.goto(`${served.url}/sources/new/servicedesk-plus`);
    await page.getByLabel('Source name').fill('sdp-cloud');
    await page.getByLabel('Region').selectOption('eu');
    await page.getByLabel('Client ID').fill(sdp.clientId);
    await page.getByLabel('Client Secret').fill(sdp.clientSecret);
    await page.getByLabel('Authorization Code').fill(sdp.mintAuthorizationCode());
    await page.getByText('Advanced settings').click();
    await page.getByLabel('Accounts Server URL').fill(sdp.accountsUrl);
    await page.getByLabel('Server URL', { exact: true }).fill(sdp.url);
    assert.equal(await test(), 'Connection test passed');
    assert.ok(!(await sources()).includes('sdp-cloud'));
    // The code was spent by the test: the save succeeds only because it keeps the test's token.
    await page.getByRole('button', { name: 'Save Configuration' }).click();
    await page.waitForURL(/\/sources\/sdp-cloud/);
    await page.getByRole('status').filter({ hasText: 'Configuration saved.' }).waitFor();
    assert.equal(await test(), 'Connection test passed');
    await page.getByText('Tested with the saved configuration.').waitFor();
  });

  it('sent no secret to the browser and raised no script errors', () => {
    const { pageErrors, apiBodies, sc, sdp } = ui;
    const joined = apiBodies.join('\n');
    for (const s of [sc.analyst.secretKey, sc.analyst.accessKey, WRONG, sdp.clientSecret, sdp.apiKey])
      assert.ok(!joined.includes(s), 'a secret reached the browser');
    assert.deepEqual(pageErrors, []);
  });
});

if (unavailable) {
  describe('Test Connection before saving, in chromium', () => {
    it('needs chromium', { skip: unavailable }, () => {});
  });
}
