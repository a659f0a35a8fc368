// What an export format is: the models it can write, its file name and media type, and how records
// become lines of text (or, for a binary format, events an encoder packs).
import type { ConnectorProduct } from '../../core/connector.ts';
import type { ModelName } from '../../core/models.ts';
import type { OcsfVersion } from '../ocsf.ts';
import type { Rec } from '../values.ts';

export interface FormatOptions {
  format: string;
  /** OCSF schema version (default 1.1.0). */
  ocsfVersion?: OcsfVersion;
  /** ECS: an Elasticsearch `_bulk` action line with the record's id before each document. */
  ecsBulk?: boolean;
  /** CSV: text cells that start like a formula get a `'` (tabular.ts; default true); false writes them raw. */
  csvEscape?: boolean;
}

/** Writes records of one model as lines of one format. */
export interface LineWriter {
  /** The first line (CSV header), if any. */
  header: string | null;
  /** Records hang off a host and the format describes it (the host is looked up). */
  needsHost: boolean;
  /** False: the format never writes a finding's priorityReason and priorityFactors, so the reader leaves them out. */
  priorityText?: boolean;
  /** One record (with its host, or null) → its line(s), without the final newline. */
  line(rec: Rec, host: Rec | null, product: ConnectorProduct): string;
}

/** Maps records of one model to event objects (what a binary format's encoder packs). */
export interface EventMapper {
  needsHost: boolean;
  /** As LineWriter's. */
  priorityText?: boolean;
  event(rec: Rec, host: Rec | null, product: ConnectorProduct): Record<string, unknown>;
}

/** Packs events into a binary file: `add` says when a block is full, `flush` takes it, `finish` the rest. */
export interface EventEncoder {
  add(event: Record<string, unknown>): boolean;
  flush(): Uint8Array;
  finish(): Uint8Array;
}

/** One export format: a file of its own under formats/ and one line in the registry (index.ts). */
export interface ExportFormatDef {
  /** File name ending, without the dot. */
  extension: string;
  contentType: string;
  /** The models it can write, in these options; null for every model. */
  models(opts: FormatOptions): readonly ModelName[] | null;
  /** Its entries in an export menu (the web UI's): a label, and the options that entry sets. */
  menu: readonly { label: string; options?: Pick<FormatOptions, 'ocsfVersion'> }[];
  /** How it is named in an error ("OCSF 1.1.0", "ECS"). */
  label(opts: FormatOptions): string;
  /** Why a model it cannot write might still be written (another option), if anything. */
  hint?(model: ModelName, opts: FormatOptions): string | null;
  /** A text format: records as lines. */
  lines?(model: ModelName, opts: FormatOptions): LineWriter;
  /** A binary format: records as events, packed by an encoder (loaded only when such an export runs). */
  binary?: {
    events(model: ModelName, opts: FormatOptions): EventMapper;
    encoder(model: ModelName, opts: FormatOptions, rowGroup?: number): Promise<EventEncoder>;
  };
}
