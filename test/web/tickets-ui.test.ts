// A service desk source's remediation tickets in a real browser (issue 32 §2): the plan with the findings
// behind each action while they are off (Apply disabled), then, once on, Apply writes the plan to the
// service desk simulator, the message and the audit log say what was written, and the plan shrinks by it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cliEnv, runCliAsync } from '../helpers/cli.ts';
import { browserSuite, browserUnavailable, startEstateServe, syncEstate } from './harness.ts';

const unavailable = browserUnavailable();
const env = cliEnv();

describe('remediation tickets page in chromium', { skip: unavailable ?? false, timeout: 150_000 }, () => {
  const ui = browserSuite(() => startEstateServe(env), { prepare: (servers) => syncEstate(servers, env) });

  it('shows the plan and its findings, applies it (capped), and lists the writes in the audit log', async () => {
    const { page, served, desk, shots, pageErrors } = ui;
    await page.goto(`${served.url}/sources/desk`);
    await page.getByRole('link', { name: 'Remediation tickets' }).click();
    await page.getByRole('heading', { name: 'Plan' }).waitFor();
    await page.getByText('Remediation tickets are off for this source').waitFor();
    const apply = page.getByRole('button', { name: /^Apply/ });
    assert.ok(await apply.isDisabled(), 'off: nothing can be applied');
    const plan = await ui.api<{ counts: { create: number }; actions: { kind: string; findingIds: string[]; marker: string }[] }>(
      '/api/v1/sources/desk/tickets/plan',
    );
    assert.ok(plan.counts.create > 5, JSON.stringify(plan.counts));
    // The findings behind an action, linked to their pages.
    const first = plan.actions[0]!;
    const table = page.getByRole('table', { name: 'Planned actions' });
    await table.getByRole('link', { name: first.findingIds[0]!, exact: true }).first().waitFor();
    assert.equal(desk.written.size, 0);

    const r = await runCliAsync(
      ['--data-dir', served.dataDir, 'sources', 'configure', 'desk', '--set', 'remediationTickets={"enabled":true,"maxCreatesPerRun":5}'],
      env,
    );
    assert.equal(r.code, 0, r.stderr);
    await page.reload();
    await page.getByRole('heading', { name: 'Plan' }).waitFor();
    await page.getByText(/past the per-run cap/).waitFor();
    await page.getByRole('button', { name: 'Apply (5 writes)' }).click();
    await page.getByText(/Applied: 5 created, 0 noted/).waitFor();
    assert.equal(desk.written.size, 5);
    const log = page.getByRole('table', { name: 'Audit log' });
    await log.locator('tbody tr').filter({ hasText: 'create' }).nth(4).waitFor();
    const written = desk.written.all().map((w) => String(w.id));
    await log.getByRole('cell', { name: written[0]!, exact: true }).waitFor();
    const after = await ui.api<{ counts: { create: number } }>('/api/v1/sources/desk/tickets/plan');
    assert.equal(after.counts.create, 5, 'the next five of the plan');
    await page.screenshot({ path: join(shots, 'tickets.png'), fullPage: true });
    assert.deepEqual(pageErrors, []);
  });
});
