// Where an export goes: stdout (`-`), a file (written beside and renamed into place, so a reader never
// sees half a file), a folder (a generated file name in it), or an S3 prefix (`s3://bucket/prefix`,
// a multipart upload through the file drop's S3 backend and credentials; S3 publishes the object only
// once the upload completes). Files are written mode 0600, like the database: records are no one else's.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ExportContext } from './context.ts';
import { InputError } from '../core/errors.ts';
import type { FileDropBackend } from '../filedrop/backend.ts';
import { fileDropOf, s3OptionsFrom } from '../filedrop/resolve.ts';
import { S3Backend } from '../filedrop/s3.ts';

export interface WrittenExport {
  /** Where it went: `-`, a file path, or `s3://bucket/key`. */
  location: string;
  bytes: number;
}

/** `s3://bucket/prefix` → bucket and prefix (no leading slash). */
export function parseS3Url(url: string, field = 'out'): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!m?.[1]) throw new InputError(`'${url}' is not an s3://BUCKET/PREFIX address`, field);
  return { bucket: m[1], prefix: m[2] };
}

const FILE_LIKE = /\.(jsonl|ndjson|json|csv|parquet)$/i;

/** The object key or file under a prefix/folder: the prefix itself when it names a file, else the generated name inside it. */
export function keyUnder(prefix: string, name: string): string {
  if (FILE_LIKE.test(prefix)) return prefix;
  const p = prefix.replace(/^\/+/, '');
  return p === '' ? name : `${p.replace(/\/+$/, '')}/${name}`;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Export chunks: text, or bytes (Parquet). */
export type ExportChunk = string | Uint8Array;

const toBuffers = async function* (chunks: AsyncIterable<ExportChunk>, count: { bytes: number }): AsyncGenerator<Buffer> {
  for await (const c of chunks) {
    const b = typeof c === 'string' ? Buffer.from(c, 'utf8') : Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    count.bytes += b.length;
    yield b;
  }
};

/** The file drop's S3 backend when the file drop is on S3, else one built from the same settings (TRIBUTARY_S3_*, AWS_*). */
function s3For(app: ExportContext): { backend: FileDropBackend; owned: boolean } {
  const drop = fileDropOf(app);
  if (drop.kind === 's3') return { backend: drop, owned: false };
  return { backend: new S3Backend(s3OptionsFrom('s3:', app.env)), owned: true };
}

/**
 * Writes the chunks to `out`: `-` (stdout), `s3://bucket/prefix`, an existing folder (the file `name`
 * inside it) or a file path. Stdout's pace is respected (a full pipe pauses the export).
 */
export async function writeExport(
  app: ExportContext,
  chunks: AsyncIterable<ExportChunk>,
  out: string,
  name: string,
  opts: { folder?: boolean; contentType?: string } = {},
): Promise<WrittenExport> {
  const count = { bytes: 0 };
  if (out === '-') {
    const stdout = process.stdout;
    // A reader that stops early (`| head`) closes the pipe: the export stops there, quietly.
    let closed: Error | null = null;
    const onError = (err: Error) => {
      closed = err;
      stdout.emit('drain');
    };
    stdout.on('error', onError);
    try {
      for await (const c of toBuffers(chunks, count)) {
        if (closed) break;
        if (!stdout.write(c)) await once(stdout, 'drain');
      }
    } finally {
      stdout.off('error', onError);
    }
    if (closed && (closed as NodeJS.ErrnoException).code !== 'EPIPE') throw closed;
    return { location: '-', bytes: count.bytes };
  }
  if (out.startsWith('s3://')) {
    const { bucket, prefix } = parseS3Url(out);
    const key = keyUnder(prefix, name);
    const { backend, owned } = s3For(app);
    try {
      await backend.put(bucket, key, toBuffers(chunks, count), { contentType: opts.contentType });
    } finally {
      if (owned) await backend.close();
    }
    return { location: `s3://${bucket}/${key}`, bytes: count.bytes };
  }
  const target = resolve(out);
  const path = opts.folder || (await isDirectory(target)) ? join(target, name) : target;
  // A scheduled export's folders are the service's alone; `--out`'s are the user's to choose.
  await mkdir(dirname(path), { recursive: true, ...(opts.folder ? { mode: 0o700 } : {}) });
  const partial = partialPath(path);
  try {
    await pipeline(Readable.from(toBuffers(chunks, count)), createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, path);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return { location: path, bytes: count.bytes };
}

/** This machine's name as a partial file carries it (letters, digits, '.', '-' and '_' only). */
const HOST = hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host';

/** Where a file is written before it is renamed into place: `<file>.partial-<host>-<pid>` (this process's). */
export function partialPath(path: string, pid = process.pid): string {
  return `${path}.partial-${HOST}-${pid}`;
}

/**
 * Who wrote a partial file: the host and process id in its name (`host` null for the older
 * `.partial-<pid>` names, written on this machine), or null for any other file.
 */
export function partialWriter(fileName: string): { host: string | null; pid: number; thisHost: boolean } | null {
  const m = /\.partial-(?:([A-Za-z0-9._-]+)-)?(\d+)$/.exec(fileName);
  if (!m) return null;
  const host = m[1] ?? null;
  return { host, pid: Number(m[2]), thisHost: host === null || host === HOST };
}

/** A file name for an export: `<model>-<UTC time>.<ext>` (sortable, no characters file systems or S3 mind). */
export function exportFileName(model: string, ext: string, at = new Date(), tag = ''): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${model}-${stamp}${tag ? `-${tag}` : ''}.${ext}`;
}
