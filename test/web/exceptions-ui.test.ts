// Risk exceptions in a real browser (issue 31 §3): a finding's page proposes one (its state shown there,
// beside the scanner's accepted risk); the Risk exceptions page refuses the admin's approval of its own
// proposal, approves another user's, and then the finding reads "Risk excepted", leaves the overdue list
// and is the one the findings list's "Excepted" filter shows.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hashToken, newToken } from '../../src/app/api-tokens.ts';
import { openTestStore, writeRecords } from '../helpers/store.ts';
import { browserSuite, browserUnavailable, type Served, startAll, startServe } from './harness.ts';

const unavailable = browserUnavailable();
const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);

/** Two overdue critical findings on host `web-01` (the first one accepted in the scanner), and a user alice with an operate token. */
async function seed(served: Served): Promise<{ alice: string; first: string; second: string }> {
  const store = await openTestStore({ url: `sqlite:${join(served.dataDir, 'tributary.db')}` });
  try {
    const lab = await store.sources.create('lab', 'tenable-sc', { inputMode: 'file' }, null);
    await writeRecords(store, lab, {
      hosts: [{ key: 'web-01', fields: { hostname: 'web-01' } }],
      vulnerabilities: [
        {
          key: 'web-01|443|tcp|1001',
          hostKey: 'web-01',
          firstSeen: ago(100),
          fields: { pluginId: '1001', pluginName: 'Weak TLS ciphers', severity: 'critical', status: 'open', cves: [], acceptedRisk: true },
        },
        {
          key: 'web-01|22|tcp|2002',
          hostKey: 'web-01',
          firstSeen: ago(100),
          fields: { pluginId: '2002', pluginName: 'Old OpenSSH', severity: 'critical', status: 'open', cves: [] },
        },
      ],
    });
    const userId = await store.users.create('alice', 'scrypt:unusable');
    const alice = newToken('trb_');
    await store.users.createToken({ name: 'alice', tokenHash: hashToken(alice), userId, scope: 'operate', expiresAt: null });
    const rows = (await store.records.query('vulnerabilities', {})).records;
    return { alice, first: rows.find((r) => r.pluginId === '1001')!.id, second: rows.find((r) => r.pluginId === '2002')!.id };
  } finally {
    await store.close();
  }
}

describe('risk exceptions in chromium', { skip: unavailable ?? false, timeout: 120_000 }, () => {
  const seeded = {} as { alice: string; first: string; second: string };
  const ui = browserSuite(() => startAll({ served: startServe() }), { prepare: async (s) => void Object.assign(seeded, await seed(s.served)) });

  it("proposes from a finding's page, refuses self-approval, approves another user's proposal, and the finding leaves overdue", async () => {
    const { page, served, shots, pageErrors } = ui;
    // Alice proposes an exception for the second finding through the API.
    const res = await fetch(`${served.url}/api/v1/exceptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seeded.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ findingId: seeded.second, reason: 'jump host only, patch in Q1', expiresAt: inDays(60) }),
    });
    assert.equal(res.status, 201, await res.text());

    // The admin proposes one for the first finding from its page.
    await page.goto(`${served.url}/inventory/vulnerabilities/${seeded.first}`);
    await page.getByRole('heading', { name: 'Risk exceptions', level: 2 }).waitFor();
    await page.getByText('No exception covers this finding.').waitFor();
    const scannerAccepted = page.locator('.prop').filter({ hasText: 'Accepted risk (scanner)' });
    assert.match((await scannerAccepted.textContent()) ?? '', /Yes/);
    await page.getByText('Propose an exception').click();
    await page.getByLabel('Reason').fill('compensating control: WAF rule 12');
    await page.getByLabel('Expires (through the end of the day, UTC)').fill(inDays(30));
    await page.getByRole('button', { name: 'Propose exception' }).click();
    await page.getByText(/Exception proposed/).waitFor();
    await page.getByRole('table', { name: 'Exceptions that cover this finding' }).getByText('proposed').waitFor();

    // The Risk exceptions page: the admin may not approve its own proposal, but may approve alice's.
    await page.getByRole('link', { name: 'Risk exceptions' }).click();
    await page.getByRole('heading', { name: 'Risk exceptions', level: 1 }).waitFor();
    await page.getByText('Approval needs a user other than the requester').waitFor();
    await page.getByRole('button', { name: 'Approve the exception: compensating control: WAF rule 12' }).click();
    await page.getByText(/requested exception .*; another user must approve it/).waitFor();
    await page.getByRole('button', { name: 'Approve the exception: jump host only, patch in Q1' }).click();
    await page.getByText(/is approved\./).waitFor();
    const row = page.locator('table tbody tr').filter({ hasText: 'jump host only' });
    await row.getByText('approved', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'History' }).click();
    await page
      .getByRole('list', { name: /History of exception/ })
      .getByText('admin')
      .waitFor();
    await page.screenshot({ path: join(shots, 'risk-exceptions.png') });

    // The excepted finding: marked on its page, out of the overdue list, alone under the Excepted filter.
    await page.goto(`${served.url}/inventory/vulnerabilities/${seeded.second}`);
    await page.getByText(/Risk excepted until/).waitFor();
    const overdue = await ui.api<{ items: { id: string }[] }>('/api/v1/vulnerabilities?overdue=true');
    assert.deepEqual(
      overdue.items.map((i) => i.id),
      [seeded.first],
    );
    await page.goto(`${served.url}/inventory/vulnerabilities?excepted=true`);
    await page.getByLabel('Risk exception').waitFor();
    assert.equal(await page.getByLabel('Risk exception').inputValue(), 'true');
    await page.getByRole('link', { name: 'Old OpenSSH' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Weak TLS ciphers' }).count(), 0);
    assert.deepEqual(pageErrors, []);
  });
});
