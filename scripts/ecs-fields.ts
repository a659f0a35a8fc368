// Generates the ECS field list the export tests check field names against (test/export/schemas/):
// name → type of every field in the field sets the ECS export writes.
// Run: node scripts/ecs-fields.ts GIT_DIR TAG OUT.json  (GIT_DIR: a clone of github.com/elastic/ecs).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const [gitDir, tag, out] = process.argv.slice(2);
if (!gitDir || !tag || !out) {
  process.stderr.write('usage: node scripts/ecs-fields.ts GIT_DIR TAG OUT.json\n');
  process.exit(2);
}
const SETS = new Set(['base', 'ecs', 'event', 'host', 'observer', 'package', 'vulnerability', 'related', 'rule', 'user', 'organization']);
const text = execFileSync('git', ['--git-dir', gitDir, 'show', `refs/tags/${tag}:generated/csv/fields.csv`], { encoding: 'utf8', maxBuffer: 64 << 20 });

/** One CSV line into cells (quoted cells may hold commas and doubled quotes; no newlines in the columns read). */
function cells(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

const lines = text.split('\n').filter(Boolean);
const header = cells(lines[0]);
const [setAt, fieldAt, typeAt, versionAt] = ['Field_Set', 'Field', 'Type', 'ECS_Version'].map((h) => header.indexOf(h));
const fields: Record<string, string> = {};
let version = '';
for (const line of lines.slice(1)) {
  const c = cells(line);
  if (c.length < header.length) continue;
  version = c[versionAt];
  if (SETS.has(c[setAt])) fields[c[fieldAt]] = c[typeAt];
}
writeFileSync(out, JSON.stringify({ source: 'https://github.com/elastic/ecs', tag, version, license: 'Apache-2.0', fields }, null, 0) + '\n');
process.stdout.write(`${out}: ECS ${version}: ${Object.keys(fields).length} fields\n`);
