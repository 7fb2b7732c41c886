// EventDirectory Durable Object: the list of configured events, for the organizer dashboard, and
// the room table (which event covers which URL patterns) every gateway isolate routes by, and the
// organizer keys and audit log. A thin adapter over its stores in directory/.
import { DurableObject } from 'cloudflare:workers';
import type { RoomRules } from '../contracts/room-patterns';
import type { ClaimAnswer, RoomClaim, RoomTable } from '../contracts/room-table';
import { Sql } from './shared/sql';
import { migrateSchema, SCHEMAS } from './shared/schemas';
import type {
  AuditEntry,
  AuditInput,
  BeginEditAnswer,
  KeyCheckAnswer,
  OrganizerKeyView,
  OrganizerRole,
  RevokeKeyAnswer,
} from '../contracts/organizer-access';
import { KeyStore } from './directory/key-store';
import { AuditStore } from './directory/audit-store';
import { EventStore, type DirectoryEntry } from './directory/event-store';
import { RoomTableStore } from './directory/room-table-store';

/** One instance (DIRECTORY_NAME) remembers every event the organizer API created; it decides nothing. */
export class EventDirectory extends DurableObject<Env> {
  private readonly events: EventStore;
  private readonly rooms: RoomTableStore;
  private readonly keys: KeyStore;
  private readonly audit: AuditStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = new Sql(ctx.storage.sql);
    this.events = new EventStore(sql);
    this.rooms = new RoomTableStore(sql);
    this.keys = new KeyStore(sql);
    this.audit = new AuditStore(sql);
    void ctx.blockConcurrencyWhile(async () => migrateSchema(ctx.storage, SCHEMAS.directory));
  }

  /** Adds or renames an event. */
  async register(eventId: string, name: string): Promise<void> {
    this.events.register(eventId, name, Date.now());
  }

  /** Every event, most recently changed first (at most 500). */
  async list(): Promise<DirectoryEntry[]> {
    return this.events.list();
  }

  /** Which other event holds any of these pattern keys, or null when all are free for `eventId`. */
  async checkRoom(eventId: string, keys: string[]): Promise<{ key: string; eventId: string } | null> {
    return this.rooms.takenBy(eventId, keys);
  }

  /**
   * Replaces the event's room (patterns and bypass rules) in one transaction, if no other event
   * holds any of its pattern keys; bumps the table version.
   */
  async claimRoom(claim: RoomClaim): Promise<ClaimAnswer> {
    const taken = this.rooms.takenBy(claim.room.eventId, claim.keys);
    if (taken) return { kind: 'taken', ...taken };
    const previous = this.rooms.claimOf(claim.room.eventId);
    const version = this.ctx.storage.transactionSync(() => this.rooms.replace(claim.room.eventId, claim));
    return { kind: 'claimed', previous, version };
  }

  /**
   * Puts back what `claimRoom` replaced (null: the event had no room) when the rest of a change
   * failed, but only while the event's room is still the one that claim wrote: a later change wins.
   * @returns whether it put the previous room back
   */
  async restoreRoom(eventId: string, previous: RoomClaim | null, claimed: RoomClaim): Promise<boolean> {
    const current = this.rooms.claimOf(eventId);
    if (!current || JSON.stringify(current.room) !== JSON.stringify(claimed.room)) return false;
    this.ctx.storage.transactionSync(() => this.rooms.replace(eventId, previous));
    return true;
  }

  /** One event's room, or null. */
  async room(eventId: string): Promise<RoomRules | null> {
    return this.rooms.claimOf(eventId)?.room ?? null;
  }

  /** The whole room table (gateway isolates cache it: src/lib/room-table.ts). */
  async roomTable(): Promise<RoomTable> {
    return { version: this.rooms.version(), rooms: this.rooms.rooms() };
  }

  /** Stores a named organizer key by its SHA-256 hash, and its audit entry, in one transaction. */
  async createKey(
    key: { keyId: string; keyHash: string; label: string; role: OrganizerRole },
    audit: { entryKey: string; entry: AuditInput },
  ): Promise<OrganizerKeyView> {
    const now = Date.now();
    return this.ctx.storage.transactionSync(() => {
      const created = this.keys.create(key, now);
      this.audit.append(audit.entryKey, audit.entry, now);
      return created;
    });
  }

  /** Every named key (never a hash). */
  async listKeys(): Promise<OrganizerKeyView[]> {
    return this.keys.list();
  }

  /** The key with this SHA-256 hash (`ok`, `revoked` or `unknown`); notes its last use to the minute. */
  async authenticateKey(keyHash: string): Promise<KeyCheckAnswer> {
    return this.keys.authenticate(keyHash, Date.now());
  }

  /**
   * Revokes a key and appends the audit entry, only when this call revoked it, with what was
   * revoked: the key's label and role, and the revocation time (ISO 8601).
   */
  async revokeKey(keyId: string, audit: { entryKey: string; entry: AuditInput }): Promise<RevokeKeyAnswer> {
    const now = Date.now();
    return this.ctx.storage.transactionSync(() => {
      const answer = this.keys.revoke(keyId, now);
      if (answer.kind === 'revoked' && answer.key.revokedAt === now) {
        const { label, role } = answer.key;
        const changes = [
          ...audit.entry.changes,
          { field: 'label', from: label },
          { field: 'role', from: role },
          { field: 'revokedAt', to: new Date(now).toISOString() },
        ];
        this.audit.append(audit.entryKey, { ...audit.entry, changes }, now);
      }
      return answer;
    });
  }

  /** Appends one audit entry (idempotent per `entryKey`); returns its id. */
  async appendAudit(entryKey: string, entry: AuditInput): Promise<number> {
    return this.audit.append(entryKey, entry, Date.now());
  }

  /** A page of an event's audit entries ('' for organization-wide ones) after id `after`, oldest first. */
  async auditPage(eventId: string, after: number, limit: number): Promise<AuditEntry[]> {
    return this.audit.page(eventId, after, limit);
  }

  /** The event's configuration version (0: never edited with versions, or no such event). */
  async configVersion(eventId: string): Promise<number> {
    return this.audit.version(eventId);
  }

  /** Takes the edit lease of an event's configuration, checking `If-Match` (src/lib/config-edits.ts). */
  async beginEdit(
    eventId: string,
    ifMatch: number[] | 'any' | null,
    edit: { editId: string; fingerprint: string },
  ): Promise<BeginEditAnswer> {
    return this.audit.beginEdit(eventId, ifMatch, edit, Date.now());
  }

  /** Ends an edit that changed the configuration: the version rises and its audit entry is appended. */
  async finishEdit(eventId: string, editId: string, audit: { entryKey: string; entry: AuditInput }): Promise<number> {
    const now = Date.now();
    return this.ctx.storage.transactionSync(() => this.audit.finishEdit(eventId, editId, audit.entryKey, audit.entry, now));
  }

  /** Gives back the lease of an edit that was refused: nothing changed, nothing is recorded. */
  async abortEdit(eventId: string, editId: string): Promise<void> {
    this.audit.abortEdit(eventId, editId);
  }
}
