// Organizer API for an event's configuration: read it with its version (`ETag`), replace it
// (`PUT`) or change some fields (`PATCH`, JSON Merge Patch), each optionally conditional on
// `If-Match`, whole or not at all, with the field-by-field change in the audit record; either
// checked without writing with `?dryRun=true` (event-dry-run.ts).
import { Hono, type Context } from 'hono';
import * as z from 'zod/mini';
import { eventConfigInput, type EventConfigInput } from '../../contracts/event-input';
import { signInUrlProblem } from '../../contracts/entry';
import { accountSecrets, currentAccountKeyId } from '../lib/entry-token';
import { configureEvent } from '../lib/event-setup';
import { inventoryFor } from '../lib/inventory-router';
import { GatewayError } from '../lib/errors';
import { forgetCursor } from '../lib/cursor-cache';
import { claimRoom, roomClaim } from '../lib/room-claims';
import { defaultCache } from '../lib/room-table';
import { configEtag, mergePatch, parseIfMatch } from '../lib/config-edits';
import { fieldChanges } from '../lib/organizer-audit';
import { MAX_CONFIG_BODY_BYTES, parseJsonBody, readJsonBody } from '../lib/validate';
import { auditEntry } from '../middleware/organizer-auth';
import { eventIdParam, newEventIdParam, type AppEnv } from '../types';
import { call, directory, readEvent, stale } from './event-reads';
import { dryRun, wantsDryRun } from './event-dry-run';

/** `/_wr/admin/events/{eventId}`: GET, PUT and PATCH. */
export const eventEditsApi = new Hono<AppEnv>();

eventEditsApi.get('/events/:eventId', async (c) => {
  const eventId = eventIdParam(c);
  // The version is read before the configuration: a change in between makes the ETag older than
  // what is shown, so an edit based on it is refused (412), never applied over the change.
  const version = await call('directory.configVersion', eventId, async () => directory(c).configVersion(eventId));
  const { pending, event } = await readEvent(c, eventId);
  if (pending) {
    throw new GatewayError('EVENT_NOT_FOUND', {
      detail: 'the creation of this event did not finish; send the PUT again to complete or replace it',
    });
  }
  if (!event) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
  c.header('cache-control', 'no-store');
  c.header('etag', configEtag(version));
  return c.json({ eventId, ...event });
});

eventEditsApi.put('/events/:eventId', async (c) => {
  const eventId = newEventIdParam(c);
  const ifMatch = parseIfMatch(c.req.header('if-match'));
  if (wantsDryRun(c)) {
    const body = await readJsonBody(c.req.raw, z.unknown(), MAX_CONFIG_BODY_BYTES);
    return dryRun(c, eventId, ifMatch, () => body);
  }
  const input = await readJsonBody(c.req.raw, eventConfigInput, MAX_CONFIG_BODY_BYTES);
  return edit(
    c,
    eventId,
    { ifMatch, fingerprint: await digest(['PUT', c.req.header('if-match') ?? '', JSON.stringify(input)]) },
    () => input,
  );
});

/** A JSON Merge Patch of the configuration: an object (RFC 7396 allows any value; only an object can leave a valid configuration). */
export const patchBody = z.record(z.string(), z.unknown());

eventEditsApi.patch('/events/:eventId', async (c) => {
  const eventId = eventIdParam(c);
  const ifMatch = parseIfMatch(c.req.header('if-match'));
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/merge-patch+json' && type !== 'application/json')
    throw new GatewayError('INVALID_REQUEST', { detail: 'PATCH takes a JSON Merge Patch (Content-Type: application/merge-patch+json)' });
  const patch = await readJsonBody(c.req.raw, patchBody, MAX_CONFIG_BODY_BYTES);
  if (wantsDryRun(c)) {
    return dryRun(c, eventId, ifMatch, (current) => {
      if (!current) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"; create it with PUT` });
      return mergePatch(current, patch);
    });
  }
  const fingerprint = await digest(['PATCH', c.req.header('if-match') ?? '', JSON.stringify(patch)]);
  return edit(c, eventId, { ifMatch, fingerprint }, (current) => {
    if (!current) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"; create it with PUT` });
    // The merged configuration passes the very checks a PUT body does.
    return parseJsonBody(JSON.stringify(mergePatch(current, patch)), eventConfigInput, MAX_CONFIG_BODY_BYTES);
  });
});

/**
 * One edit: takes the event's edit lease in the EventDirectory (checking `If-Match`), reads the
 * configuration under it, applies the new one whole or not at all (src/lib/event-setup.ts), and
 * ends the edit with the new version and its audit entry. A refused or failed edit gives the
 * lease back and records nothing; so does one that changes nothing. The same request sent again
 * while its first attempt holds the lease (a Worker that died midway) takes the lease over.
 * @throws GatewayError VERSION_MISMATCH (412, as a response with the current ETag), CONFIG_CONFLICT
 *   (409 with Retry-After: an unconditional edit while another is under way), and what `configure` throws
 */
