// The sources in the store: name, type, configuration (the connector's secret fields sealed at rest
// with the master key), schedule, last connection check and runtime state (sealed as a whole).
import { randomUUID } from 'node:crypto';
import { ConflictError, InputError, NotFoundError } from '../../core/errors.ts';
import { MODEL_NAMES } from '../../core/models.ts';
import { SecretBox } from '../../core/secrets.ts';
import type { Driver, Row } from '../db/driver.ts';
import { deleteSourceExports } from './export-schedules.ts';
import { nowIso, parseJson } from '../db/rows.ts';
import { q, tableOf } from '../db/schema.ts';
import { anyAssets, correlateEverything } from '../correlation/asset-links.ts';
import { bindDriver } from '../db/bind.ts';
import { dropCvePairs, forgetCvePairs } from '../records/cve-plugins.ts';
import { dropSummaries, forgetSummaries } from '../reports/summary-tables-write.ts';
import { dropOpenAges } from '../reports/open-ages.ts';
import { dropFixFacts } from '../reports/fix-facts.ts';
import * as fileImports from './file-imports.ts';
import * as uploadTokens from './upload-tokens.ts';

export interface SourceRecord {
  id: string;
  name: string;
  type: string;
  /** Plaintext configuration (secrets decrypted); never hand this to a presenter unmasked. */
  config: Record<string, unknown>;
  /** Sealed fields the master key cannot open (left out of `config`): a wrong or lost key. */
  unreadableSecrets: string[];
  schedule: string | null;
  lastCheck: { at: string; ok: boolean; checks: unknown[] } | null;
  createdAt: string;
  updatedAt: string;
}

/** The one-line refusal for a source whose stored secrets the master key cannot open. */
export function unreadableSecretsError(source: Pick<SourceRecord, 'name' | 'unreadableSecrets'>): InputError {
  const fields = source.unreadableSecrets.join(', ');
  return new InputError(
    `the master key cannot decrypt the stored ${fields} of source '${source.name}' (a different or lost key): restore the key (TRIBUTARY_MASTER_KEY or <data-dir>/master.key), enter ${fields} again with \`tributary sources configure ${source.name}\`, or drop them with \`tributary secrets reset\``,
    source.unreadableSecrets[0] ?? 'TRIBUTARY_MASTER_KEY',
  );
}

/** The sources' rows, sealed and opened with the master key and the secret fields of each connector type. */
export class Sources {
  readonly #db: Driver;
  readonly #box: SecretBox;
  readonly #secretKeys: (type: string) => string[];

  /** Which version of which bucket object each source imported, and what a run skipped. */
  readonly files;
  /** The file drop's upload tokens (only their hashes). */
  readonly uploadTokens;

  constructor(db: Driver, box: SecretBox, secretKeys: (type: string) => string[]) {
    this.#db = db;
    this.#box = box;
    this.#secretKeys = secretKeys;
    this.files = bindDriver(db, {
      has: fileImports.hasFileImport,
      save: fileImports.saveFileImport,
      snapshot: fileImports.fileImportSnapshot,
      importedExports: fileImports.importedExportsOf,
      skippedOfRun: fileImports.skippedFilesOfRun,
      of: fileImports.fileImportsOf,
      forget: fileImports.forgetFileDropOf,
    });
    this.uploadTokens = bindDriver(db, {
      insert: uploadTokens.insertUploadToken,
      of: uploadTokens.uploadTokensOf,
      byId: uploadTokens.uploadTokenById,
      byHash: uploadTokens.uploadTokenByHash,
      setRevoked: uploadTokens.setUploadTokenRevoked,
      noteUse: uploadTokens.noteUploadTokenUse,
    });
  }

