// Error classes that carry how the user should see them: the CLI maps them to exit codes,
// the API to HTTP statuses, the runner decides from them whether to retry.

/** Bad usage or bad input: CLI exit 2, HTTP 400. `field` names the offending key where there is one. */
export class InputError extends Error {
  readonly field: string | null;
  constructor(message: string, field: string | null = null) {
    super(message);
    this.name = 'InputError';
    this.field = field;
  }
}

/** Refused for who asks, not for what is asked (an approval by the requester itself): CLI exit 2, HTTP 403. */
export class ForbiddenError extends InputError {
  constructor(message: string, field: string | null = null) {
    super(message, field);
    this.name = 'ForbiddenError';
  }
}

/** Something asked for does not exist: CLI exit 2, HTTP 404. */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

/** An operation conflicts with the current state (name taken, a run already active): HTTP 409. */
export class ConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}

/**
 * An upstream call failed. `transient` errors (timeouts, resets, 429, 5xx, rate limits) are retried
 * with backoff; others fail the stream at once with a message naming cause and fix.
 */
export class UpstreamError extends Error {
  readonly transient: boolean;
  readonly status: number | null;
  /** Seconds the upstream asked us to wait (Retry-After), if it said. */
  readonly retryAfter: number | null;
  readonly hint: string | null;
  constructor(message: string, opts: { transient?: boolean; status?: number | null; retryAfter?: number | null; hint?: string | null; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'UpstreamError';
    this.transient = opts.transient ?? false;
    this.status = opts.status ?? null;
    this.retryAfter = opts.retryAfter ?? null;
    this.hint = opts.hint ?? null;
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
