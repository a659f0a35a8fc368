// The file drop over HTTP, a Fastify plugin registered by the server:
//   GET    /api/v1/sources/:name/files                      objects with their import status
//   PUT    /api/v1/sources/:name/files/<file>               raw streamed upload
//   POST   /api/v1/sources/:name/files                      multipart/form-data upload (one or more files)
//   DELETE /api/v1/sources/:name/files/<file>
//   GET    /api/v1/sources/:name/imports                    import history (rows read/imported/rejected)
//   POST   /api/v1/sources/:name/file-drop                  the file-drop guide {expires?, file?}
//   GET    /api/v1/sources/:name/file-drop/tokens           upload tokens (never the token itself)
//   DELETE /api/v1/sources/:name/file-drop/tokens/:id       revoke one
//   PUT    /api/v1/upload/:bucket/<file>                    upload with `Authorization: Bearer <upload token>`
// All but the last sit behind the API's own authentication. The last is marked `config.public` so the
// global auth hook lets it through, and checks the upload token itself (in onRequest, before any of
// the body is read). File names use a wildcard segment, so they are not cut at Fastify's
// maxParamLength and `a/b` reaches the sanitizer (which keeps the base name) instead of a 404.
import { PassThrough, type Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.ts';
import { InputError, NotFoundError } from '../../core/errors.ts';
import { TooLargeError } from '../../filedrop/backend.ts';
import { fileDropGuide } from '../../filedrop/guide.ts';
import { listFiles, listImports } from '../../filedrop/imports.ts';
import { sanitizeFileName, validateKey } from '../../filedrop/names.ts';
import { fileDropOf, maxUploadBytes, sourceBucketOf } from '../../filedrop/resolve.ts';
import { listUploadTokens, markTokenUsed, revokeUploadToken, verifyUploadToken } from '../../filedrop/tokens.ts';
import { putIntoBucket, type UploadedFile } from '../../filedrop/upload.ts';
import {
  bucketListing,
  fileDropGuide as fileDropGuideShape,
  importHistory,
  nameParams as nameParamsShape,
  uploadedFile,
  uploadedFiles,
  uploadTokenList,
} from '../../core/api-shapes.ts';
import { errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';
import { fileDropBody, fileParams as fileParamsShape, uploadParams, uploadTokenParams } from '../../core/api-requests.ts';

/** Route prefixes that must bypass the session/API-token check (they carry their own upload token). */
export const UPLOAD_TOKEN_PATH_PREFIX = '/api/v1/upload/';

const nameParams = routeSchema(nameParamsShape);
const fileParams = routeSchema(fileParamsShape);

const uploadedSchema = routeSchema(uploadedFile);

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 413: errorSchema };

export interface FileDropRouteOptions {
  /** Overrides the app's upload limit (default 2 GiB, TRIBUTARY_MAX_UPLOAD_BYTES). */
  maxUploadBytes?: number;
  /** The service's public base URL for the guide's commands; default TRIBUTARY_PUBLIC_URL, else the request's own host. */
  publicUrl?: string;
}

/**
 * The request body as a stream the backend may consume and destroy without destroying the request
 * itself, so a 413 can still be answered (with Connection: close) when a body passes the limit.
 */
function bodyOf(req: FastifyRequest): Readable {
  const pass = new PassThrough();
  req.raw.pipe(pass);
  pass.on('close', () => req.raw.unpipe(pass));
  return pass;
}

function declaredLength(req: FastifyRequest): number | undefined {
  const v = req.headers['content-length'];
  return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined;
}

function fileParam(req: FastifyRequest): string {
  return (req.params as Record<string, string>)['*'] ?? '';
}

export function fileDropRoutes(app: AppContext, opts: FileDropRouteOptions = {}) {
  const limit = (): number => opts.maxUploadBytes ?? maxUploadBytes(app);
  const appWithLimit = (): AppContext => (opts.maxUploadBytes === undefined ? app : ({ ...app, maxUploadBytes: opts.maxUploadBytes } as AppContext));

  /** Streams one request body into the source's bucket, answering 413 before or while reading. */
  async function receive(
    req: FastifyRequest,
    reply: FastifyReply,
    source: { name: string; type: string; config: Record<string, unknown> },
  ): Promise<UploadedFile> {
    const size = declaredLength(req);
    const fileName = fileParam(req);
    sanitizeFileName(fileName);
    const max = limit();
    if (size !== undefined && size > max) {
      reply.header('connection', 'close');
      throw new TooLargeError(max);
    }
    try {
      const contentType = typeof req.headers['content-type'] === 'string' ? req.headers['content-type'] : undefined;
      return await putIntoBucket(appWithLimit(), source, fileName, bodyOf(req), { size, contentType });
    } catch (err) {
      if (err instanceof TooLargeError) reply.header('connection', 'close');
      throw err;
    }
  }

  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    const publicBase = (req: FastifyRequest): string => opts.publicUrl ?? process.env.TRIBUTARY_PUBLIC_URL ?? `${req.protocol}://${req.host}`;

    f.get(
      '/api/v1/sources/:name/files',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['files'],
          summary: "Objects in the source's bucket with the import status of their current version",
          params: nameParams,
          response: {
            200: routeSchema(bucketListing),
            ...errors,
          },
        },
      },
      async (req) => listFiles(app, await app.store.sources.get(req.params.name)),
    );

    f.get(
      '/api/v1/sources/:name/imports',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['files'],
          summary: 'Import history of the source: one entry per imported file version, newest first',
          params: nameParams,
          response: {
            200: routeSchema(importHistory),
            ...errors,
          },
        },
      },
      async (req) => ({ items: await listImports(app, (await app.store.sources.get(req.params.name)).id) }),
    );

    f.delete(
      '/api/v1/sources/:name/files/*',
      {
        config: { scope: 'operate' },
        schema: { tags: ['files'], summary: "Delete an object from the source's bucket", params: fileParams, response: { 204: { type: 'null' }, ...errors } },
      },
      async (req, reply) => {
        const source = await app.store.sources.get(req.params.name);
        const key = validateKey(fileParam(req));
        const bucket = sourceBucketOf(app, source);
        if (!(await fileDropOf(app).delete(bucket, key))) throw new NotFoundError(`no file '${key}' in s3://${bucket}/`);
        req.log.info({ source: source.name, bucket, key }, 'file deleted from the file drop');
        return reply.code(204).send();
      },
    );

    f.post(
      '/api/v1/sources/:name/file-drop',
      {
        config: { scope: 'operate' },
        schema: {
          tags: ['files'],
          summary:
            'File-drop guide: bucket address, upload credentials scoped to it (presigned URL on S3 for one file, else a revocable upload token) and commands',
          params: nameParams,
          body: routeSchema(fileDropBody),
          response: {
            201: routeSchema(fileDropGuideShape),
            ...errors,
          },
        },
      },
      async (req, reply) => {
        const body = req.body ?? {};
        const auth = (req as FastifyRequest & { auth?: { username?: string } | null }).auth;
        const guide = await fileDropGuide(app, req.params.name, {
          expires: body.expires,
          file: body.file ?? null,
          baseUrl: publicBase(req),
          createdBy: auth?.username ?? null,
        });
        return reply.code(201).send(guide);
      },
    );

    f.get(
      '/api/v1/sources/:name/file-drop/tokens',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['files'],
          summary: "The source's upload tokens (the tokens themselves are never shown again)",
          params: nameParams,
          response: { 200: routeSchema(uploadTokenList), ...errors },
        },
      },
      async (req) => {
        const source = await app.store.sources.get(req.params.name);
        const now = new Date().toISOString();
        const items = (await listUploadTokens(app, source.id)).map((t) => ({ ...t, active: !t.revokedAt && t.expiresAt > now }));
        return { items };
      },
    );

    f.delete(
      '/api/v1/sources/:name/file-drop/tokens/:id',
      {
        config: { scope: 'operate' },
        schema: {
          tags: ['files'],
          summary: 'Revoke an upload token',
          params: routeSchema(uploadTokenParams),
          response: { 204: { type: 'null' }, ...errors },
        },
      },
      async (req, reply) => {
        const source = await app.store.sources.get(req.params.name);
        await revokeUploadToken(app, source.id, req.params.id);
        req.log.info({ source: source.name, tokenId: req.params.id }, 'upload token revoked');
        return reply.code(204).send();
      },
    );

    // Multipart uploads, in their own scope with @fastify/multipart.
    await f.register(async (scope) => {
      const m = scope.withTypeProvider<ShapesProvider>();
      await m.register(multipart, { limits: { fileSize: limit() + 1, files: 50, fields: 20, parts: 70, fieldSize: 64 * 1024 } });
      m.post(
        '/api/v1/sources/:name/files',
        {
          config: { scope: 'operate' },
          schema: {
            tags: ['files'],
            summary: "Upload one or more files (multipart/form-data) to the source's bucket",
            params: nameParams,
            response: { 201: routeSchema(uploadedFiles), ...errors },
          },
        },
        async (req, reply) => {
          if (!req.isMultipart())
            throw new InputError('send multipart/form-data with one or more file parts, or PUT the raw file to /api/v1/sources/:name/files/<file>', 'body');
          const source = await app.store.sources.get(req.params.name);
          const items: UploadedFile[] = [];
          try {
            for await (const part of req.parts()) {
              if (part.type !== 'file') continue;
              items.push(await putIntoBucket(appWithLimit(), source, part.filename, part.file, { contentType: part.mimetype }));
            }
          } catch (err) {
            if (err instanceof TooLargeError) reply.header('connection', 'close');
            throw err;
          }
          if (items.length === 0) throw new InputError('the form has no file part', 'file');
          return reply.code(201).send({ items });
        },
      );
    });

    // Raw streamed uploads: no body parsing at all in this scope; the handler streams the request.
    await f.register(async (scope) => {
      const r = scope.withTypeProvider<ShapesProvider>();
      r.removeAllContentTypeParsers();
      r.addContentTypeParser('*', (_req, _payload, done) => done(null));

      r.put(
        '/api/v1/sources/:name/files/*',
        {
          config: { scope: 'operate' },
          schema: {
            tags: ['files'],
            summary: "Upload one file (the raw request body, streamed) to the source's bucket under the sanitized name",
            params: fileParams,
            response: { 201: uploadedSchema, ...errors },
          },
        },
        async (req, reply) => {
          const source = await app.store.sources.get(req.params.name);
          return reply.code(201).send(await receive(req, reply, source));
        },
      );

      const granted = new WeakMap<FastifyRequest, { tokenId: string; sourceName: string }>();
      r.put(
        `${UPLOAD_TOKEN_PATH_PREFIX}:bucket/*`,
        {
          config: { public: true },
          schema: {
            tags: ['files'],
            summary: 'Upload one file with an upload token from the file-drop guide (Authorization: Bearer <upload token>); no session or API token',
            security: [],
            params: routeSchema(uploadParams),
            response: { 201: uploadedSchema, ...errors },
          },
          onRequest: async (req) => {
            const { bucket } = req.params;
            const key = sanitizeFileName(fileParam(req));
            const v = await verifyUploadToken(app, req.headers.authorization, bucket, key);
            granted.set(req, { tokenId: v.token.id, sourceName: v.sourceName });
          },
        },
        async (req, reply) => {
          const g = granted.get(req);
          if (!g) throw new InputError('upload token not checked');
          const source = await app.store.sources.get(g.sourceName);
          const uploaded = await receive(req, reply, source);
          await markTokenUsed(app, g.tokenId);
          req.log.info({ source: source.name, tokenId: g.tokenId, key: uploaded.key }, 'file uploaded with an upload token');
          return reply.code(201).send(uploaded);
        },
      );
    });
  };
}
