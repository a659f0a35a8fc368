// The identifiers and scores of a host that Tenable.sc rows carry (interfaces.md §6.1).
import type { FieldsOf } from '../../../core/models.ts';
import { num, text } from './values.ts';

/** A score the console sends as a number, a numeric string, or an object `{score}` (/rest/hosts acr/aes). */
export function scoreOf(v: unknown): number | null {
  if (v && typeof v === 'object' && !Array.isArray(v)) return num((v as { score?: unknown }).score);
  return num(v);
}

/** The host's own identifiers and scores a row carries (only those it has). */
export function hostIdentityFields(row: Record<string, unknown>): FieldsOf<'hosts'> {
  const f: FieldsOf<'hosts'> = {};
  const tenable = text(row.uuid);
  if (tenable) f.tenableUuid = tenable.toLowerCase();
  const host = text(row.hostUUID);
  if (host) f.hostUuid = host.toLowerCase();
  const bios = text(row.biosGUID);
  if (bios) f.biosUuid = bios.toLowerCase();
  const acr = scoreOf(row.acrScore);
  if (acr !== null) f.acrScore = acr;
  const aes = scoreOf(row.assetExposureScore);
  if (aes !== null) f.aesScore = aes;
  return f;
}
