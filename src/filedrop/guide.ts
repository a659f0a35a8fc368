// The file-drop guide (`tributary sources file-drop NAME`, `POST /api/v1/sources/:name/file-drop`):
// where a source's files go and credentials scoped to that bucket alone: a presigned PUT URL on S3
// when a file name is given, else a revocable upload token for the service's own upload endpoint;
// with ready-to-paste commands.
import { readsFiles } from '../core/connector.ts';
import { InputError } from '../core/errors.ts';
import type { FileDropContext } from './context.ts';
import type { S3Settings } from './backend.ts';
import { parseExpires, sanitizeFileName } from './names.ts';
import { fileDropOf, sourceBucketOf } from './resolve.ts';
import { createUploadToken } from './tokens.ts';

export interface FileDropGuideOptions {
  /** `1h`, `30m`, `7d` or seconds; default 1h. */
  expires?: string | number;
  /** The one file the credentials are for (presigned URL on S3, a file-bound token otherwise). */
  file?: string | null;
  /** Where this service is reached, for the upload endpoint; default TRIBUTARY_PUBLIC_URL, else a placeholder with a note. */
  baseUrl?: string;
  /** Who asked (user name), recorded with the token. */
  createdBy?: string | null;
}

export interface GuideCommand {
  label: string;
  command: string;
}

export interface FileDropGuide {
  source: string;
  type: string;
  bucket: string;
  /** `s3://<bucket>/` */
  address: string;
  /** The bucket's folder on a local file drop (what to show users there instead of an s3:// address); null on S3. */
  folder: string | null;
  backend: 'file' | 's3';
  storage: string;
  s3: S3Settings | null;
  /** Other sources that read the same bucket (and so import the same files). */
  sharedWith: string[];
  file: string | null;
  expiresAt: string;
  presignedUrl: string | null;
  token: { id: string; token: string; file: string | null; expiresAt: string } | null;
  /** The service endpoint the token uploads to (append the file name). */
  uploadUrl: string | null;
  commands: GuideCommand[];
  notes: string[];
}

/** Stands for the service's address when it is not known (no TRIBUTARY_PUBLIC_URL, no running server found). */
export const UNKNOWN_ADDRESS = 'http://TRIBUTARY-HOST:PORT';

/** Quotes for a POSIX shell. */
export const shq = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export async function fileDropGuide(app: FileDropContext, sourceName: string, opts: FileDropGuideOptions = {}): Promise<FileDropGuide> {
  const source = await app.store.sources.get(sourceName);
  // Upload credentials are only of use where a sync reads the bucket.
  if (!app.registry.has(source.type) || !readsFiles(app.registry.get(source.type), source.config))
    throw new InputError(
      `source '${source.name}' reads from its API, not from files: the file-drop guide is for file-mode sources (set inputMode=file to import exports)`,
      'inputMode',
    );
  const expiresSeconds = parseExpires(opts.expires);
  const file = opts.file ? sanitizeFileName(opts.file) : null;
  const bucket = sourceBucketOf(app, source);
  const address = `s3://${bucket}/`;
  const backend = fileDropOf(app);
  await backend.ensureBucket(bucket);
  const sharedWith = (await app.store.sources.list()).filter((s) => s.id !== source.id && sourceBucketOf(app, s) === bucket).map((s) => s.name);
  const baseUrl = (opts.baseUrl ?? process.env.TRIBUTARY_PUBLIC_URL ?? UNKNOWN_ADDRESS).replace(/\/+$/, '');
  const example = file ?? 'export.csv';
  const commands: GuideCommand[] = [];
  const notes: string[] = [];
  let presignedUrl: string | null = null;
  let token: FileDropGuide['token'] = null;
  let uploadUrl: string | null = null;
  let expiresAt = new Date(Date.now() + expiresSeconds * 1000).toISOString();

  if (backend.kind === 's3' && file && backend.presignPut) {
    presignedUrl = await backend.presignPut(bucket, file, expiresSeconds);
    commands.push({
      label: `upload ${file} with the presigned URL (no other credentials; valid until ${expiresAt})`,
      command: `curl --fail -T ${shq(`./${file}`)} ${shq(presignedUrl)}`,
    });
    notes.push('A presigned URL cannot be revoked; it stops working when it expires.');
  } else {
    const t = await createUploadToken(app, source, { expiresSeconds, file, createdBy: opts.createdBy ?? null });
    token = { id: t.id, token: t.token, file: t.file, expiresAt: t.expiresAt };
    expiresAt = t.expiresAt;
    uploadUrl = `${baseUrl}/api/v1/upload/${bucket}/`;
    const target = file ? `${uploadUrl}${encodeURIComponent(file)}` : uploadUrl;
    commands.push({
      label: `upload ${file ?? 'a file'} to the service's upload endpoint with the upload token (valid until ${t.expiresAt}; revoke with DELETE /api/v1/sources/${source.name}/file-drop/tokens/${t.id})`,
      command: `curl --fail -H ${shq(`Authorization: Bearer ${t.token}`)} -T ${shq(`./${example}`)} ${shq(target)}`,
    });
    if (!file) notes.push('With a URL ending in "/", curl appends the local file name; the service stores it under its sanitized base name.');
  }
  if (backend.kind === 's3' && backend.s3) {
    const endpoint = backend.s3.endpoint ? ` --endpoint-url ${shq(backend.s3.endpoint)}` : '';
    commands.push({
      label: 'or with the AWS CLI and credentials allowed to write to this bucket',
      command: `aws s3 cp ${shq(`./${example}`)} ${shq(`${address}${example}`)}${endpoint} --region ${shq(backend.s3.region)}`,
    });
  }
  commands.push({ label: 'or from a machine with Tributary configured', command: `tributary upload ${shq(source.name)} ${shq(`./${example}`)}` });
  if (uploadUrl?.startsWith(UNKNOWN_ADDRESS))
    notes.push(
      `No running \`tributary serve\` was found for this data dir: replace ${UNKNOWN_ADDRESS} with the address the service listens on, or set TRIBUTARY_PUBLIC_URL.`,
    );
  if (sharedWith.length)
    notes.push(
      `Sources ${sharedWith.map((n) => `'${n}'`).join(', ')} use the same bucket and will import the same files; give each source its own \`bucket\` to keep them apart.`,
    );
  notes.push(`Files are imported by the next sync of '${source.name}'; each version of a file is imported once.`);

  return {
    source: source.name,
    type: source.type,
    bucket,
    address,
    folder: backend.folderOf?.(bucket) ?? null,
    backend: backend.kind,
    storage: backend.description,
    s3: backend.s3,
    sharedWith,
    file,
    expiresAt,
    presignedUrl,
    token,
    uploadUrl,
    commands,
    notes,
  };
}
