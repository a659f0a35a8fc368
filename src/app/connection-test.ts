// Test Connection before saving: the connector's credential check on a configuration that is not stored
// (a new source's form, or a source's form with unsaved changes), on a scratch copy of the source state.
// What the test obtained that cannot be obtained twice (tokens from a one-time authorization code) is
// held in memory for a few minutes, bound to its requester, and handed to the save of the same secrets.
import { randomUUID } from 'node:crypto';
import type { CheckResult, ConnectorContext } from '../core/connector.ts';
import { readsFiles } from '../core/connector.ts';
import { errorMessage, InputError } from '../core/errors.ts';
import { scrubSecrets } from '../core/secrets.ts';
import { staleFeedWarnings } from '../feeds/index.ts';
import type { AppContext } from './context.ts';
import { connectorContext, fileModeBucket, reconfigured, type SaveOptions, safeModels, secretsDigest, validateNew } from './sources.ts';

export interface TrialResult {
  ok: boolean;
  checks: CheckResult[];
  warnings: string[];
  /** Present when the test obtained state the save should keep: send it with the save. */
  connectionTest: string | null;
}

/** How long a test's scratch state waits for its save. */
export const HELD_MS = 10 * 60_000;
const MAX_HELD = 200;

interface Held {
  owner: string;
  type: string;
  source: string | null;
  state: Record<string, unknown>;
  secrets: string;
  expires: number;
}

/** Scratch states of recent tests, in memory only (never stored, never sent), each taken once. */
export class HeldTests {
  readonly #items = new Map<string, Held>();

  hold(item: Omit<Held, 'expires'>, now = Date.now()): string {
    this.#prune(now);
    while (this.#items.size >= MAX_HELD) this.#items.delete(this.#items.keys().next().value as string);
    const id = randomUUID();
    this.#items.set(id, { ...item, expires: now + HELD_MS });
    return id;
  }

  /** The held state of test `id` for this requester, type and source, or null; `done` once saved with it. */
  find(id: string | null | undefined, owner: string, type: string, source: string | null, now = Date.now()): SaveOptions['tested'] {
    if (!id) return null;
    this.#prune(now);
    const h = this.#items.get(id);
    if (!h || h.owner !== owner || h.type !== type || h.source !== source) return null;
    return { state: h.state, secrets: h.secrets };
  }

  /** Forgets test `id` (its save succeeded: what it obtained is stored now). */
  done(id: string | null | undefined): void {
    if (id) this.#items.delete(id);
  }

  #prune(now: number): void {
    for (const [id, h] of this.#items) if (h.expires <= now) this.#items.delete(id);
  }
}

export interface TrialRequest {
  /** The connector type of a new source; ignored when `source` is given. */
  type?: string;
  /** A stored source whose form has unsaved changes: `input` holds the changes (secrets left out keep their values). */
  source?: string | null;
  /** The name a new source would get (only validated). */
  name?: string | null;
  input: Record<string, unknown>;
  /** Who asks (a session or token), so only they can save with the result. */
  owner: string;
}

/** Runs the credential check on an unsaved configuration; invalid input is refused as a save would refuse it. */
export async function testConfiguration(app: AppContext, held: HeldTests, req: TrialRequest): Promise<TrialResult> {
  const stored = req.source ? await app.store.sources.get(req.source) : null;
  const type = stored ? stored.type : req.type;
  if (!type) throw new InputError('type is required for a source that is not saved yet', 'type');
  const connector = app.registry.get(type);
  const next = stored ? reconfigured(connector, stored, req.input) : { ...validateNew(connector, req.name ?? null, req.input), previous: null };
  const secrets = secretsDigest(connector, next.config);
  // The test starts from the stored state (an existing source's tokens) and changes only its copy.
  let scratch: Record<string, unknown> =
    stored && (await app.store.sources.stateReadable(stored.id)) ? { ...(await app.store.sources.getState(stored.id)) } : {};
  let changed = false;
  const identity = { id: stored?.id ?? '', name: stored?.name ?? req.name ?? 'unsaved', type, config: next.config };
  const ctx: ConnectorContext = {
    ...connectorContext(app, identity),
    trial: true,
    state: {
      get: async () => scratch,
      set: async (patch) => {
        scratch = { ...scratch, ...patch };
        changed = true;
      },
    },
  };
  let checks: CheckResult[];
  let config = next.config;
  try {
    if (connector.onSave) config = await connector.onSave(config, next.previous, ctx);
    const bucket = readsFiles(connector, config) ? fileModeBucket(app, { ...identity, config }) : undefined;
    checks = await connector.check(config, { ...ctx, bucket });
  } catch (err) {
    const field = err instanceof InputError ? err.field : null;
    checks = [{ id: 'configuration', ok: false, message: errorMessage(err), hint: field ? `See the field ${field}.` : null }];
  }
  checks = checks.map((c) => ({ ...c, message: scrubSecrets(c.message), hint: c.hint === null ? null : scrubSecrets(c.hint) }));
  const ok = checks.length > 0 && checks.every((c) => c.ok);
  const connectionTest = changed ? held.hold({ owner: req.owner, type, source: stored?.name ?? null, state: scratch, secrets }) : null;
  const findings = safeModels(connector, config, app, identity).includes('vulnerabilities');
  return { ok, checks, warnings: findings ? await staleFeedWarnings(app) : [], connectionTest };
}
