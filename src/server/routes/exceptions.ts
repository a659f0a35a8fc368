// Risk exceptions over HTTP (interfaces.md §7.3, issue 31 §3): list and read (read scope); propose,
// approve, reject, revoke (operate; approving and rejecting need a user other than the requester unless
// TRIBUTARY_EXCEPTION_APPROVAL=any-user, and admin when TRIBUTARY_EXCEPTION_APPROVER_SCOPE=admin). A
// change is made as the request's user (a token acts as its user), and kept in the exception's history.
import type { FastifyInstance } from 'fastify';
import { exceptionPolicy } from '../../app/exceptions.ts';
import type { AppContext } from '../../app/context.ts';
import {
  exceptionDecision,
  exceptionListQuery,
  exceptionPolicy as exceptionPolicyShape,
  exceptionProposal,
  riskExceptionDetail,
  riskExceptionList,
} from '../../core/api-shapes-exceptions.ts';
import { idParams } from '../../core/api-shapes.ts';
import { scopeAllows } from '../../core/token-scopes.ts';
import type { AuthInfo } from '../auth.ts';
import { ApiError, errorSchema } from '../errors.ts';
import { routeSchema, type ShapesProvider } from '../schema.ts';

const detailSchema = routeSchema(riskExceptionDetail);
const idSchema = routeSchema(idParams);

/** The user a change is made as: the session's, or the API token's owner (so a token cannot approve its user's own request). */
function userOf(auth: AuthInfo | null): string {
  if (!auth) throw new ApiError(401, 'unauthorized', 'log in or send an API token');
  return auth.username;
}

export function exceptionRoutes(app: AppContext) {
  return async (instance: FastifyInstance): Promise<void> => {
    const f = instance.withTypeProvider<ShapesProvider>();
    f.get(
      '/api/v1/exceptions',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['exceptions'],
          summary: 'Risk exceptions, newest first (state as read now: expired once past their date)',
          querystring: routeSchema(exceptionListQuery),
          response: { 200: routeSchema(riskExceptionList), 400: errorSchema, 404: errorSchema },
        },
      },
      async (req) => ({ items: await app.store.exceptions.list(req.query) }),
    );
    f.get(
      '/api/v1/exceptions/policy',
      {
        config: { scope: 'read' },
        schema: { tags: ['exceptions'], summary: 'Who may approve an exception', response: { 200: routeSchema(exceptionPolicyShape) } },
      },
      async () => exceptionPolicy(app.env),
    );
    f.get(
      '/api/v1/exceptions/:id',
      {
        config: { scope: 'read' },
        schema: {
          tags: ['exceptions'],
          summary: 'One risk exception with every change of it',
          params: idSchema,
          response: { 200: detailSchema, 404: errorSchema },
        },
      },
      async (req) => app.store.exceptions.get(req.params.id),
    );
    f.post(
      '/api/v1/exceptions',
      {
        config: { scope: 'operate' },
        schema: {
          tags: ['exceptions'],
          summary: 'Propose a risk exception for a finding, a plugin on chosen assets, or a plugin everywhere',
          body: routeSchema(exceptionProposal),
          response: { 201: detailSchema, 400: errorSchema, 404: errorSchema },
        },
      },
      async (req, reply) => reply.code(201).send(await app.store.exceptions.propose(req.body, userOf(req.auth))),
    );
    for (const action of ['approve', 'reject', 'revoke'] as const) {
      f.post(
        `/api/v1/exceptions/:id/${action}`,
        {
          config: { scope: 'operate' },
          schema: {
            tags: ['exceptions'],
            summary: `${action[0]!.toUpperCase()}${action.slice(1)} a risk exception`,
            params: idSchema,
            body: routeSchema(exceptionDecision),
            response: { 200: detailSchema, 400: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema },
          },
          // No body at all: a decision without a note.
          preValidation: async (req) => {
            if (req.body === undefined || req.body === null) req.body = {};
          },
        },
        async (req) => {
          const policy = exceptionPolicy(app.env);
          if (action !== 'revoke' && req.auth && !scopeAllows(req.auth.scope, policy.approverScope))
            throw new ApiError(403, 'forbidden', `${action === 'approve' ? 'approving' : 'rejecting'} an exception needs the ${policy.approverScope} scope`);
          return app.store.exceptions.decide(req.params.id, action, userOf(req.auth), {
            requireOtherApprover: policy.requireOtherApprover,
            note: req.body.note ?? null,
          });
        },
      );
    }
  };
}
