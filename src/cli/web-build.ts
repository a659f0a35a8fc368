// `tributary serve` without a built web UI: build it (scripts/build-web.sh) before serving, or stop
// with one line saying how, instead of serving a page that says the UI is missing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExitCode } from './app.ts';

export { DEFAULT_WEB_DIR } from '../core/web-dir.ts';
export const BUILD_SCRIPT = fileURLToPath(new URL('../../scripts/build-web.sh', import.meta.url));

/** Runs the build; its output goes to stderr (stdout is for what `serve` prints, the admin password). */
export function runBuildScript(script = BUILD_SCRIPT): { ok: boolean; reason: string } {
  if (!existsSync(script)) return { ok: false, reason: `${script} is missing` };
  // The script's `node` is the one running us (Node 24 under the fallback, not the machine's older one).
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
  const r = spawnSync('bash', [script], { stdio: ['ignore', 2, 2], env });
  if (r.error) return { ok: false, reason: r.error.message };
  return r.status === 0 ? { ok: true, reason: '' } : { ok: false, reason: `it exited with ${r.status ?? r.signal}` };
}

/** Makes sure `dir` holds a built UI: builds it when missing, else throws exit 1 with how to build it. */
export function ensureWebUi(dir: string, build: () => { ok: boolean; reason: string } = runBuildScript): void {
  if (existsSync(join(dir, 'index.html'))) return;
  process.stderr.write(`tributary: the web UI is not built (${dir}); building it with scripts/build-web.sh\n`);
  const r = build();
  if (r.ok && existsSync(join(dir, 'index.html'))) return;
  throw new ExitCode(
    1,
    `the web UI is not built and building it failed (${r.reason || 'no index.html'}): run \`npm ci && bash scripts/build-web.sh\` (or \`npm run build:web\`), then start serve again`,
  );
}
