// What to fix first (docs/priority.md): CISA's SSVC decision (Track, Track*, Attend, Act) of a finding
// from its exploitation, automatability, technical impact and its asset's mission & well-being impact,
// and a priority from 0 to 100 that orders findings within a decision. Pure: the store computes both as
// it writes a page of findings, and again when a feed import or an asset's criticality changes them.
import { z } from 'zod';
import { InputError } from './errors.ts';

/** The decisions, lowest first (the store's values; `track-star` is CISA's Track*). */
export const DECISIONS = ['track', 'track-star', 'attend', 'act'] as const;
export type Decision = (typeof DECISIONS)[number];
export const DECISION_LABELS: Record<Decision, string> = { track: 'Track', 'track-star': 'Track*', attend: 'Attend', act: 'Act' };

export type Exploitation = 'none' | 'poc' | 'active';
export type Level = 'low' | 'medium' | 'high';

export interface SsvcInputs {
  exploitation: Exploitation;
  automatable: boolean;
  technicalImpact: 'partial' | 'total';
  mission: Level;
}

// CISA's coordinator table (SSVC 2.0.3, "CISA Coordinator"), by exploitation, automatable (no, yes),
// technical impact (partial, total), then mission & well-being (low, medium, high).
const T = 'track';
const S = 'track-star';
const AT = 'attend';
const AC = 'act';
const TABLE: Record<Exploitation, Record<'no' | 'yes', Record<'partial' | 'total', [Decision, Decision, Decision]>>> = {
  none: { no: { partial: [T, T, T], total: [T, T, S] }, yes: { partial: [T, T, AT], total: [T, T, AT] } },
  poc: { no: { partial: [T, T, S], total: [T, S, AT] }, yes: { partial: [T, T, AT], total: [T, S, AT] } },
  active: { no: { partial: [T, T, AT], total: [T, AT, AC] }, yes: { partial: [AT, AT, AC], total: [AT, AC, AC] } },
};
const LEVEL_AT: Record<Level, number> = { low: 0, medium: 1, high: 2 };

export function ssvcDecision(i: SsvcInputs): Decision {
  return TABLE[i.exploitation][i.automatable ? 'yes' : 'no'][i.technicalImpact][LEVEL_AT[i.mission]];
}

/** The metrics of a CVSS vector (v2 or v3.x) that the rules below read; null when it is not one. */
export interface VectorParts {
  version: 2 | 3;
  /** Network reachable (AV:N). */
  network: boolean;
  lowComplexity: boolean;
  noPrivileges: boolean;
  noInteraction: boolean;
  /** Confidentiality and integrity impact: none, low (v2 partial), high (v2 complete). */
  c: 'N' | 'L' | 'H';
  i: 'N' | 'L' | 'H';
}

const vectorCache = new Map<string, VectorParts | null>();

export function parseCvssVector(vector: unknown): VectorParts | null {
  if (typeof vector !== 'string' || vector === '') return null;
  const hit = vectorCache.get(vector);
  if (hit !== undefined) return hit;
  const m = new Map<string, string>();
  for (const part of vector.replace(/^\(|\)$/g, '').split('/')) {
    const k = part.indexOf(':');
    if (k > 0) m.set(part.slice(0, k).toUpperCase(), part.slice(k + 1).toUpperCase());
  }
  let out: VectorParts | null = null;
  const v3 = m.get('CVSS')?.startsWith('3') || m.has('PR') || m.has('UI');
  if (v3 && m.has('AV') && m.has('C') && m.has('I')) {
    const level = (x: string | undefined) => (x === 'H' ? 'H' : x === 'L' ? 'L' : 'N');
    out = {
      version: 3,
      network: m.get('AV') === 'N',
      lowComplexity: m.get('AC') === 'L',
      noPrivileges: m.get('PR') === 'N',
      noInteraction: m.get('UI') === 'N',
      c: level(m.get('C')),
      i: level(m.get('I')),
    };
  } else if (m.has('AV') && m.has('AU') && m.has('C') && m.has('I')) {
    // CVSS v2: Au stands for privileges, and there is no user-interaction metric.
    const level = (x: string | undefined) => (x === 'C' ? 'H' : x === 'P' ? 'L' : 'N');
    out = {
      version: 2,
      network: m.get('AV') === 'N',
      lowComplexity: m.get('AC') === 'L',
      noPrivileges: m.get('AU') === 'N',
      noInteraction: true,
      c: level(m.get('C')),
      i: level(m.get('I')),
    };
  }
  if (vectorCache.size < 20_000) vectorCache.set(vector, out);
  return out;
}

/**
 * Automatable (SSVC: the steps from reconnaissance to exploitation can be scripted at scale): reachable
 * over the network, low attack complexity, no privileges and no user interaction (AV:N/AC:L/PR:N/UI:N;
 * v2 AV:N/AC:L/Au:N). Without a vector: not automatable.
 */
export function automatableOf(v: VectorParts | null): boolean {
  return v?.network === true && v.lowComplexity && v.noPrivileges && v.noInteraction;
}