async function edit(
  c: Context<AppEnv>,
  eventId: string,
  request: { ifMatch: ReturnType<typeof parseIfMatch>; fingerprint: string },
  makeInput: (current: Record<string, unknown> | null) => EventConfigInput,
): Promise<Response> {
  const { ifMatch, fingerprint } = request;
  const editId = crypto.randomUUID();
  const begun = await call('directory.beginEdit', eventId, async () => directory(c).beginEdit(eventId, ifMatch, { editId, fingerprint }));
  if (begun.kind === 'stale') return stale(begun.version, begun.editing);
  if (begun.kind === 'busy') {
    throw new GatewayError('CONFIG_CONFLICT', {
      detail: 'another change to this event is in progress; retry after it',
      retryAfterS: begun.retryAfterS,
    });
  }
  let finished = false;
  try {
    const { event } = await readEvent(c, eventId);
    if (ifMatch === 'any' && !event) return stale(begun.version, false);
    const before = event?.config ?? null;
    const input = makeInput(before);
    const { created, config } = await configure(c, eventId, input);
    const changes = fieldChanges(before ?? undefined, config);
    let version = begun.version;
    if (changes.length > 0) {
      const audit = auditEntry(c, eventId, created ? 'event.create' : 'event.update', changes);
      version = await call('directory.finishEdit', eventId, async () => directory(c).finishEdit(eventId, editId, audit));
      finished = true;
    }
    c.header('etag', configEtag(version));
    return c.json({ eventId, created, config }, created ? 201 : 200);
  } finally {
    if (!finished) await call('directory.abortEdit', eventId, async () => directory(c).abortEdit(eventId, editId));
  }
}

/** Applies a validated configuration to the event's objects (configureEvent) and the room table. */
async function configure(c: Context<AppEnv>, eventId: string, input: EventConfigInput) {
  const claim = roomClaim(eventId, input);
  const accountKey = await entryAccountKey(c, input.entry, claim.room.patterns);
  const room = c.env.WAITING_ROOM.getByName(eventId);
  const inventory = inventoryFor(c.env, eventId, { kind: 'event' });
  const dir = directory(c);
  const { created, config } = await configureEvent(
    {
      room: {
        configure: (config, dryRun) =>
          call('waitingRoom.configure', eventId, async () =>
            room.configure(
              config.entry && accountKey ? { ...config, entry: { ...config.entry, accountKeyId: accountKey } } : config,
              dryRun,
            ),
          ),
      },
      inventory: {
        beginChange: (request) => call('inventory.beginChange', eventId, async () => inventory.beginChange(request)),
        finishChange: (id) => call('inventory.finishChange', eventId, async () => inventory.finishChange(id)),
        abortChange: (id) => call('inventory.abortChange', eventId, async () => inventory.abortChange(id)),
      },
      section: (section) => {
        const part = inventoryFor(c.env, eventId, { kind: 'section', section });
        return {
          beginChange: (request) => call('inventory.beginChange', eventId, async () => part.beginChange(request)),
          finishChange: (id) => call('inventory.finishChange', eventId, async () => part.finishChange(id)),
          abortChange: (id) => call('inventory.abortChange', eventId, async () => part.abortChange(id)),
        };
      },
      directory: { register: (id, name) => call('directory.register', eventId, async () => dir.register(id, name)) },
      // The room's URL patterns, claimed while the change holds the event.
      routes: { claim: () => claimRoom(c.env, claim) },
    },
    eventId,
    input,
  );
  await forgetCursor(eventId);
  // This isolate and data centre route by the new table at once; other isolates within 5 s.
  await c.var.rooms.forget(defaultCache());
  return { created, config: { ...config, patterns: claim.room.patterns, bypass: claim.room.bypass } };
}

/**
 * An entry requirement's checks before anything is written: the sign-in URL on the room's own
 * site (contracts/entry.ts signInUrlProblem), and the id of the account hash secret to pin.
 * @returns the key id to pin, or null for an open event
 * @throws GatewayError SIGN_IN_URL_INVALID (400) naming the problem; Error naming ACCOUNT_HASH_SECRET when it is unset
 */
async function entryAccountKey(c: Context<AppEnv>, entry: EventConfigInput['entry'], patterns: readonly string[]): Promise<string | null> {
  if (!entry) return null;
  const problem = signInUrlProblem(entry.signInUrl, patterns);
  if (problem) throw new GatewayError('SIGN_IN_URL_INVALID', { detail: `entry.signInUrl ${JSON.stringify(entry.signInUrl)}: ${problem}` });
  return currentAccountKeyId(accountSecrets(c.env));
}

/** SHA-256 (hex) of the parts, to tell the same edit request from another. */
async function digest(parts: string[]): Promise<string> {
  const hash = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(parts.join('\n')));
  return [...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