  #seal(type: string, config: Record<string, unknown>): string {
    const out: Record<string, unknown> = { ...config };
    for (const k of this.#secretKeys(type)) {
      const v = out[k];
      if (typeof v === 'string' && v !== '' && !SecretBox.isSealed(v)) out[k] = this.#box.encrypt(v);
    }
    return JSON.stringify(out);
  }

  /** The config with sealed fields opened; those the key cannot open are left out and named. */
  #unseal(type: string, raw: unknown): { config: Record<string, unknown>; unreadable: string[] } {
    const cfg = parseJson<Record<string, unknown>>(raw, {});
    const unreadable: string[] = [];
    for (const k of this.#secretKeys(type)) {
      const v = cfg[k];
      if (!SecretBox.isSealed(v)) continue;
      try {
        cfg[k] = this.#box.decrypt(v);
      } catch {
        delete cfg[k];
        unreadable.push(k);
      }
    }
    return { config: cfg, unreadable };
  }

  #toSource(r: Row): SourceRecord {
    const type = String(r.type);
    const { config, unreadable } = this.#unseal(type, r.config);
    return {
      id: String(r.id),
      name: String(r.name),
      type,
      config,
      unreadableSecrets: unreadable,
      schedule: (r.schedule as string | null) || null,
      lastCheck: parseJson(r.last_check, null),
      createdAt: String(r.created_at),
      updatedAt: String(r.updated_at),
    };
  }

  async create(name: string, type: string, config: Record<string, unknown>, schedule: string | null): Promise<SourceRecord> {
    if (await this.find(name)) throw new ConflictError(`a source named '${name}' exists already`);
    const id = randomUUID();
    const now = nowIso();
    await this.#db.run(
      `INSERT INTO "sources" ("id", "name", "type", "config", "state", "schedule", "created_at", "updated_at") VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, name, type, this.#seal(type, config), '{}', schedule, now, now],
    );
    return this.get(name);
  }

  async find(name: string): Promise<SourceRecord | null> {
    const rows = await this.#db.all(`SELECT * FROM "sources" WHERE "name" = ?`, [name]);
    return rows[0] ? this.#toSource(rows[0]) : null;
  }

  async get(name: string): Promise<SourceRecord> {
    const s = await this.find(name);
    if (!s) throw new NotFoundError(`no source named '${name}'`);
    return s;
  }

  async getById(id: string): Promise<SourceRecord> {
    const rows = await this.#db.all(`SELECT * FROM "sources" WHERE "id" = ?`, [id]);
    if (!rows[0]) throw new NotFoundError(`no source with id '${id}'`);
    return this.#toSource(rows[0]);
  }

  async list(): Promise<SourceRecord[]> {
    const rows = await this.#db.all(`SELECT * FROM "sources" ORDER BY "name"`);
    return rows.map((r) => this.#toSource(r));
  }

  async update(name: string, config: Record<string, unknown>, schedule: string | null): Promise<SourceRecord> {
    const s = await this.get(name);
    await this.#db.run(`UPDATE "sources" SET "config" = ?, "schedule" = ?, "updated_at" = ? WHERE "id" = ?`, [
      this.#seal(s.type, config),
      schedule,
      nowIso(),
      s.id,
    ]);
    return this.get(name);
  }

  async setLastCheck(sourceId: string, ok: boolean, checks: unknown[]): Promise<void> {
    await this.#db.run(`UPDATE "sources" SET "last_check" = ? WHERE "id" = ?`, [JSON.stringify({ at: nowIso(), ok, checks }), sourceId]);
  }

  /** Whether anything in the database is sealed (then a new master key must not be made). */
  async hasSealedSecrets(): Promise<boolean> {
    const rows = await this.#db.all(`SELECT COUNT(*) AS "n" FROM "sources" WHERE "config" LIKE ? OR "state" LIKE ?`, ['%enc:v1:%', 'enc:v1:%']);
    return Number(rows[0]?.n ?? 0) > 0;
  }

  /** Sources with sealed values this key cannot open: config fields and/or the runtime state. */
  async unreadable(): Promise<{ name: string; fields: string[]; state: boolean }[]> {
    const out: { name: string; fields: string[]; state: boolean }[] = [];
    for (const r of await this.#db.all(`SELECT "name", "type", "config", "state" FROM "sources" ORDER BY "name"`)) {
      const fields = this.#unseal(String(r.type), r.config).unreadable;
      const state = SecretBox.isSealed(r.state) && !this.#box.opens(r.state);
      if (fields.length || state) out.push({ name: String(r.name), fields, state });
    }
    return out;
  }

  /** Drops the sealed values of a source this key cannot open (its config fields and its state). */
  async dropUnreadableSecrets(name: string): Promise<void> {
    const rows = await this.#db.all(`SELECT "id", "type", "config", "state" FROM "sources" WHERE "name" = ?`, [name]);
    const r = rows[0];
    if (!r) throw new NotFoundError(`no source named '${name}'`);
    const cfg = parseJson<Record<string, unknown>>(r.config, {});
    for (const k of this.#secretKeys(String(r.type))) if (SecretBox.isSealed(cfg[k]) && !this.#box.opens(cfg[k])) delete cfg[k];
    const state = SecretBox.isSealed(r.state) && !this.#box.opens(r.state) ? '{}' : r.state;
    await this.#db.run(`UPDATE "sources" SET "config" = ?, "state" = ?, "updated_at" = ? WHERE "id" = ?`, [JSON.stringify(cfg), state, nowIso(), r.id]);
  }

  /** Whether the source's runtime state can be read with this key. */
  async stateReadable(sourceId: string): Promise<boolean> {
    const rows = await this.#db.all(`SELECT "state" FROM "sources" WHERE "id" = ?`, [sourceId]);
    const raw = rows[0]?.state;
    return !SecretBox.isSealed(raw) || this.#box.opens(raw);
  }

  /** Runtime state of a source (tokens): sealed as a whole. */
  async getState(sourceId: string): Promise<Record<string, unknown>> {
    const rows = await this.#db.all(`SELECT "state" FROM "sources" WHERE "id" = ?`, [sourceId]);
    const raw = rows[0]?.state;
    if (SecretBox.isSealed(raw)) return JSON.parse(this.#box.decrypt(raw));
    return parseJson(raw, {});
  }

  async setState(sourceId: string, state: Record<string, unknown>): Promise<void> {
    await this.#db.run(`UPDATE "sources" SET "state" = ? WHERE "id" = ?`, [this.#box.encrypt(JSON.stringify(state)), sourceId]);
  }

  /** Deletes a source with all its records, runs, checkpoints, file imports, upload tokens and exports, in one transaction; returns what it was. */
  async delete(name: string): Promise<SourceRecord> {
    const s = await this.get(name);
    await this.#db.transaction(async (tx) => {
      for (const m of MODEL_NAMES) await tx.run(`DELETE FROM ${q(tableOf(m))} WHERE "source_id" = ?`, [s.id]);
      await tx.run(`DELETE FROM "changes" WHERE "source_id" = ?`, [s.id]);
      await tx.run(`DELETE FROM "checkpoints" WHERE "source_id" = ?`, [s.id]);
      await tx.run(`DELETE FROM "sync_runs" WHERE "source_id" = ?`, [s.id]);
      await tx.run(`DELETE FROM "file_imports" WHERE "source_id" = ?`, [s.id]);
      await tx.run(`DELETE FROM "upload_tokens" WHERE "source_id" = ?`, [s.id]);
      await tx.run(`DELETE FROM "remediation_tickets" WHERE "source_id" = ?`, [s.id]);
      await tx.run(`DELETE FROM "remediation_ticket_log" WHERE "source_id" = ?`, [s.id]);
      await deleteSourceExports(tx, s.id);
      await dropSummaries(tx, s.id);
      await dropOpenAges(tx, s.id);
      await dropFixFacts(tx, s.id);
      await dropCvePairs(tx, s.id);
      await tx.run(`DELETE FROM "sources" WHERE "id" = ?`, [s.id]);
    });
    forgetSummaries(s.id);
    forgetCvePairs(s.id);
    // Its hosts and CMDB records leave their assets (overrides stay: a source added again under its name has the same record ids).
    if (await anyAssets(this.#db)) await correlateEverything(this.#db);
    return s;
  }
}
