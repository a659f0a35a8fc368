// Generates the OCSF schema subset the export tests validate against (test/export/schemas/): the event
// classes Tributary writes, resolved (extends, includes, profiles, dictionary types), with every object
// they can reach. Run: node scripts/ocsf-subset.ts GIT_DIR TAG OUT.json  (GIT_DIR: a clone of
// github.com/ocsf/ocsf-schema; TAG: v1.1.0 or 1.3.0).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

// biome-ignore lint/suspicious/noExplicitAny: the schema's JSON files, read loosely
type Json = Record<string, any>;
const [gitDir, tag, out] = process.argv.slice(2);
if (!gitDir || !tag || !out) {
  process.stderr.write('usage: node scripts/ocsf-subset.ts GIT_DIR TAG OUT.json\n');
  process.exit(2);
}
const ref = `refs/tags/${tag}`;
const show = (path: string): Json =>
  JSON.parse(execFileSync('git', ['--git-dir', gitDir, 'show', `${ref}:${path}`], { encoding: 'utf8', maxBuffer: 64 << 20 }));
const files = (dir: string): string[] =>
  execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '--name-only', ref, dir], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => f.endsWith('.json'));

/** The event classes exported, by name (category/class uids come from the schema). */
const CLASSES = ['vulnerability_finding', 'compliance_finding', 'inventory_info', 'software_info'];

const dictionary = show('dictionary.json');
const dictAttrs: Json = dictionary.attributes;
const types: Json = dictionary.types.attributes;
const categories: Json = show('categories.json').attributes;
const version: string = show('version.json').version;

const byName = (paths: string[]): Map<string, Json> => new Map(paths.map((p) => [show(p).name as string, { ...show(p), path: p }]));
const events = byName(files('events'));
const objects = byName(files('objects'));

function mergeAttr(base: Json | undefined, over: Json): Json {
  const out = { ...(base ?? {}), ...over };
  if (base?.enum || over.enum) out.enum = { ...(base?.enum ?? {}), ...(over.enum ?? {}) };
  return out;
}

/** A definition's own attributes with its $include files (profiles keep their name on what they add). */
function ownAttributes(def: Json): Json {
  const out: Json = {};
  const { $include, ...attrs } = def.attributes ?? {};
  for (const inc of ($include ?? []) as string[]) {
    const file = show(inc);
    const profile = inc.startsWith('profiles/') ? file.name : null;
    for (const [k, v] of Object.entries(file.attributes ?? {})) out[k] = mergeAttr(out[k], profile ? { ...(v as Json), profile } : (v as Json));
  }
  for (const [k, v] of Object.entries(attrs)) {
    // Restated in the definition itself: no longer tied to the profile.
    const merged = mergeAttr(out[k], v as Json);
    delete merged.profile;
    out[k] = merged;
  }
  return out;
}

function resolve(def: Json, table: Map<string, Json>): { attributes: Json; chain: Json[] } {
  const chain: Json[] = [];
  for (let d: Json | undefined = def; d; d = d.extends ? table.get(d.extends) : undefined) chain.unshift(d);
  let attributes: Json = {};
  for (const d of chain) {
    const own = ownAttributes(d);
    for (const [k, v] of Object.entries(own)) attributes[k] = mergeAttr(attributes[k], v as Json);
  }
  // Each attribute takes its type from the dictionary, with the definition's refinements over it.
  attributes = Object.fromEntries(
    Object.entries(attributes).map(([k, v]) => {
      const d = dictAttrs[k] ?? {};
      const a = mergeAttr(d, v as Json);
      // An attribute whose type is not a data type (`*_t`) holds an object of that name.
      const isObject = typeof a.type === 'string' && !a.type.endsWith('_t');
      const compact: Json = isObject ? { type: 'object_t', object_type: a.type } : { type: a.type };
      compact.requirement = a.requirement ?? 'optional';
      if (a.is_array) compact.is_array = true;
      if (a.enum)
        compact.enum = Object.keys(a.enum)
          .map(Number)
          .sort((x, y) => x - y);
      if (a.profile) compact.profile = a.profile;
      if (a['@deprecated']) compact.deprecated = true;
      return [k, compact];
    }),
  );
  return { attributes, chain };
}

const outObjects: Json = {};
const pending: string[] = [];
const want = (attrs: Json) => {
  for (const a of Object.values(attrs))
    if ((a as Json).object_type && !outObjects[(a as Json).object_type] && !pending.includes((a as Json).object_type)) pending.push((a as Json).object_type);
};

const outClasses: Json = {};
for (const name of CLASSES) {
  const def = events.get(name);
  if (!def) continue;
  const { attributes, chain } = resolve(def, events);
  const category = [...chain].reverse().find((d) => d.category && d.category !== 'other')?.category;
  const categoryUid: number = categories[category].uid;
  const classUid = categoryUid * 1000 + Number(def.uid);
  // The schema server computes these three from the class: one category, one class, and a type per activity.
  attributes.category_uid = { ...attributes.category_uid, enum: [categoryUid] };
  attributes.class_uid = { ...attributes.class_uid, enum: [classUid] };
  attributes.type_uid = { ...attributes.type_uid, enum: (attributes.activity_id.enum as number[]).map((a) => classUid * 100 + a) };
  outClasses[String(classUid)] = { name, caption: def.caption, category_uid: categoryUid, class_uid: classUid, attributes };
  want(attributes);
}
while (pending.length) {
  const name = pending.shift()!;
  const def = objects.get(name);
  if (!def) throw new Error(`object ${name} is referenced but not defined in ${tag}`);
  const { attributes, chain } = resolve(def, objects);
  const constraints = [...chain].reverse().find((d) => d.constraints)?.constraints ?? null;
  outObjects[name] = { attributes, ...(constraints ? { constraints } : {}) };
  want(attributes);
}

const outTypes: Json = {};
for (const [k, v] of Object.entries(types)) {
  const t = v as Json;
  outTypes[k] = {
    ...(t.type ? { type: t.type } : {}),
    ...(t.regex ? { regex: t.regex } : {}),
    ...(t.max_len ? { max_len: t.max_len } : {}),
    ...(t.values ? { values: t.values } : {}),
    ...(t.range ? { range: t.range } : {}),
  };
}

const sorted = (o: Json) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(
  out,
  JSON.stringify({
    source: 'https://github.com/ocsf/ocsf-schema',
    tag,
    version,
    license: 'Apache-2.0',
    classes: outClasses,
    objects: sorted(outObjects),
    types: sorted(outTypes),
  }) + '\n',
);
process.stdout.write(`${out}: OCSF ${version}: ${Object.keys(outClasses).length} classes, ${Object.keys(outObjects).length} objects\n`);
