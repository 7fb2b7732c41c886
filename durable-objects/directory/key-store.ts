// The EventDirectory's named organizer keys: SHA-256 hashes only, never a key itself.
import {
  KEY_LAST_USED_STEP_MS,
  type KeyCheckAnswer,
  type OrganizerKeyView,
  type OrganizerRole,
  type RevokeKeyAnswer,
} from '../../contracts/organizer-access';
import type { Sql } from '../shared/sql';

interface KeyRow {
  key_id: string;
  label: string;
  role: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

function view(r: KeyRow): OrganizerKeyView {
  return {
    keyId: r.key_id,
    label: r.label,
    role: r.role as OrganizerRole,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  };
}

/** Keys table access for the EventDirectory (one instance holds every key of the deployment). */
export class KeyStore {
  constructor(private readonly sql: Sql) {}

  /** Stores a new key by its hash. The edge made the key and its id; both are random, so no conflict is expected. */
  create(key: { keyId: string; keyHash: string; label: string; role: OrganizerRole }, nowMs: number): OrganizerKeyView {
    this.sql
      .run`INSERT INTO dir_keys (key_id, key_hash, label, role, created_at) VALUES (${key.keyId}, ${key.keyHash}, ${key.label}, ${key.role}, ${nowMs})`;
    return view(this.row(key.keyId)!);
  }

  /** Every key, newest first, revoked ones included (at most 1,000). */
  list(): OrganizerKeyView[] {
    return this.sql
      .all<KeyRow>`SELECT key_id, label, role, created_at, last_used_at, revoked_at FROM dir_keys ORDER BY created_at DESC, key_id LIMIT 1000`.map(
      view,
    );
  }

  /**
   * The key with this hash. Its last-used time is written only when the stored one is older than
   * KEY_LAST_USED_STEP_MS, so a busy key costs a read per check and a write per minute.
   */
  authenticate(keyHash: string, nowMs: number): KeyCheckAnswer {
    const row = this.sql
      .one<KeyRow>`SELECT key_id, label, role, created_at, last_used_at, revoked_at FROM dir_keys WHERE key_hash = ${keyHash}`;
    if (!row) return { kind: 'unknown' };
    if (row.revoked_at !== null) return { kind: 'revoked', keyId: row.key_id };
    if (row.last_used_at === null || row.last_used_at <= nowMs - KEY_LAST_USED_STEP_MS) {
      this.sql.run`UPDATE dir_keys SET last_used_at = ${nowMs} WHERE key_id = ${row.key_id}`;
      row.last_used_at = nowMs;
    }
    return { kind: 'ok', key: view(row) };
  }

  /** Revokes a key for good (idempotent: a second revoke keeps the first time). */
  revoke(keyId: string, nowMs: number): RevokeKeyAnswer {
    this.sql.run`UPDATE dir_keys SET revoked_at = ${nowMs} WHERE key_id = ${keyId} AND revoked_at IS NULL`;
    const row = this.row(keyId);
    return row ? { kind: 'revoked', key: view(row) } : { kind: 'not_found' };
  }

  private row(keyId: string): KeyRow | null {
    return this.sql.one<KeyRow>`SELECT key_id, label, role, created_at, last_used_at, revoked_at FROM dir_keys WHERE key_id = ${keyId}`;
  }
}
