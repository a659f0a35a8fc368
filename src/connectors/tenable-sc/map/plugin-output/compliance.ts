// Compliance check results carried in pluginText as <cm:…> tags.
import type { ComplianceResult } from '../../../../core/models.ts';
import { unescapeHtml } from '../values.ts';

export interface ComplianceCheck {
  checkName: string | null;
  checkId: string | null;
  /** Worst of the results when a control is reported more than once. */
  result: ComplianceResult | null;
  results: ComplianceResult[];
  auditFile: string | null;
  actualValue: string | null;
  policyValue: string | null;
  reference: string | null;
}

function tagValues(text: string, tag: string): string[] {
  const re = new RegExp(`<cm:${tag}>([\\s\\S]*?)</cm:${tag}>`, 'g');
  const out: string[] = [];
  for (const m of text.matchAll(re)) out.push(unescapeHtml(m[1]!).trim());
  return out;
}

function first(text: string, tag: string): string | null {
  const v = tagValues(text, tag)[0];
  return v === undefined || v === '' ? null : v;
}

const RESULT: Record<string, ComplianceResult> = { PASSED: 'passed', FAILED: 'failed', WARNING: 'warning', ERROR: 'error' };
const RANK: Record<ComplianceResult, number> = { passed: 0, warning: 1, error: 2, failed: 3 };

export function mapComplianceResult(v: string | null | undefined): ComplianceResult | null {
  if (!v) return null;
  return RESULT[v.trim().toUpperCase()] ?? null;
}

export function hasComplianceTags(pluginText: unknown): boolean {
  return typeof pluginText === 'string' && /<cm:compliance-/.test(pluginText);
}

/** Reads the cm: tags; null when there are none. */
export function parseCompliance(pluginText: unknown): ComplianceCheck | null {
  if (!hasComplianceTags(pluginText)) return null;
  const t = pluginText as string;
  const results = tagValues(t, 'compliance-result')
    .map(mapComplianceResult)
    .filter((r): r is ComplianceResult => r !== null);
  const result = results.reduce<ComplianceResult | null>((w, r) => (w === null || RANK[r] > RANK[w] ? r : w), null);
  return {
    checkName: first(t, 'compliance-check-name'),
    checkId: first(t, 'compliance-check-id'),
    result,
    results,
    auditFile: first(t, 'compliance-audit-file'),
    actualValue: first(t, 'compliance-actual-value'),
    policyValue: first(t, 'compliance-policy-value'),
    reference: first(t, 'compliance-reference'),
  };
}
