// `tributary alerts add|list|remove|test|deliveries` (issue 31 §4): webhooks told, once per rule and
// sync or feed import, of open findings newly known exploited, newly in the SSVC decision Act, newly
// past due, failed or partial syncs and coverage that got worse. The signing secret is printed once.
import type { Command } from 'commander';
import { addAlert, alertView, deliveryView, describeAlerts, removeAlert, testAlert } from '../alerts/index.ts';
import { ALERT_FORMATS, ALERT_KINDS, DELIVERY_STATUSES, type DeliveryStatus, SIGNATURE_HEADER } from '../core/alerts.ts';
import { InputError } from '../core/errors.ts';
import { ExitCode, printJson, wholeNumberOption, withApp } from './app.ts';
import { renderTable } from './output.ts';

interface AddOpts {
  name: string;
  url: string;
  on: string;
  format?: string;
  secret?: string;
  maxItems?: string;
}

const lastOf = (d: { status: string; attempts: number; updatedAt: string; lastError: string | null } | null) =>
  d ? `${d.status} (${d.attempts} attempt${d.attempts === 1 ? '' : 's'}, ${d.updatedAt})` : 'never';

export function registerAlertsCommands(program: Command): void {
  const alerts = program.command('alerts').description('webhooks for known-exploited findings, SLA breaches, failed syncs and worse coverage');

  alerts
    .command('add')
    .description(
      `add an alert: one message per rule and sync or feed import, JSON signed with ${SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256 of the body>, or Slack or Teams text`,
    )
    .requiredOption('--name <name>', 'the alert’s name')
    .requiredOption('--url <url>', 'http:// or https:// (private addresses allowed); sealed at rest, shown as its host only')
    .requiredOption('--on <kinds>', `comma-separated: ${ALERT_KINDS.join(', ')} (act needs the SSVC decisions)`)
    .option('--format <format>', ALERT_FORMATS.join('|'), 'json')
    .option('--secret <secret>', 'the signing secret, 16-256 characters (default: generated and printed once)')
    .option('--max-items <n>', 'items listed per message; the total is always given (default 20)')
    .action(async (o: AddOpts, cmd: Command) => {
      const maxItems = o.maxItems === undefined ? undefined : wholeNumberOption(o.maxItems, 'max-items', 1, 200);
      await withApp(cmd, async (app, g) => {
        const { alert, secret, baseline } = await addAlert(app, {
          name: o.name,
          url: o.url,
          kinds: [o.on],
          format: o.format,
          secret: o.secret,
          maxItems,
          createdBy: 'command line',
        });
        if (g.json) return printJson({ alert: alertView(alert), secret });
        process.stderr.write(
          `added alert '${alert.name}' on ${alert.kinds.join(', ')} as ${alert.format} to ${alert.urlShown}; what is already true is not reported.\n` +
            (o.secret ? '' : `its signing secret (${SIGNATURE_HEADER}) is shown only now:\n`),
        );
        if (!o.secret) process.stdout.write(`${secret}\n`);
        // The answer is out; what is already true is recorded before the command ends (a server does it in the background).
        if (alert.baselinePending) {
          const t0 = Date.now();
          process.stderr.write('recording the findings already true (not reported)…\n');
          await baseline;
          process.stderr.write(`recorded in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
        }
      });
    });

  alerts
    .command('list')
    .description('alerts with what they report and their last delivery (never their URL path or secret)')
    .action(async (_o, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        const items = (await describeAlerts(app)).map(alertView);
        if (g.json) return printJson({ items });
        if (items.length === 0) return void process.stdout.write('no alerts; add one with `tributary alerts add --name N --url URL --on kev,sync`\n');
        const rows = items.map((a) => ({
          name: a.name,
          on: a.on.join(','),
          format: a.format,
          url: a.url,
          lastDelivery: lastOf(a.lastDelivery),
          lastError: a.lastDelivery?.lastError ?? '',
        }));
        process.stdout.write(renderTable(['name', 'on', 'format', 'url', 'lastDelivery', 'lastError'], rows, 60) + '\n');
      });
    });

  alerts
    .command('deliveries')
    .description('the delivery log, newest first: status, attempts, last HTTP status and error')
    .option('--alert <name>', 'only this alert')
    .option('--status <status>', DELIVERY_STATUSES.join('|'))
    .option('--limit <n>', 'at most this many (default 50)', '50')
    .action(async (o: { alert?: string; status?: string; limit: string }, cmd: Command) => {
      if (o.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(o.status))
        throw new InputError(`--status '${o.status}' is not one of ${DELIVERY_STATUSES.join(', ')}`, 'status');
      const limit = wholeNumberOption(o.limit, 'limit', 1, 1000);
      await withApp(cmd, async (app, g) => {
        const items = (await app.store.alerts.deliveries({ rule: o.alert, status: o.status as DeliveryStatus | undefined, limit })).map(deliveryView);
        if (g.json) return printJson({ items });
        if (items.length === 0) return void process.stdout.write('no deliveries\n');
        const rows = items.map((d) => ({ ...d, items: `${d.items}/${d.total}`, httpStatus: d.httpStatus ?? '', lastError: d.lastError ?? '' }));
        process.stdout.write(
          renderTable(['createdAt', 'alert', 'kind', 'cause', 'runId', 'items', 'status', 'attempts', 'httpStatus', 'lastError'], rows, 60) + '\n',
        );
      });
    });

  alerts
    .command('test <name>')
    .description('send a test message now (one attempt, logged); exit 1 when it is not delivered')
    .action(async (name: string, _o, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        const d = deliveryView(await testAlert(app, name));
        if (g.json) printJson(d);
        else process.stdout.write(d.status === 'delivered' ? `delivered a test message of '${name}' (HTTP ${d.httpStatus})\n` : '');
        if (d.status !== 'delivered') throw new ExitCode(1, `the test message of '${name}' was not delivered: ${d.lastError ?? d.status}`);
      });
    });

  alerts
    .command('remove <name>')
    .description('remove an alert (its delivery log stays)')
    .action(async (name: string, _o, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        await removeAlert(app, name);
        if (g.json) return printJson({ removed: name });
        process.stdout.write(`removed alert '${name}'\n`);
      });
    });
}
