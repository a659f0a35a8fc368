// `tributary tokens create|list|revoke`: API tokens of the admin user, made on the store directly (as the
// other commands work), each with its scope (read, operate, admin). A token's value is printed once, at
// creation; the store keeps only its hash.
import type { Command } from 'commander';
import { createApiToken, tokenExpiry } from '../app/api-tokens.ts';
import type { AppContext } from '../app/context.ts';
import { InputError, NotFoundError } from '../core/errors.ts';
import { DEFAULT_TOKEN_SCOPE, isTokenScope, SCOPE_COVERS, TOKEN_SCOPES } from '../core/token-scopes.ts';
import { ADMIN_USER, bootstrapAdmin } from '../server/auth.ts';
import { printJson, withApp } from './app.ts';
import { renderTable } from './output.ts';

/** The admin user's id; `create` makes the user first when the server never started (as `serve` would). */
async function adminId(app: AppContext, create: boolean): Promise<string | null> {
  if (create) await bootstrapAdmin(app, { print: (line) => process.stderr.write(line + '\n') });
  return (await app.store.users.find(ADMIN_USER))?.id ?? null;
}

export function registerTokensCommands(program: Command): void {
  const tokens = program.command('tokens').description('API tokens for Authorization: Bearer, each with a scope');

  tokens
    .command('create')
    .description(`create an API token and print it once; scopes: ${TOKEN_SCOPES.map((s) => `${s} (${SCOPE_COVERS[s]})`).join('; ')}`)
    .requiredOption('--name <name>', 'what the token is for, e.g. siem')
    .option('--scope <scope>', TOKEN_SCOPES.join('|'), DEFAULT_TOKEN_SCOPE)
    .option('--expires-in <duration>', 'refused after this long: 30m, 12h, 90d (default: never)')
    .action(async (o: { name: string; scope: string; expiresIn?: string }, cmd: Command) => {
      if (!isTokenScope(o.scope)) throw new InputError(`--scope '${o.scope}' is not one of ${TOKEN_SCOPES.join(', ')}`, 'scope');
      const scope = o.scope;
      const name = o.name.trim();
      if (name === '' || name.length > 100) throw new InputError('--name must be 1 to 100 characters', 'name');
      const expiresAt = o.expiresIn === undefined ? null : tokenExpiry(o.expiresIn);
      await withApp(cmd, async (app, g) => {
        const userId = (await adminId(app, true))!;
        const { id, token } = await createApiToken(app, userId, { name, scope, expiresAt });
        if (g.json) return printJson({ id, name, scope, token, expiresAt });
        process.stderr.write(`created API token '${name}' (id ${id}, scope ${scope}${expiresAt ? `, expires ${expiresAt}` : ''}); it is shown only now:\n`);
        process.stdout.write(`${token}\n`);
      });
    });

  tokens
    .command('list')
    .description('API tokens with their scope, creation, last use and expiry (never their values)')
    .action(async (_o, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        const userId = await adminId(app, false);
        const items = userId ? await app.store.users.listTokens(userId) : [];
        if (g.json) return printJson({ items });
        if (items.length === 0) return void process.stdout.write('no API tokens; create one with `tributary tokens create --name NAME --scope read`\n');
        const rows = items.map((t) => ({ ...t, lastUsedAt: t.lastUsedAt ?? 'never', expiresAt: t.expiresAt ?? 'never' }));
        process.stdout.write(renderTable(['id', 'name', 'scope', 'createdAt', 'lastUsedAt', 'expiresAt'], rows) + '\n');
      });
    });

  tokens
    .command('revoke <id>')
    .description('revoke an API token (requests with it are answered 401 from then on)')
    .action(async (id: string, _o, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        const userId = await adminId(app, false);
        if (!userId || !(await app.store.users.deleteToken(id, userId))) throw new NotFoundError(`no API token with id '${id}'; see \`tributary tokens list\``);
        if (g.json) return printJson({ revoked: id });
        process.stdout.write(`revoked API token ${id}\n`);
      });
    });
}
