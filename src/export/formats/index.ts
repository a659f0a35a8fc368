// The export formats, one file each, registered here by name: which models each can write and how its
// records are written. Shared by the CLI, the API and scheduled exports; adding a format is its file
// and one line in FORMATS.
import { InputError } from '../../core/errors.ts';
import { MODEL_NAMES, type ModelName } from '../../core/models.ts';
import { OCSF_VERSIONS, type OcsfVersion } from '../ocsf.ts';
import { csv } from './csv.ts';
import { ecs } from './ecs.ts';
import { jsonl } from './jsonl.ts';
import { ocsf } from './ocsf.ts';
import { ocsfParquet } from './ocsf-parquet.ts';
import type { EventEncoder, EventMapper, ExportFormatDef, FormatOptions as AnyFormatOptions, LineWriter } from './types.ts';

const FORMATS = {
  ocsf,
  'ocsf-parquet': ocsfParquet,
  ecs,
  jsonl,
  csv,
} satisfies Record<string, ExportFormatDef>;

export type ExportFormat = keyof typeof FORMATS;
export const EXPORT_FORMATS = Object.keys(FORMATS) as [ExportFormat, ...ExportFormat[]];

/** One entry of an export menu: a format with the options it sets, and the models it can write so. */
export interface FormatChoice {
  id: string;
  format: ExportFormat;
  label: string;
  params: { ocsfVersion?: OcsfVersion };
  models: ModelName[];
}

/** Every format's menu entries: those that write any model first (the menu's default), then in the registry's order. */
export function formatMenu(): FormatChoice[] {
  const anyModel = (f: ExportFormat) => FORMATS[f].models({ format: f }) === null;
  const order = [...EXPORT_FORMATS.filter(anyModel), ...EXPORT_FORMATS.filter((f) => !anyModel(f))];
  return order.flatMap((format) =>
    FORMATS[format].menu.map((entry, i) => {
      const params = entry.options ?? {};
      return { id: i === 0 ? format : `${format}-${params.ocsfVersion ?? i}`, format, label: entry.label, params, models: modelsOf({ format, ...params }) };
    }),
  );
}
export type FormatOptions = AnyFormatOptions & { format: ExportFormat };
export type { EventEncoder, EventMapper, LineWriter };

export function isExportFormat(s: string): s is ExportFormat {
  return Object.hasOwn(FORMATS, s);
}

function formatOf(name: ExportFormat): ExportFormatDef {
  return FORMATS[name];
}

export function parseFormat(format: string | undefined, ocsfVersion: string | undefined): FormatOptions {
  if (!format || !isExportFormat(format)) throw new InputError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`, 'format');
  const v = ocsfVersion ?? '1.1.0';
  if (!(OCSF_VERSIONS as readonly string[]).includes(v)) throw new InputError(`--ocsf-version must be one of ${OCSF_VERSIONS.join(', ')}`, 'ocsfVersion');
  return { format, ocsfVersion: v as OcsfVersion };
}

/** The models a format can write (all models for CSV and JSON Lines). */
export function modelsOf(opts: FormatOptions): ModelName[] {
  const can = formatOf(opts.format).models(opts);
  return can === null ? [...MODEL_NAMES] : MODEL_NAMES.filter((m) => can.includes(m));
}

export function checkModel(model: ModelName, opts: FormatOptions): void {
  if (modelsOf(opts).includes(model)) return;
  const def = formatOf(opts.format);
  const hint = def.hint?.(model, opts);
  throw new InputError(
    `${def.label(opts)} has no mapping for ${model}${hint ? ` (${hint})` : ''}; it maps ${modelsOf(opts).join(', ')}; use --format jsonl or csv for any model`,
    'format',
  );
}

/** How a model's records are written in a format: as lines of text, or as events a binary encoder packs. */
export function writerOf(
  model: ModelName,
  opts: FormatOptions,
): { lines: LineWriter } | { events: EventMapper; encoder: (rowGroup?: number) => Promise<EventEncoder> } {
  checkModel(model, opts);
  const def = formatOf(opts.format);
  if (def.lines) return { lines: def.lines(model, opts) };
  if (!def.binary) throw new Error(`export format ${opts.format} writes neither lines nor events`);
  const binary = def.binary;
  return { events: binary.events(model, opts), encoder: (rowGroup) => binary.encoder(model, opts, rowGroup) };
}

/** Records of a text format as lines (tests and callers that know the format is text). */
export function lineWriter(model: ModelName, opts: FormatOptions): LineWriter {
  const w = writerOf(model, opts);
  if ('lines' in w) return w.lines;
  throw new Error(`${opts.format} is binary: it writes events, not lines`);
}

export function contentType(format: ExportFormat): string {
  return formatOf(format).contentType;
}

export function extension(format: ExportFormat): string {
  return formatOf(format).extension;
}
