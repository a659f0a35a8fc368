// The connector registry: adding a connector is one folder and one line here.
import { type Connector, sealedKeys, secretKeys, urlCredentialKeys } from '../core/connector.ts';
import { registerPluginIdWords } from '../core/references.ts';
import { registerSecretFields } from '../core/secrets.ts';
import { InputError } from '../core/errors.ts';

export class ConnectorRegistry {
  readonly #byType = new Map<string, Connector>();

  constructor(connectors: Connector[] = []) {
    for (const c of connectors) this.register(c);
  }

  register(c: Connector): void {
    this.#byType.set(c.type, c);
    // Values under a secret field's key are masked in every log line, whichever connector logs them.
    registerSecretFields(secretKeys(c));
    // Tickets that name this upstream's plugin ids by its own words link to its findings.
    registerPluginIdWords(c.references?.pluginIdWords ?? []);
  }

  /** The bucket a file-reading source of this type uses when its configuration names none. */
  defaultBucket(type: string): string | undefined {
    return this.#byType.get(type)?.files?.defaultBucket;
  }

  get(type: string): Connector {
    const c = this.#byType.get(type);
    if (!c) throw new InputError(`unknown source type '${type}'; known types: ${this.types().join(', ')}`, 'type');
    return c;
  }

  has(type: string): boolean {
    return this.#byType.has(type);
  }

  types(): string[] {
    return [...this.#byType.keys()];
  }

  all(): Connector[] {
    return [...this.#byType.values()];
  }

  /** Fields sealed at rest (secrets and URLs that may carry a password). */
  sealedKeys(type: string): string[] {
    const c = this.#byType.get(type);
    return c ? sealedKeys(c) : [];
  }

  /** URL fields whose password is masked when shown. */
  urlCredentialKeys(type: string): string[] {
    const c = this.#byType.get(type);
    return c ? urlCredentialKeys(c) : [];
  }

  secretKeys(type: string): string[] {
    const c = this.#byType.get(type);
    return c ? secretKeys(c) : [];
  }
}

/** The built-in connectors. */
export async function defaultRegistry(): Promise<ConnectorRegistry> {
  const list: Connector[] = [];
  for (const load of builtins) list.push(await load());
  return new ConnectorRegistry(list);
}

/**
 * Adds a connector to the ones every app of this process opens with (before the app opens): how a
 * connector that lives outside src/connectors (a test's, a deployment's) is registered, in one line.
 */
export function registerConnector(connector: Connector): void {
  builtins.push(async () => connector);
}

const builtins: (() => Promise<Connector>)[] = [
  async () => (await import('./tenable-sc/index.ts')).tenableScConnector,
  async () => (await import('./servicedesk-plus/index.ts')).servicedeskPlusConnector,
];
