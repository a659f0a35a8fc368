// Where scheduled exports may write: a folder under the export root (TRIBUTARY_EXPORT_DIR, default
// `<data-dir>/exports`) or an `s3://` prefix, checked when a destination is added and again before each
// write. Paths are compared after resolving the symbolic links of what exists, so no spelling (`..`, a
// link out of the root) reaches the served web UI, the data dir's own files or the file drop. The
// CLI's one-off `export --out`, run by the local user, is not confined.
import { lstat, readdir, realpath, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { errorMessage, InputError } from '../core/errors.ts';
import { DEFAULT_WEB_DIR, webDirOf } from '../core/web-dir.ts';
import { LocalBackend } from '../filedrop/local.ts';
import { fileDropOf } from '../filedrop/resolve.ts';
import type { ExportContext } from './context.ts';
import { parseS3Url, partialWriter } from './target.ts';

/** The export root: TRIBUTARY_EXPORT_DIR, else `<data-dir>/exports`. */
export function exportRootOf(app: Pick<ExportContext, 'dataDir' | 'env'>): string {
  const dir = app.env.TRIBUTARY_EXPORT_DIR?.trim();
  return dir ? resolve(dir) : join(app.dataDir, 'exports');
}

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );
const inside = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/**
 * The path with the symbolic links of its existing part resolved (what is missing is appended as
 * spelled, `..` already resolved away); null when part of it exists but cannot be resolved (a dangling
 * link, a loop), which a write could follow anywhere.
 */
async function realPathOf(path: string): Promise<string | null> {
  let head = resolve(path);
  const missing: string[] = [];
  for (;;) {
    try {
      return join(await realpath(head), ...missing);
    } catch {
      if (await exists(head)) return null;
      const parent = dirname(head);
      if (parent === head) return resolve(path);
      missing.unshift(basename(head));
      head = parent;
    }
  }
}

/** The folders no export may be written in, nor above (a source's sub-folder could then be one of them). */
async function forbiddenFolders(app: ExportContext): Promise<{ dir: string; what: string }[]> {
  const dirs = [
    { dir: webDirOf(app.env), what: 'the web UI the server serves' },
    { dir: DEFAULT_WEB_DIR, what: 'the web UI the server serves' },
  ];
  const drop = fileDropOf(app);
  if (drop instanceof LocalBackend) dirs.push({ dir: drop.root, what: 'the file drop' });
  const out: { dir: string; what: string }[] = [];
  for (const d of dirs) out.push({ dir: (await realPathOf(d.dir)) ?? resolve(d.dir), what: d.what });
  return out;
}

function refuse(target: string, why: string): never {
  throw new InputError(`export target '${target}' refused: ${why}`, 'target');
}

/**
 * A folder target made absolute (relative ones are under the export root) once it is found inside the
 * export root and clear of the web UI, the data dir (only the export root's own part of it) and the
 * file drop; else an InputError (400).
 */
export async function confineFolder(app: ExportContext, target: string): Promise<string> {
  const root = exportRootOf(app);
  const path = resolve(root, target);
  const real = await realPathOf(path);
  if (real === null) refuse(target, 'it goes through a symbolic link that leads nowhere');
  const realRoot = (await realPathOf(root)) ?? root;
  const where = `scheduled exports are written under the export root ${root} (TRIBUTARY_EXPORT_DIR) or to s3://BUCKET/PREFIX`;
  if (!inside(real, realRoot)) refuse(target, where);
  for (const f of await forbiddenFolders(app)) if (inside(real, f.dir) || inside(f.dir, real)) refuse(target, `it is or holds ${f.what}; ${where}`);
  const dataDir = (await realPathOf(app.dataDir)) ?? resolve(app.dataDir);
  // The data dir's own files (database, master key, drop) are no target; an export root inside it is.
  const rootInData = realRoot !== dataDir && inside(realRoot, dataDir);
  if ((inside(real, dataDir) && !rootInData) || inside(dataDir, real)) refuse(target, `it is or holds the data dir; ${where}`);
  return path;
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** An `s3://BUCKET/PREFIX` target with a well-formed bucket name (S3's rules) and a plain prefix. */
export function checkS3Target(target: string): string {
  const { bucket, prefix } = parseS3Url(target, 'target');
  if (!BUCKET.test(bucket) || bucket.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(bucket))
    refuse(target, `'${bucket}' is no S3 bucket name (3-63 lowercase letters, digits, '.' and '-', starting and ending with a letter or digit)`);
  if (/[\u0000-\u001f\u007f\\]/.test(prefix) || prefix.split('/').includes('..')) refuse(target, "the prefix holds a control character, '\\' or '..'");
  return target;
}

/** A destination's target as stored: an S3 prefix as given, a folder absolute and confined. */
export async function confineTarget(app: ExportContext, target: string): Promise<string> {
  if (target.startsWith('s3://')) return checkS3Target(target);
  if (target === '-' || /^[a-z][a-z0-9+.-]*:\/\//i.test(target)) throw new InputError(`'${target}' is no folder or s3://BUCKET/PREFIX`, 'target');
  return confineFolder(app, target);
}

/** A partial file nobody has written to for this long is a leftover whoever wrote it (another machine's). */
const STALE_PARTIAL_MS = 60 * 60 * 1000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes what killed exports left under the export root (`*.partial-*` files): those of this machine
 * whose process is gone or is this one (nothing is exported yet at start: a container's server has
 * the same pid each time), and any not written to for an hour. Called when `serve` and `worker`
 * start; returns the paths removed and never throws.
 */
export async function removePartialLeftovers(app: ExportContext, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const path = join(dir, e.name);
      // Links are not followed: only what lies under the root is cleaned.
      if (e.isDirectory()) await walk(path);
      if (!e.isFile()) continue;
      const writer = partialWriter(e.name);
      if (!writer) continue;
      const gone = writer.thisHost && (writer.pid === process.pid || !processAlive(writer.pid));
      const stale = await stat(path).then(
        (s) => now - s.mtimeMs > STALE_PARTIAL_MS,
        () => false,
      );
      if (!gone && !stale) continue;
      await rm(path, { force: true }).then(
        () => removed.push(path),
        (err) => app.log.warn({ file: path, err: errorMessage(err) }, 'could not remove a partial export file'),
      );
    }
  };
  await walk(exportRootOf(app));
  if (removed.length) app.log.info({ files: removed.length }, 'removed partial files left by interrupted exports');
  return removed;
}
