// Organizer API for access itself: who am I, named keys (created, listed, revoked), and the audit
// record of organizer writes (paged, or exported as CSV or JSON). Mounted under `/_wr/admin`.
import { Hono, type Context } from 'hono';
import * as z from 'zod/mini';
import { plainText } from '../../contracts/zod';
import { DIRECTORY_NAME } from '../../contracts/names';
import { ORGANIZER_ROLES, type AuditEntry, type OrganizerKeyView, type RevokeKeyAnswer } from '../../contracts/organizer-access';
import { callDurableObject } from '../lib/do-call';
import { GatewayError } from '../lib/errors';
import { newOrganizerKey } from '../lib/organizer-keys';
import { MAX_EXPORT_ENTRIES, auditCsv } from '../lib/organizer-audit';
import { readJsonBody } from '../lib/validate';
import { auditEntry } from '../middleware/organizer-auth';
import { eventIdParam, type AppEnv } from '../types';

const directory = (c: Context<AppEnv>) => c.env.DIRECTORY.getByName(DIRECTORY_NAME);
function call<T>(name: string, run: () => Promise<T>): Promise<T> {
  return callDurableObject(run, { idempotent: true, name: `directory.${name}` });
}

/** Body of `POST /_wr/admin/keys`. */
export const newKeyBody = z.strictObject({ label: plainText(1, 100), role: z.enum(ORGANIZER_ROLES) });
const KEY_ID = /^[0-9a-f]{12}$/;

/** Mounted under `/_wr/admin` (behind organizerAuth). */
export const organizerAccessApi = new Hono<AppEnv>();

organizerAccessApi.get('/me', (c) => c.json(c.var.organizer));

organizerAccessApi.get('/keys', async (c) =>
  c.json({ keys: await call<OrganizerKeyView[]>('listKeys', async () => directory(c).listKeys()) }),
);

organizerAccessApi.post('/keys', async (c) => {
  const { label, role } = await readJsonBody(c.req.raw, newKeyBody);
  const { keyId, key, keyHash } = await newOrganizerKey();
  // The key itself is in this answer only: the directory keeps its hash, the audit its label and role.
  const audit = auditEntry(c, '', 'key.create', [
    { field: 'keyId', to: keyId },
    { field: 'label', to: label },
    { field: 'role', to: role },
  ]);
  // Not retried: a second attempt would make a second key (the first answer may be lost).
  const view = await callDurableObject<OrganizerKeyView>(async () => directory(c).createKey({ keyId, keyHash, label, role }, audit), {
    idempotent: false,
    name: 'directory.createKey',
  });
  return c.json({ ...view, key }, 201);
});

organizerAccessApi.delete('/keys/:keyId', async (c) => {
  const keyId = c.req.param('keyId');
  if (!KEY_ID.test(keyId)) throw new GatewayError('KEY_NOT_FOUND', { detail: 'key ids are 12 hex digits' });
  // The directory adds the key's label, role and revocation time (known only inside its transaction).
  const audit = auditEntry(c, '', 'key.revoke', [{ field: 'keyId', from: keyId }]);
  const answer = await call<RevokeKeyAnswer>('revokeKey', async () => directory(c).revokeKey(keyId, audit));
  if (answer.kind === 'not_found') throw new GatewayError('KEY_NOT_FOUND', { detail: `no organizer key ${keyId}` });
  // This isolate refuses the key at once; others within KEY_CACHE_MS.
  c.var.organizerKeys.forget(keyId);
  return c.json(answer.key);
});

/**
 * A page of the audit (`after`, `limit`), or with `format=csv|json` every entry (at most
 * MAX_EXPORT_ENTRIES) as a download.
 */
async function auditAnswer(c: Context<AppEnv>, eventId: string): Promise<Response> {
  const format = c.req.query('format');
  if (format !== undefined && format !== 'csv' && format !== 'json')
    throw new GatewayError('INVALID_REQUEST', { detail: 'format must be csv or json' });
  const after = Number(c.req.query('after') ?? 0);
  const limit = Number(c.req.query('limit') ?? 100);
  if (!Number.isInteger(after) || after < 0 || !Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new GatewayError('INVALID_REQUEST', { detail: 'after must be a whole number >= 0, limit 1-1000' });
  }
  c.header('cache-control', 'no-store');
  if (format === undefined) {
    const entries = await call<AuditEntry[]>('auditPage', async () => directory(c).auditPage(eventId, after, limit));
    const last = entries.at(-1);
    return c.json({ entries, next: entries.length === limit && last ? last.id : null });
  }
  const entries: AuditEntry[] = [];
  for (let from = after; entries.length < MAX_EXPORT_ENTRIES;) {
    const page = await call<AuditEntry[]>('auditPage', async () => directory(c).auditPage(eventId, from, 1000));
    entries.push(...page);
    if (page.length < 1000) break;
    from = page.at(-1)!.id;
  }
  const name = `audit-${eventId || 'organization'}.${format}`;
  c.header('content-disposition', `attachment; filename="${name}"`);
  if (format === 'json') return c.json({ eventId: eventId || null, exportedAt: new Date().toISOString(), entries });
  return c.body(auditCsv(entries), 200, { 'content-type': 'text/csv; charset=utf-8' });
}

organizerAccessApi.get('/events/:eventId/changes', (c) => auditAnswer(c, eventIdParam(c)));
// Changes that belong to no event (keys).
organizerAccessApi.get('/changes', (c) => auditAnswer(c, ''));
