// The alerts page in a real browser (issue 31 §4): an alert added in the form shows its signing secret
// once and is listed by its receiver's host only; "Test" delivers a signed message to a local receiver
// and the delivery log shows it; a receiver answering 500 shows the failure and its error in the list and
// the log; removing the alert empties the list.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { verifySignature } from '../../src/alerts/index.ts';
import { type Receiver, startReceiver } from '../alerts/receiver.ts';
import { browserSuite, browserUnavailable, startAll, startServe } from './harness.ts';

const unavailable = browserUnavailable();

describe('alerts page in chromium', { skip: unavailable ?? false, timeout: 120_000 }, () => {
  const ui = browserSuite(() =>
    startAll({
      served: startServe(),
      receiver: startReceiver() as Promise<Receiver & { close(): Promise<void> }>,
    }),
  );

  it('adds an alert, shows its secret once, sends a test, shows the delivery log and a failure, removes it', async () => {
    const { page, receiver, shots, pageErrors } = ui;
    await page.getByRole('link', { name: 'Alerts' }).click();
    await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
    await page.getByText('None yet.').waitFor();
    await page.getByLabel('Name').fill('soc');
    await page.getByLabel('Webhook URL').fill(`${receiver.url}/hooks/soc-token-in-path`);
    await page.getByLabel('open findings newly past their due date').check();
    await page.getByLabel('sync runs that failed or ended partial').uncheck();
    await page.getByLabel('Format').selectOption('slack');
    await page.getByRole('button', { name: 'Add alert' }).click();
    await page.getByText("Alert 'soc' added").waitFor();
    const secret = (await page.locator('.secret-value').textContent())!.trim();
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
    const row = page.getByRole('table', { name: 'Alerts', exact: true }).locator('tbody tr').filter({ hasText: 'soc' });
    await row.getByRole('cell', { name: 'kev, sla', exact: true }).waitFor();
    const listText = (await page.getByRole('table', { name: 'Alerts', exact: true }).textContent())!;
    assert.ok(!listText.includes('soc-token-in-path') && !listText.includes(secret), 'the list shows the host only');
    assert.ok(listText.includes(`${receiver.url}/…`));

    await page.getByRole('button', { name: 'Send a test message of soc' }).click();
    await page.getByText("Test message of 'soc' delivered (HTTP 200).").waitFor();
    assert.equal(receiver.received.length, 1);
    const m = receiver.received[0]!;
    assert.equal(m.path, '/hooks/soc-token-in-path');
    assert.ok(verifySignature(secret, m.body, m.headers['x-tributary-signature'] as string));
    assert.match((JSON.parse(m.body) as { text: string }).text, /Test message of the alert 'soc'/);
    const log = page.getByRole('table', { name: 'Deliveries, newest first' });
    await log.locator('tbody tr').filter({ hasText: 'delivered' }).waitFor();

    receiver.answers.push(500);
    await page.getByRole('button', { name: 'Send a test message of soc' }).click();
    await page.getByText(/Test message of 'soc' not delivered: HTTP 500/).waitFor();
    await row.getByText(/HTTP 500/).waitFor();
    await log.locator('tbody tr').filter({ hasText: 'failed' }).filter({ hasText: '500' }).waitFor();
    await page.screenshot({ path: join(shots, 'alerts.png'), fullPage: true });

    await page.getByRole('button', { name: 'Remove the alert soc' }).click();
    await page.getByText('None yet.').waitFor();
    assert.deepEqual((await ui.api<{ items: unknown[] }>('/api/v1/alerts')).items, []);
    assert.deepEqual(pageErrors, []);
  });
});
