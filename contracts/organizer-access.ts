// What the edge and the EventDirectory share about organizer access: the roles, named keys and
// the audit record of organizer writes.

/** Organizer roles, weakest first: each role may do everything the roles before it may. */
export const ORGANIZER_ROLES = ['viewer', 'operator', 'admin'] as const;

/** `viewer` reads numbers and reports; `operator` also pauses, resumes, closes and fixes the rate; `admin` also configures events, channels and keys. */
export type OrganizerRole = (typeof ORGANIZER_ROLES)[number];

/** Whether `have` may do what `need` may. */
export function roleCovers(have: OrganizerRole, need: OrganizerRole): boolean {
  return ORGANIZER_ROLES.indexOf(have) >= ORGANIZER_ROLES.indexOf(need);
}

/** A named organizer key as listed: never its secret or its hash. Times epoch ms. */
export interface OrganizerKeyView {
  keyId: string;
  label: string;
  role: OrganizerRole;
  createdAt: number;
  /** Last request with the key, to the minute (KEY_LAST_USED_STEP_MS); null when never used. */
  lastUsedAt: number | null;
  /** null while the key works. */
  revokedAt: number | null;
}

/** `EventDirectory.authenticateKey` answer. */
export type KeyCheckAnswer = { kind: 'ok'; key: OrganizerKeyView } | { kind: 'revoked'; keyId: string } | { kind: 'unknown' };

/** `EventDirectory.revokeKey` answer (revoking a revoked key again answers `revoked` with the first time). */
export type RevokeKeyAnswer = { kind: 'revoked'; key: OrganizerKeyView } | { kind: 'not_found' };

/** A key's last-used time is written at most once per this many ms (a read per request, a write per minute). */
export const KEY_LAST_USED_STEP_MS = 60_000;

/** Who made an organizer request. */
interface OrganizerActor {
  /** `key`: a named key; `bootstrap`: ADMIN_TOKEN; `sso`: a Cloudflare Access identity. */
  kind: 'key' | 'bootstrap' | 'sso';
  /** The key id, `admin-token`, or the SSO email. */
  id: string;
  /** The key's label, `ADMIN_TOKEN`, or the SSO email. */
  label: string;
}

/** The caller of an organizer request and their role. */
export interface Organizer {
  role: OrganizerRole;
  actor: OrganizerActor;
}

/** One changed field of an audit entry: a JSON path, the value before and after (absent = not set). */
export interface FieldChange {
  field: string;
  from?: unknown;
  to?: unknown;
}

/** An audit entry to append: no id or time (the directory assigns both). */
export interface AuditInput {
  /** The event changed, or '' for organization-wide changes (keys). */
  eventId: string;
  actor: OrganizerActor;
  /** What was done, e.g. `event.update`, `event.pause`, `key.create`. */
  action: string;
  changes: FieldChange[];
  /** The request's id (`cf-ray`, else one the gateway made up). */
  requestId: string;
}

/** A stored audit entry. `id` increases with every entry of the directory; `at` epoch ms. */
export interface AuditEntry extends AuditInput {
  id: number;
  at: number;
}

/** Configuration edits: the version an `ETag` names, and what a conditional edit may find. */
export type BeginEditAnswer =
  | { kind: 'ok'; version: number }
  /** `If-Match` named another version, or another edit is under way (it will change the version). */
  | { kind: 'stale'; version: number; editing: boolean }
  /** Another unconditional edit is under way. */
  | { kind: 'busy'; retryAfterS: number };

/** How long an edit holds its event's configuration before another may take it over (a crashed edit). */
export const EDIT_LEASE_MS = 30_000;
