// Reads the shared corpus (../shared/corpus beside the repo) without copying it: pyTenable VCR
// cassettes, Elastic's mock-server config and NDJSON pipeline logs.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const corpusDir = fileURLToPath(new URL('../shared/corpus/tenable-sc/', new URL(`file://${repoRoot}`)));
export const corpusPresent = existsSync(corpusDir);
export const SKIP = 'corpus absent (../shared/corpus/tenable-sc not found beside the repo)';

export interface Interaction {
  method: string;
  uri: string;
  requestBody: string | null;
  status: number;
  body: string;
}

/**
 * pyTenable cassettes were written by PyYAML, which tolerates continuation lines of a quoted scalar that
 * are not indented past their key; the `yaml` package (strict YAML 1.2) does not. Indent every
 * continuation line of a multi-line single-quoted scalar before parsing.
 */
export function fixCassetteIndentation(src: string): string {
  const out: string[] = [];
  let open = false;
  let indent = '';
  for (const line of src.split('\n')) {
    let l = line;
    let scanFrom = 0;
    if (open) {
      l = line.trim() === '' ? '' : indent + line.trimStart();
      scanFrom = 0;
    } else {
      const m = /^(\s*)(?:- )?[\w-]+: (?:\{ ?string: )?(?:!!python\/unicode )?'/.exec(line);
      if (!m) {
        out.push(l);
        continue;
      }
      indent = `${m[1]}          `;
      scanFrom = m[0].length;
      open = true;
    }
    for (let i = scanFrom; i < l.length; i++) {
      if (l[i] !== "'") continue;
      if (l[i + 1] === "'") {
        i++;
        continue;
      }
      open = false;
      break;
    }
    out.push(l);
  }
  return out.join('\n');
}

export function readCassette(name: string): Interaction[] {
  const src = fixCassetteIndentation(readFileSync(`${corpusDir}pytenable-cassettes/${name}`, 'utf8'));
  const doc = parse(src, { customTags: [{ tag: 'tag:yaml.org,2002:python/unicode', resolve: (s: string) => s }], logLevel: 'error' }) as {
    interactions: { request: { method: string; uri: string; body: unknown }; response: { status: { code: number }; body: { string: string } } }[];
  };
  return doc.interactions.map((i) => ({
    method: i.request.method,
    uri: i.request.uri,
    requestBody: typeof i.request.body === 'string' ? i.request.body : null,
    status: i.response.status.code,
    body: i.response.body.string,
  }));
}

export function readNdjson(name: string): Record<string, unknown>[] {
  return readFileSync(`${corpusDir}elastic/${name}`, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export interface MockRule {
  path: string;
  methods: string[];
  requestBody: string | null;
  status: number;
  body: string;
}

/** Elastic's stream-mock rules, with `{{ minify_json `…` }}` templates unwrapped to JSON text. */
export function readElasticMock(): MockRule[] {
  const doc = parse(readFileSync(`${corpusDir}elastic/config.yml`, 'utf8')) as {
    rules: { path: string; methods: string[]; request_body?: string; responses: { status_code: number; body: string }[] }[];
  };
  return doc.rules.map((r) => {
    const res = r.responses[0]!;
    const m = /^\s*\{\{\s*minify_json\s*`([\s\S]*)`\s*\}\}\s*$/.exec(res.body);
    return { path: r.path, methods: r.methods, requestBody: r.request_body ?? null, status: res.status_code, body: m ? m[1]! : res.body };
  });
}
