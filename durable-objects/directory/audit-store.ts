// The EventDirectory's append-only record of organizer writes, and each event's configuration
// version (the `ETag` of the organizer API) with the lease of the edit under way.
// A conditional edit names the version it read (`If-Match`); version 0 is an event never edited
// since versions exist, or no event at all.
import { EDIT_LEASE_MS, type AuditEntry, type AuditInput, type BeginEditAnswer } from '../../contracts/organizer-access';
import type { Sql } from '../shared/sql';

interface AuditRow {
  id: number;
  event_id: string;
  at: number;
  actor_kind: string;
  actor_id: string;
  actor_label: string;
  action: string;
  changes: string;
  request_id: string;
}

interface VersionRow {
  version: number;
  edit_id: string | null;
  edit_fp: string | null;
  edit_until: number | null;
}

/** Audit and version tables of the EventDirectory. Nothing here updates or deletes an audit row. */
export class AuditStore {
  constructor(private readonly sql: Sql) {}

  /**
   * Appends an entry once per `entryKey` (an edge retry of the same append adds nothing).
   * @returns the entry's id
   */
  append(entryKey: string, entry: AuditInput, nowMs: number): number {
    this.sql.run`INSERT INTO dir_audit (entry_key, event_id, at, actor_kind, actor_id, actor_label, action, changes, request_id)
      VALUES (${entryKey}, ${entry.eventId}, ${nowMs}, ${entry.actor.kind}, ${entry.actor.id}, ${entry.actor.label}, ${entry.action},
        ${JSON.stringify(entry.changes)}, ${entry.requestId}) ON CONFLICT (entry_key) DO NOTHING`;
    return this.sql.one<{ id: number }>`SELECT id FROM dir_audit WHERE entry_key = ${entryKey}`!.id;
  }

  /** One event's entries (or '' for organization-wide ones) with id > `after`, oldest first. */
  page(eventId: string, after: number, limit: number): AuditEntry[] {
    return this.sql.all<AuditRow>`SELECT * FROM dir_audit WHERE event_id = ${eventId} AND id > ${after} ORDER BY id LIMIT ${limit}`.map(
      (r) => ({
        id: r.id,
        eventId: r.event_id,
        at: r.at,
        actor: { kind: r.actor_kind as AuditEntry['actor']['kind'], id: r.actor_id, label: r.actor_label },
        action: r.action,
        changes: JSON.parse(r.changes) as AuditEntry['changes'],
        requestId: r.request_id,
      }),
    );
  }

  /** The event's configuration version; 0 before its first versioned edit (or for no event at all). */
  version(eventId: string): number {
    return this.versionRow(eventId)?.version ?? 0;
  }

  /**
   * Takes the event's edit lease if `ifMatch` (when given) is the current version and no other
   * edit holds an unexpired lease. A conditional edit that finds another edit under way is stale:
   * that edit is about to change the version it names. The same request again (same
   * `fingerprint`: method, body and If-Match) takes the lease over, so an edit whose Worker died
   * midway completes when it is sent again, as a PUT always did.
   */
  beginEdit(
    eventId: string,
    ifMatch: readonly number[] | 'any' | null,
    edit: { editId: string; fingerprint: string },
    nowMs: number,
  ): BeginEditAnswer {
    const row = this.versionRow(eventId);
    const version = row?.version ?? 0;
    const editing = row?.edit_id != null && (row.edit_until ?? 0) > nowMs && row.edit_fp !== edit.fingerprint;
    if (ifMatch !== null) {
      // `*` needs an existing event: the edge checks that once it holds the lease.
      const matches = ifMatch === 'any' || ifMatch.includes(version);
      if (!matches || editing) return { kind: 'stale', version, editing };
    } else if (editing) {
      return { kind: 'busy', retryAfterS: Math.max(1, Math.ceil(((row?.edit_until ?? 0) - nowMs) / 1000)) };
    }
    this.sql.run`INSERT INTO dir_config_versions (event_id, version, edit_id, edit_fp, edit_until)
      VALUES (${eventId}, ${version}, ${edit.editId}, ${edit.fingerprint}, ${nowMs + EDIT_LEASE_MS})
      ON CONFLICT (event_id) DO UPDATE SET edit_id = excluded.edit_id, edit_fp = excluded.edit_fp, edit_until = excluded.edit_until`;
    return { kind: 'ok', version };
  }

  /**
   * Ends the edit `editId`: raises the version, gives the lease back and appends the edit's audit
   * entry, in one transaction. (A lease that ran out and was taken over stays with its new holder;
   * the change was still made, so the version rises all the same.)
   * @returns the new version
   */
  finishEdit(eventId: string, editId: string, entryKey: string, entry: AuditInput, nowMs: number): number {
    // A retried finish (its entry is in already) changes nothing more.
    if (this.sql.one`SELECT 1 FROM dir_audit WHERE entry_key = ${entryKey}`) return this.version(eventId);
    const version = this.version(eventId) + 1;
    this.sql.run`INSERT INTO dir_config_versions (event_id, version) VALUES (${eventId}, ${version})
      ON CONFLICT (event_id) DO UPDATE SET version = excluded.version`;
    this.abortEdit(eventId, editId);
    this.append(entryKey, entry, nowMs);
    return version;
  }

  /** Gives the lease back after a refused edit; the version stays. */
  abortEdit(eventId: string, editId: string): void {
    this.sql
      .run`UPDATE dir_config_versions SET edit_id = NULL, edit_fp = NULL, edit_until = NULL WHERE event_id = ${eventId} AND edit_id = ${editId}`;
  }

  private versionRow(eventId: string): VersionRow | null {
    return this.sql.one<VersionRow>`SELECT version, edit_id, edit_fp, edit_until FROM dir_config_versions WHERE event_id = ${eventId}`;
  }
}
