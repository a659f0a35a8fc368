// Fault injection. Decisions come from a seeded PRNG advanced once per faultable request, so a run
// with the same seed and the same request sequence fails in the same places.
import { seededRandom } from './hash.ts';
import type { FaultRule, FaultSettings } from './options.ts';

export type FaultDecision = { kind: 'none' } | { kind: 'rateLimit'; retryAfter: number } | { kind: 'serverError'; status: number } | { kind: 'resetMidBody' };

const RULE_KEYS = ['rateLimit', 'serverError', 'resetMidBody'] as const;
export const FAULT_KEYS = ['latencyMs', 'rateLimit', 'serverError', 'resetMidBody', 'slowPageMs', 'missingTotalRecords', 'paths'] as const;

export class FaultInjector {
  private settings: FaultSettings = {};
  private readonly random: () => number;
  private requestNumber = 0;
  readonly injected: Record<string, number> = { rateLimit: 0, serverError: 0, resetMidBody: 0, missingTotalRecords: 0 };

  constructor(seed: number, initial: FaultSettings) {
    this.random = seededRandom(seed ^ 0x5eed);
    this.update(initial);
  }

  /** Merges new settings; `null` for a key clears it. */
  update(patch: object): void {
    const next: Record<string, unknown> = { ...this.settings };
    for (const [k, v] of Object.entries(patch)) {
      if (!(FAULT_KEYS as readonly string[]).includes(k)) continue;
      if (v === null || v === undefined) delete next[k];
      else next[k] = typeof v === 'object' && !Array.isArray(v) ? { ...(v as object) } : v;
    }
    this.settings = next as FaultSettings;
  }

  clear(): void {
    this.settings = {};
  }

  current(): FaultSettings {
    return structuredClone(this.settings);
  }

  applies(path: string): boolean {
    const paths = this.settings.paths;
    if (!path.startsWith('/rest/')) return false;
    return !paths || paths.length === 0 || paths.some((p) => path.startsWith(p));
  }

  get latencyMs(): number {
    return this.settings.latencyMs ?? 0;
  }

  get slowPageMs(): number {
    return this.settings.slowPageMs ?? 0;
  }

  private fires(rule: FaultRule | undefined, roll: number): boolean {
    if (!rule) return false;
    if (rule.times !== undefined && rule.times > 0) {
      rule.times--;
      return true;
    }
    if (rule.every && rule.every > 0 && this.requestNumber % rule.every === 0) return true;
    return rule.probability !== undefined && roll < rule.probability;
  }

  /** Decides the fate of one faultable request (call once per request). */
  decide(): FaultDecision {
    this.requestNumber++;
    const rolls = RULE_KEYS.map(() => this.random());
    const s = this.settings;
    if (this.fires(s.rateLimit, rolls[0])) {
      this.injected.rateLimit++;
      return { kind: 'rateLimit', retryAfter: s.rateLimit?.retryAfter ?? 1 };
    }
    if (this.fires(s.serverError, rolls[1])) {
      this.injected.serverError++;
      return { kind: 'serverError', status: s.serverError?.status ?? 503 };
    }
    if (this.fires(s.resetMidBody, rolls[2])) {
      this.injected.resetMidBody++;
      return { kind: 'resetMidBody' };
    }
    return { kind: 'none' };
  }

  /** Whether this analysis page should omit totalRecords. */
  dropTotal(): boolean {
    const m = this.settings.missingTotalRecords;
    const drop = m === true || (typeof m === 'number' && this.random() < m);
    if (drop) this.injected.missingTotalRecords++;
    return drop;
  }
}