/**
 * Technical impact total (SSVC: the attacker gets total control of the component's behaviour or all of
 * its information) when confidentiality and integrity are both high, or one is high and the other at
 * least low without privileges (CERT's CVSS-to-technical-impact table); else partial. Without a
 * vector: total for a critical finding, else partial.
 */
export function technicalImpactOf(v: VectorParts | null, severity: unknown): 'partial' | 'total' {
  if (!v) return severity === 'critical' ? 'total' : 'partial';
  if (v.c === 'H' && v.i === 'H') return 'total';
  if (v.noPrivileges && ((v.c === 'H' && v.i === 'L') || (v.c === 'L' && v.i === 'H'))) return 'total';
  return 'partial';
}

export const CRITICALITY_SOURCES = ['acr', 'cmdb'] as const;
export type CriticalitySource = (typeof CRITICALITY_SOURCES)[number];

/** TRIBUTARY_PRIORITY (JSON), each key optional: docs/priority.md. */
export const priorityConfigSchema = z
  .object({
    /** Weights of the parts of the score within a decision (any non-negative numbers; they are normalised). */
    weights: z
      .object({
        cvss: z.number().min(0),
        epss: z.number().min(0),
        knownExploited: z.number().min(0),
        exploitAvailable: z.number().min(0),
        automatable: z.number().min(0),
        criticality: z.number().min(0),
      })
      .strict()
      .partial()
      .default({}),
    /** An EPSS score at or above this counts as a proof of concept (with the scanner's exploit flag). */
    epssPoc: z.number().min(0).max(1).default(0.1),
    /** Where an asset's criticality (0–10) comes from, first that has one: the scanner's ACR, the CMDB record's business impact. */
    criticalitySources: z.array(z.enum(CRITICALITY_SOURCES)).min(1).default(['acr', 'cmdb']),
    /** A CMDB business impact (lower case) as a criticality 0–10. */
    businessImpact: z.record(z.string(), z.number().min(0).max(10)).default({ critical: 10, high: 9, medium: 5, low: 2 }),
    /** Mission & well-being high from this criticality, medium from `missionMedium`, else low. */
    missionHigh: z.number().min(0).max(10).default(7),
    missionMedium: z.number().min(0).max(10).default(4),
    /** The mission & well-being impact of an asset of unknown criticality. */
    missionUnknown: z.enum(['low', 'medium', 'high']).default('medium'),
  })
  .strict();

export const DEFAULT_WEIGHTS = { cvss: 3, epss: 2, knownExploited: 2, exploitAvailable: 1, automatable: 1, criticality: 2 };

export interface PriorityConfig {
  weights: typeof DEFAULT_WEIGHTS;
  epssPoc: number;
  criticalitySources: CriticalitySource[];
  businessImpact: Record<string, number>;
  missionHigh: number;
  missionMedium: number;
  missionUnknown: Level;
}

export function parsePriorityConfig(text: string | undefined): PriorityConfig {
  if (text === undefined || text.trim() === '') return parsePriorityConfig('{}');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InputError('TRIBUTARY_PRIORITY must be a JSON object (docs/priority.md)', 'TRIBUTARY_PRIORITY');
  }
  const r = priorityConfigSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new InputError(`TRIBUTARY_PRIORITY: ${issue?.path.join('.') || ''} ${issue?.message ?? 'invalid'}`.trim(), 'TRIBUTARY_PRIORITY');
  }
  const c = r.data;
  const businessImpact = Object.fromEntries(Object.entries(c.businessImpact).map(([k, v]) => [k.trim().toLowerCase(), v]));
  return { ...c, businessImpact, weights: { ...DEFAULT_WEIGHTS, ...c.weights } };
}

/** What the decision and the priority are computed from: a finding's stored values and its host's criticality. */
export interface PriorityFacts {
  status?: unknown;
  severity?: unknown;
  knownExploited: boolean;
  epssScore: number | null;
  exploitAvailable: boolean;
  cvssV3BaseScore: number | null;
  cvssV2BaseScore: number | null;
  cvssV3Vector: unknown;
  cvssV2Vector: unknown;
  /** The asset's criticality 0–10, null when unknown. */
  criticality: number | null;
}

export interface PriorityResult {
  decision: Decision | null;
  priority: number | null;
}

/** Where each decision's priorities lie: Track 0–25, Track* 25–50, Attend 50–75, Act 75–100. */
const BAND_FLOOR: Record<Decision, number> = { track: 0, 'track-star': 25, attend: 50, act: 75 };
const SEVERITY_SCORE: Record<string, number> = { critical: 9.5, high: 7.5, medium: 5, low: 2.5, info: 0 };

export function missionOf(criticality: number | null, c: PriorityConfig): Level {
  if (criticality === null) return c.missionUnknown;
  return criticality >= c.missionHigh ? 'high' : criticality >= c.missionMedium ? 'medium' : 'low';
}

export function ssvcInputs(f: PriorityFacts, c: PriorityConfig): SsvcInputs {
  const v = parseCvssVector(f.cvssV3Vector) ?? parseCvssVector(f.cvssV2Vector);
  const exploitation: Exploitation = f.knownExploited ? 'active' : f.exploitAvailable || (f.epssScore ?? 0) >= c.epssPoc ? 'poc' : 'none';
  return { exploitation, automatable: automatableOf(v), technicalImpact: technicalImpactOf(v, f.severity), mission: missionOf(f.criticality, c) };
}

