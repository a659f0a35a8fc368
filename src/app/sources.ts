// Source operations shared by the CLI and the API: validation against the connector's schema,
// secrets kept on reconfigure, masked presentation, the credential check, removal.
import type { SourceView as ApiSourceView } from '../core/api-shapes.ts';
import { createHash } from 'node:crypto';
import { type CheckResult, type Connector, type ConnectorContext, readsFiles } from '../core/connector.ts';
import { configError } from '../core/config.ts';
import { errorMessage, InputError } from '../core/errors.ts';
import { MASK, maskConfig, maskUrlPassword, registerSecret, scrubSecrets, urlPassword } from '../core/secrets.ts';
import { type RunRecord, type SourceRecord, unreadableSecretsError } from '../store/index.ts';
import type { AppContext } from './context.ts';
import { validateSchedule } from '../core/schedule.ts';
import type { SourceBucket } from '../core/files.ts';
import { openSourceBucket } from '../filedrop/imports.ts';
import { staleFeedWarnings } from '../feeds/index.ts';
import type { ModelName } from '../core/models.ts';

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** A source as presenters show it, secrets masked (the API's source view but for its exports). */
export type SourceView = Omit<ApiSourceView, 'exports'>;

export function connectorContext(app: AppContext, source: { id: string; name: string }): ConnectorContext {
  return {
    sourceName: source.name,
    log: app.log.child({ source: source.name }),
    state: {
      get: () => app.store.sources.getState(source.id),
      set: async (patch) => app.store.sources.setState(source.id, { ...(await app.store.sources.getState(source.id)), ...patch }),
    },
  };
}

/** The bucket of a file-mode source for its check, or undefined when the file drop cannot be opened. */
export function fileModeBucket(app: AppContext, source: Pick<SourceRecord, 'id' | 'name' | 'type' | 'config'>): SourceBucket | undefined {
  try {
    return openSourceBucket(app, source);
  } catch {
    return undefined;
  }
}

/** Validates a full configuration; returns it with defaults applied, `schedule` split off. */
function validate(connector: Connector, input: Record<string, unknown>): { config: Record<string, unknown>; schedule: string | null } {
  // `schedule` belongs to every source, not to a connector's schema.
  const { schedule, ...rest } = input;
  if (schedule !== undefined && schedule !== null && typeof schedule !== 'string')
    throw new InputError('schedule must be a string such as 6h or a cron expression', 'schedule');
  const parsed = connector.configSchema.safeParse(rest);
  if (!parsed.success) throw configError(parsed.error);
  const { schedule: _ignored, ...config } = parsed.data as Record<string, unknown>;
  for (const [k, f] of Object.entries(connector.fields)) if (f.secret || f.urlCredentials) registerSecret(config[k]);
  const sched = typeof schedule === 'string' && schedule.trim() !== '' ? validateSchedule(schedule.trim()) : null;
  return { config, schedule: sched };
}

export function present(app: AppContext, s: SourceRecord, lastRun: RunRecord | null = null): SourceView {
  return {
    name: s.name,
    type: s.type,
    config: maskConfig(s.config, app.registry.secretKeys(s.type), app.registry.urlCredentialKeys(s.type)),
    schedule: s.schedule,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    lastCheck: s.lastCheck,
    lastRun: lastRun && {
      id: lastRun.id,
      status: lastRun.status,
      mode: lastRun.mode,
      startedAt: lastRun.startedAt,
      finishedAt: lastRun.finishedAt,
      error: lastRun.error,
    },
    ...(s.unreadableSecrets.length ? { unreadableSecrets: s.unreadableSecrets } : {}),
  };
}

/** Whether a change gives a secret a new value (not left out, not the mask, not cleared). */
const entersValue = (v: unknown): boolean => v !== undefined && v !== null && v !== '' && v !== MASK;

const list = (keys: string[]): string => (keys.length === 1 ? keys[0]! : `${keys.slice(0, -1).join(', ')} and ${keys[keys.length - 1]}`);

/**
 * A stored secret goes only where it was entered for: a change of a field that decides its destination
 * (`sendsSecrets`: a URL, a region, a proxy) must come with the secret entered again.
 */
function checkSecretDestinations(
  connector: Connector,
  previous: Record<string, unknown>,
  next: Record<string, unknown>,
  changes: Record<string, unknown>,
): void {
  for (const [k, f] of Object.entries(connector.fields)) {
    if (!f.sendsSecrets?.length) continue;
    if (JSON.stringify(previous[k] ?? null) === JSON.stringify(next[k] ?? null)) continue;
    const stale = f.sendsSecrets.filter((sk) => entersValue(previous[sk]) && entersValue(next[sk]) && !entersValue(changes[sk]));
    if (stale.length === 0) continue;
    throw new InputError(
      `changing ${k} changes where the stored ${list(stale)} ${stale.length > 1 ? 'are' : 'is'} sent: enter ${list(stale)} again together with the new ${k} (a stored secret is only sent to the address it was entered for)`,
      stale[0]!,
    );
  }
}

/**
 * A URL field with a password, sent back as shown (password masked): unchanged keeps the stored value;
 * a new address with the masked password is refused, so the password does not follow it.
 */
function resolveUrlCredentials(connector: Connector, stored: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const out = { ...changes };
  for (const [k, f] of Object.entries(connector.fields)) {
    const v = out[k];
    if (!f.urlCredentials || typeof v !== 'string') continue;
    if (v === maskUrlPassword(stored[k])) {
      delete out[k];
      continue;
    }
    if (urlPassword(v) === MASK)
      throw new InputError(`${k}: enter the password again with the new address (a stored password is only sent to the address it was entered for)`, k);
  }
  return out;
}

/** What a save may carry over from a connection test of the same configuration (connection-test.ts). */
export interface SaveOptions {
  tested?: { state: Record<string, unknown>; secrets: string } | null;
}

/** A digest of a configuration's secret values: a test's scratch state applies to a save only when they are equal. */
export function secretsDigest(connector: Connector, config: Record<string, unknown>): string {
  const secrets = Object.keys(connector.fields)
    .filter((k) => connector.fields[k]?.secret || connector.fields[k]?.urlCredentials)
    .sort()
    .map((k) => [k, config[k] ?? null]);
  return createHash('sha256').update(JSON.stringify(secrets)).digest('hex');
}

function testedFor(connector: Connector, config: Record<string, unknown>, opts: SaveOptions): Record<string, unknown> | undefined {
  return opts.tested && opts.tested.secrets === secretsDigest(connector, config) ? opts.tested.state : undefined;
}

/** Validates a new source's configuration (the checks of addSource before anything is exchanged or stored). */
export function validateNew(
  connector: Connector,
  name: string | null,
  input: Record<string, unknown>,
): { config: Record<string, unknown>; schedule: string | null } {
  if (name !== null && !NAME_RE.test(name)) throw new InputError(`invalid source name '${name}': use letters, digits, '.', '_' or '-' (up to 63)`, 'name');
  for (const [k, v] of Object.entries(input)) if (v === MASK) throw new InputError(`${k}: give the real value, not the mask`, k);
  return validate(connector, input);
}

export async function addSource(app: AppContext, type: string, name: string, input: Record<string, unknown>, opts: SaveOptions = {}): Promise<SourceRecord> {
  const connector = app.registry.get(type);
  let { config, schedule } = validateNew(connector, name, input);
  if (await app.store.sources.find(name)) throw new InputError(`a source named '${name}' exists already`, 'name');
  if (connector.onSave) {
    // onSave may exchange one-time values (OAuth codes); its state is written once the source exists.
    const pending = { id: '', name };
    let saved: Record<string, unknown> = {};
    const ctx = { ...connectorContext(app, pending), tested: testedFor(connector, config, opts) };
    ctx.state = {
      get: async () => saved,
      set: async (patch) => {
        saved = { ...saved, ...patch };
      },
    };
    config = await connector.onSave(config, null, ctx);
    const source = await app.store.sources.create(name, type, config, schedule);
    if (Object.keys(saved).length) await app.store.sources.setState(source.id, saved);
    return source;
  }
  return app.store.sources.create(name, type, config, schedule);
}

/** Changes fields; a secret left out (or sent as the mask) keeps its stored value; '' clears a field. */
export async function configureSource(app: AppContext, name: string, input: Record<string, unknown>, opts: SaveOptions = {}): Promise<SourceRecord> {
  const source = await app.store.sources.get(name);
  const connector = app.registry.get(source.type);
  const next = reconfigured(connector, source, input);
  if (!(await app.store.sources.stateReadable(source.id))) await app.store.sources.setState(source.id, {});
  let { config } = next;
  if (connector.onSave)
    config = await connector.onSave(config, next.previous, { ...connectorContext(app, source), tested: testedFor(connector, config, opts) });
  return app.store.sources.update(name, config, next.schedule);
}

/**
 * The configuration a reconfigure of `source` with `input` would store (before `onSave`): the stored one
 * with the changes applied and validated; `previous` is the stored one as the schema reads it.
 */
export function reconfigured(
  connector: Connector,
  source: SourceRecord,
  input: Record<string, unknown>,
): { config: Record<string, unknown>; schedule: string | null; previous: Record<string, unknown> | null } {
  const changes = resolveUrlCredentials(connector, source.config, input);
  // Secrets the master key cannot open are entered again (or cleared) here, or dropped by `secrets reset`.
  const missing = source.unreadableSecrets.filter((k) => !(k in changes) || changes[k] === MASK || changes[k] === undefined);
  if (missing.length) throw unreadableSecretsError({ name: source.name, unreadableSecrets: missing });
  const merged: Record<string, unknown> = { ...source.config, ...(source.schedule ? { schedule: source.schedule } : {}) };
  for (const [k, v] of Object.entries(changes)) {
    if (v === MASK) continue;
    if (v === '' || v === null) delete merged[k];
    else merged[k] = v;
  }
  // Unknown keys must still be refused by the schema even when cleared.
  for (const k of Object.keys(changes)) if (!(k in connector.fields) && k !== 'schedule') merged[k] = changes[k];
  const { config, schedule } = validate(connector, merged);
  const before = connector.configSchema.safeParse({ ...source.config });
  const previous = before.success ? (before.data as Record<string, unknown>) : { ...source.config };
  checkSecretDestinations(connector, previous, config, changes);
  return { config, schedule, previous: before.success ? previous : null };
}

export async function checkSource(app: AppContext, name: string): Promise<{ ok: boolean; checks: CheckResult[]; warnings: string[] }> {
  const source = await app.store.sources.get(name);
  const connector = app.registry.get(source.type);
  if (source.unreadableSecrets.length) throw unreadableSecretsError(source);
  const parsed = connector.configSchema.safeParse(source.config);
  let checks: CheckResult[];
  if (!parsed.success) {
    const e = configError(parsed.error);
    checks = [{ id: 'config', ok: false, message: e.message, hint: 'Fix the configuration with `tributary sources configure`' }];
  } else {
    try {
      // File-mode checks look at the bucket (address, files awaiting import).
      const bucket = readsFiles(connector, parsed.data as Record<string, unknown>) ? fileModeBucket(app, source) : undefined;
      checks = await connector.check(parsed.data, { ...connectorContext(app, source), bucket });
    } catch (err) {
      checks = [{ id: 'check', ok: false, message: `the check itself failed: ${errorMessage(err)}`, hint: null }];
    }
  }
  checks = checks.map((c) => ({ ...c, message: scrubSecrets(c.message), hint: c.hint === null ? null : scrubSecrets(c.hint) }));
  const ok = checks.length > 0 && checks.every((c) => c.ok);
  await app.store.sources.setLastCheck(source.id, ok, checks);
  // A stale offline feed is worth a warning on a source with findings; it fails nothing.
  const findings = parsed.success && safeModels(connector, parsed.data, app, source).includes('vulnerabilities');
  return { ok, checks, warnings: findings ? await staleFeedWarnings(app) : [] };
}

/** The models a source's streams write (none when its streams cannot be built). */
export function safeModels(connector: Connector, config: unknown, app: AppContext, source: { id: string; name: string }): ModelName[] {
  try {
    return connector.streams(config as Record<string, unknown>, connectorContext(app, source)).flatMap((s) => s.models);
  } catch {
    return [];
  }
}

export async function removeSource(app: AppContext, name: string): Promise<{ warnings: string[] }> {
  const source = await app.store.sources.get(name);
  const connector = app.registry.get(source.type);
  const warnings: string[] = [];
  if (connector.onRemove && source.unreadableSecrets.length) {
    warnings.push(`the stored secrets of '${name}' cannot be decrypted with this master key, so nothing was revoked upstream`);
  } else if (connector.onRemove) {
    const parsed = connector.configSchema.safeParse(source.config);
    if (parsed.success) {
      try {
        await connector.onRemove(parsed.data, connectorContext(app, source));
      } catch (err) {
        warnings.push(scrubSecrets(errorMessage(err)));
      }
    }
  }
  await app.store.sources.delete(name);
  return { warnings };
}
