// pino logger whose output passes through the secret scrubber: any value registered as secret is
// replaced before the line is written, whatever code path put it into a message. Values are scrubbed
// before serialising (JSON escaping would hide a secret holding `"` or `\`), and the written line once
// more, escaped forms included.
import { Writable } from 'node:stream';
import pino from 'pino';
import { scrubDeep, scrubSecrets, scrubSerialized } from './secrets.ts';

export type Logger = pino.Logger;

export interface LogOptions {
  level?: string;
  /** Where lines go; default stderr. Tests pass a collecting stream. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(opts: LogOptions = {}): Logger {
  const out = opts.destination ?? process.stderr;
  const scrubbing = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      out.write(scrubSerialized(chunk.toString()));
      cb();
    },
  });
  return pino(
    {
      level: opts.level ?? process.env.TRIBUTARY_LOG_LEVEL ?? 'info',
      formatters: { log: (object) => scrubDeep(object) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a)) as Parameters<typeof method>);
        },
      },
      redact: {
        // Field names of secrets are the connectors' declared secret fields, masked by scrubDeep above.
        paths: ['req.headers.authorization', 'req.headers.cookie'],
        censor: '********',
      },
    },
    scrubbing,
  );
}

/** A logger that writes nothing, for library use without a caller-provided one. */
export const silentLogger: Logger = pino({ level: 'silent' });
