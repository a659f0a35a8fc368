// Reads the shared SDP corpus (../shared/corpus beside the repo) in place; never copied into the repo.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const repoRoot = new URL('../../../', import.meta.url);
export const corpusDir = fileURLToPath(new URL('../shared/corpus/servicedesk-plus/rapid7/', repoRoot));
export const corpusPresent = existsSync(corpusDir);
export const SKIP = 'corpus absent (../shared/corpus/servicedesk-plus/rapid7 not found beside the repo)';

export function corpusJson(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(`${corpusDir}${name}`, 'utf8')) as Record<string, unknown>;
}

/** Every recorded response, including the ones under removed/. */
export function corpusFiles(): string[] {
  if (!corpusPresent) return [];
  const top = readdirSync(corpusDir).filter((f) => f.endsWith('.json.resp'));
  const removed = existsSync(`${corpusDir}removed`)
    ? readdirSync(`${corpusDir}removed`)
        .filter((f) => f.endsWith('.json.resp'))
        .map((f) => `removed/${f}`)
    : [];
  return [...top, ...removed];
}

export function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8')) as Record<string, unknown>;
}
