// Who may decide a risk exception (issue 31 §3), from the environment: TRIBUTARY_EXCEPTION_APPROVAL
// `other-user` (default: approval and rejection need a user other than the requester) or `any-user`;
// TRIBUTARY_EXCEPTION_APPROVER_SCOPE `operate` (default) or `admin` (the least token scope that may
// approve or reject; proposing and revoking need operate).
import type { ExceptionPolicy } from '../core/api-shapes-exceptions.ts';
import { InputError } from '../core/errors.ts';

export function exceptionPolicy(env: NodeJS.ProcessEnv = process.env): ExceptionPolicy {
  const approval = (env.TRIBUTARY_EXCEPTION_APPROVAL ?? 'other-user').trim().toLowerCase();
  if (approval !== 'other-user' && approval !== 'any-user')
    throw new InputError(`TRIBUTARY_EXCEPTION_APPROVAL is other-user or any-user, got '${approval}'`, 'TRIBUTARY_EXCEPTION_APPROVAL');
  const scope = (env.TRIBUTARY_EXCEPTION_APPROVER_SCOPE ?? 'operate').trim().toLowerCase();
  if (scope !== 'operate' && scope !== 'admin')
    throw new InputError(`TRIBUTARY_EXCEPTION_APPROVER_SCOPE is operate or admin, got '${scope}'`, 'TRIBUTARY_EXCEPTION_APPROVER_SCOPE');
  return { requireOtherApprover: approval === 'other-user', approverScope: scope };
}
