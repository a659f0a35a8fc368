// The file-drop contract: what a file-mode stream sees of its bucket. Nothing here knows whether the
// bucket is a local folder or S3-compatible object storage.
import type { Readable } from 'node:stream';

export interface BucketObject {
  /** Object key within the bucket (a file name; sanitized on upload). */
  key: string;
  size: number;
  /** ETag on S3; a content-derived tag for local folders. Key + etag identify one version of a file. */
  etag: string;
  lastModified: string;
}

export interface RejectedRow {
  /** 1-based line number in the file (the header is line 1). */
  line: number;
  reason: string;
}

/** `skipped`: an export older than one already imported for its scope; it changed nothing. */
export type FileImportStatus = 'imported' | 'partial' | 'rejected' | 'skipped';

/** What an export is the state of: the repositories its rows named, and its file name when some row named none. */
export interface FileScope {
  repositories: string[];
  fileName: boolean;
}

export interface FileImportResult {
  key: string;
  etag: string;
  size: number;
  /** What the file was recognised as (e.g. `vulnerability-detail-list`), or null when rejected outright. */
  kind: string | null;
  rowsRead: number;
  rowsImported: number;
  rowsRejected: number;
  /** The first rejected rows with reasons (bounded; rowsRejected has the total). */
  rejections: RejectedRow[];
  status: FileImportStatus;
  /** Why the whole file was rejected (or skipped), when it was. */
  error: string | null;
  /** The scope its imported rows covered (exports that sweep). */
  scope?: FileScope | null;
  /** Its export time: the date in its file name, else its upload time. */
  exportedAt?: string | null;
}

/** An export a source imported earlier: its scope and export time decide which later exports are older. */
export interface ImportedExport {
  key: string;
  etag: string;
  /** What it was recognised as: only an export of the same kind makes another older. */
  kind: string;
  /** The run that first imported it (files imported together are one snapshot), and when. */
  snapshot: string;
  snapshotAt: string;
  scope: FileScope;
  exportedAt: string;
}

/** A source's bucket as its file-mode streams use it. */
export interface SourceBucket {
  /** Where users find it: `s3://scans/`, or the folder of a local bucket. */
  readonly address: string;
  list(): AsyncIterable<BucketObject>;
  open(key: string): Promise<Readable>;
  /** Whether this version of the object (key + etag) was imported already. */
  isImported(obj: BucketObject): Promise<boolean>;
  /** Records the outcome of importing one object version (called once the file's last page is stored). */
  recordImport(result: FileImportResult): Promise<void>;
  /**
   * The snapshot this version of the object belongs to: the run that first imported it (files imported
   * in one run form one snapshot) and when; null when it was never imported. Re-imports keep it.
   */
  snapshotOf(obj: Pick<BucketObject, 'key' | 'etag'>): Promise<FileSnapshot | null>;
  /** The exports imported earlier whose scope and export time are known (status imported or partial). */
  importedExports?(): Promise<ImportedExport[]>;
  /**
   * Files that are no export of the connector may still be something the service imports on its own
   * (the offline feeds): what this one is, from its first bytes, or null. Absent: such files are rejected.
   */
  recogniseOther?(obj: BucketObject): Promise<string | null>;
  /** Imports a file recogniseOther recognised; its import record (imported, or rejected with the reason), for recordImport. */
  importOther?(obj: BucketObject): Promise<FileImportResult>;
  /** What else the bucket accepts besides the connector's exports, for the reason a file is rejected. */
  readonly otherKinds?: string;
}

export interface FileSnapshot {
  run: string;
  at: string;
}
