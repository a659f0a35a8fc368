// The file-drop layer: buckets on a local folder or S3-compatible storage, uploads, the file-drop
// guide with scoped upload credentials, and the import bookkeeping file-mode streams rely on (its HTTP
// routes are in server/routes/files.ts).
export { type FileDropBackend, DEFAULT_MAX_UPLOAD_BYTES, type PutOptions, StorageError, TooLargeError } from './backend.ts';
export type { FileDropContext } from './context.ts';
export { type FileDropGuide, type FileDropGuideOptions, fileDropGuide } from './guide.ts';
export { type FileImportRecord, type FileView, forgetSource, listFiles, listImports, type OpenBucketOptions, openSourceBucket } from './imports.ts';
export { LocalBackend } from './local.ts';
export { bucketOf, parseExpires, sanitizeFileName, validateBucketName, validateKey } from './names.ts';
export {
  closeFileDrop,
  type FileDropApp,
  type FileDropSettings,
  fileDropOf,
  maxUploadBytes,
  type ResolveFileDropOptions,
  resolveFileDrop,
  setFileDrop,
  sourceBucketOf,
} from './resolve.ts';
export { S3Backend, type S3BackendOptions } from './s3.ts';
export { createUploadToken, listUploadTokens, revokeUploadToken, type UploadTokenInfo, verifyUploadToken } from './tokens.ts';
export { putIntoBucket, type UploadedFile, type UploadProgress, uploadFiles } from './upload.ts';