/**
 * The decision and the priority of a finding; none for a fixed one. Priority = the decision's floor +
 * 25 × the weighted mean of its parts (each 0–1): CVSS base score / 10 (v3, else v2, else by severity),
 * EPSS, known exploited, exploit available, automatable, criticality / 10 (unknown: the middle of its
 * mission level's range); rounded to one decimal.
 */
export function priorityOf(f: PriorityFacts, c: PriorityConfig): PriorityResult {
  if (f.status === 'fixed') return { decision: null, priority: null };
  const inputs = ssvcInputs(f, c);
  const decision = ssvcDecision(inputs);
  const w = c.weights;
  const cvss = f.cvssV3BaseScore ?? f.cvssV2BaseScore ?? SEVERITY_SCORE[String(f.severity)] ?? 0;
  const crit = f.criticality ?? (inputs.mission === 'high' ? 8.5 : inputs.mission === 'medium' ? 5.5 : 2);
  const parts =
    w.cvss * clamp01(cvss / 10) +
    w.epss * clamp01(f.epssScore ?? 0) +
    w.knownExploited * (f.knownExploited ? 1 : 0) +
    w.exploitAvailable * (f.exploitAvailable ? 1 : 0) +
    w.automatable * (inputs.automatable ? 1 : 0) +
    w.criticality * clamp01(crit / 10);
  const total = w.cvss + w.epss + w.knownExploited + w.exploitAvailable + w.automatable + w.criticality;
  const score = total > 0 ? parts / total : 0;
  return { decision, priority: Math.round((BAND_FLOOR[decision] + 25 * score) * 10) / 10 };
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

/** What a finding's reason and factors are both read from, worked out once; null when it has no decision. */
function explained(f: PriorityFacts, c: PriorityConfig): { r: PriorityResult; i: SsvcInputs; v: VectorParts | null } | null {
  const r = priorityOf(f, c);
  if (!r.decision) return null;
  return { r, i: ssvcInputs(f, c), v: parseCvssVector(f.cvssV3Vector) ?? parseCvssVector(f.cvssV2Vector) };
}

function reasonText(f: PriorityFacts, { r, i, v }: NonNullable<ReturnType<typeof explained>>): string {
  const parts: string[] = [];
  if (i.exploitation === 'active') parts.push('KEV-listed');
  else if (i.exploitation === 'poc') parts.push(f.exploitAvailable ? 'public exploit' : `EPSS ${Math.round((f.epssScore ?? 0) * 1000) / 10}%`);
  else parts.push('no known exploitation');
  if (i.automatable) parts.push('network-reachable, automatable');
  else if (v?.network) parts.push('network-reachable, not automatable');
  else parts.push(v ? 'not network-reachable' : 'no CVSS vector');
  parts.push(`${i.technicalImpact} impact`);
  parts.push(f.criticality === null ? `asset criticality unknown (${i.mission})` : `asset criticality ${formatCriticality(f.criticality)}/10`);
  return `${DECISION_LABELS[r.decision!]}: ${parts.join(', ')} (priority ${r.priority})`;
}

/** The decision and its parts as a sentence: "Act: KEV-listed, network-reachable without interaction, total impact, asset criticality 9/10". */
export function explainPriority(f: PriorityFacts, c: PriorityConfig): string | null {
  const e = explained(f, c);
  return e && reasonText(f, e);
}

function formatCriticality(x: number): string {
  return String(Math.round(x * 10) / 10);
}

function factorsObject(f: PriorityFacts, { r, i, v }: NonNullable<ReturnType<typeof explained>>): Record<string, unknown> {
  return {
    exploitation: i.exploitation,
    automatable: i.automatable,
    technicalImpact: i.technicalImpact,
    missionWellbeing: i.mission,
    criticality: f.criticality,
    kev: f.knownExploited,
    exploitAvailable: f.exploitAvailable,
    epss: f.epssScore,
    cvss: f.cvssV3BaseScore ?? f.cvssV2BaseScore,
    cvssVersion: v ? v.version : null,
    networkReachable: v ? v.network : null,
    severity: typeof f.severity === 'string' ? f.severity : null,
    decision: r.decision,
    priority: r.priority,
  };
}

/**
 * The inputs of a finding's decision and priority and their values (interfaces.md 7.3 `priorityFactors`):
 * the SSVC decision points and the facts they were read from; null when it has no decision.
 */
export function priorityFactors(f: PriorityFacts, c: PriorityConfig): Record<string, unknown> | null {
  const e = explained(f, c);
  return e && factorsObject(f, e);
}

/** explainPriority and priorityFactors of one finding, its decision worked out once for both (a record read for export has both). */
export function explainAndFactors(f: PriorityFacts, c: PriorityConfig): { reason: string | null; factors: Record<string, unknown> | null } {
  const e = explained(f, c);
  return e ? { reason: reasonText(f, e), factors: factorsObject(f, e) } : { reason: null, factors: null };
}
