// The audit record's pure parts: a field-by-field diff of two configurations (secrets never shown)
// and the CSV export.
import type { AuditEntry, FieldChange } from '../../contracts/organizer-access';

/** Fields whose values never enter the audit, whatever object they sit in (the change is shown, the value is not). */
const SECRET_FIELD = /secret|token|password|hmac|private|(^|\.)key$/i;
/** What the audit shows instead of a secret value. */
export const REDACTED = '[redacted]';

/**
 * Longest text value the audit keeps as it is, characters. A longer one (a waiting page
 * template, up to 32 KiB) is recorded by its length and a fingerprint: an append-only log that
 * copied both versions of every edit would grow by 64 KiB a save, and its export with it.
 */
export const MAX_AUDIT_TEXT = 1_000;

/** FNV-1a, 32 bits, of the string's UTF-16 units, as 8 hex digits: tells two versions apart (not a security check). */
function fingerprint(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** `v` with every string over MAX_AUDIT_TEXT replaced by its length and fingerprint, at any depth. */
function auditValue(v: unknown): unknown {
  if (typeof v === 'string')
    return v.length > MAX_AUDIT_TEXT ? `[${v.length.toLocaleString('en-US')} characters, fingerprint ${fingerprint(v)}]` : v;
  if (Array.isArray(v)) return v.map(auditValue);
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, auditValue(x)]));
  return v;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The changed fields between two JSON values, as dotted paths (`tiers.0.priceMinor`, `page.title`),
 * in a stable order. Objects are compared member by member; arrays element by element when both
 * sides are arrays of the same length, else as a whole. A field whose name looks secret
 * (SECRET_FIELD) is listed with REDACTED values; a text over MAX_AUDIT_TEXT characters by its
 * length and fingerprint.
 * @param before the old value (undefined: nothing before, e.g. a new event)
 */
export function fieldChanges(before: unknown, after: unknown, path = ''): FieldChange[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  const bothObjects = isPlainObject(before) && isPlainObject(after);
  const sameArrays = Array.isArray(before) && Array.isArray(after) && before.length === after.length;
  if (bothObjects || sameArrays || (path === '' && (isPlainObject(after) || isPlainObject(before)))) {
    const b = (before ?? {}) as Record<string, unknown>;
    const a = (after ?? {}) as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort();
    return keys.flatMap((k) => fieldChanges(b[k], a[k], path ? `${path}.${k}` : k));
  }
  const secret = SECRET_FIELD.test(path);
  return [
    {
      field: path,
      ...(before === undefined ? {} : { from: secret ? REDACTED : auditValue(before) }),
      ...(after === undefined ? {} : { to: secret ? REDACTED : auditValue(after) }),
    },
  ];
}

/** Most entries in one export. */
export const MAX_EXPORT_ENTRIES = 10_000;

/** RFC 4180 field; a cell a spreadsheet would run as a formula (= + - @ at the start) is quoted with a leading `'`. */
function csvCell(v: unknown): string {
  let s = v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replaceAll('"', '""')}"` : s;
}

/** CSV columns of the export: one row per changed field (an entry without fields gets one row). */
const AUDIT_CSV_COLUMNS = ['id', 'at', 'eventId', 'actorKind', 'actorId', 'actorLabel', 'action', 'field', 'from', 'to', 'requestId'];

/** The entries as CSV (RFC 4180, CRLF line ends, a header row); values JSON-encoded unless strings; times ISO 8601 UTC. */
export function auditCsv(entries: readonly AuditEntry[]): string {
  const rows = [AUDIT_CSV_COLUMNS.join(',')];
  for (const e of entries) {
    const head = [e.id, new Date(e.at).toISOString(), e.eventId, e.actor.kind, e.actor.id, e.actor.label, e.action];
    const fields = e.changes.length > 0 ? e.changes : [{ field: '' } as FieldChange];
    for (const f of fields) rows.push([...head, f.field, f.from, f.to, e.requestId].map(csvCell).join(','));
  }
  return rows.join('\r\n') + '\r\n';
}
