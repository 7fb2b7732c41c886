// An edit of an event's configuration checked without writing anything (`?dryRun=true` on PUT and
// PATCH): the answer the edit would get, with every problem of the body named by its field path,
// or what it would change. The console's editor calls it as the organizer types.
import type { Context } from 'hono';
import { joinConfig, planShape, splitConfig } from '../../contracts/event-config';
import { eventConfigInput, type EventConfigInput } from '../../contracts/event-input';
import { signInUrlProblem } from '../../contracts/entry';
import { configEtag, type parseIfMatch } from '../lib/config-edits';
import { GatewayError } from '../lib/errors';
import { issueError } from '../lib/validate';
import { fieldChanges } from '../lib/organizer-audit';
import { roomClaim } from '../lib/room-claims';
import type { AppEnv } from '../types';
import { call, directory, readEvent, stale } from './event-reads';

/** One problem of a configuration: a dotted field path (`body` for the whole) and zod's message; a template's problem adds its rule, line and column. */
interface FieldProblem {
  path: string;
  message: string;
  rule?: unknown;
  line?: unknown;
  column?: unknown;
}

/**
 * Whether the request asks for a dry run: `?dryRun=true`; absent or `false` is a real edit.
 * @throws GatewayError INVALID_REQUEST for any other value
 */
export function wantsDryRun(c: Context<AppEnv>): boolean {
  const v = c.req.query('dryRun');
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  throw new GatewayError('INVALID_REQUEST', { detail: 'dryRun must be true or false' });
}

/**
 * The configuration checked against the PUT body's schema, every problem listed (a real edit
 * names the first only: it stops there anyway).
 * @throws GatewayError INVALID_REQUEST (PAGE_TEMPLATE_INVALID when the first problem is the
 *   waiting page template's) with `errors: FieldProblem[]`, `detail` the first
 */
function checkedInput(candidate: unknown): EventConfigInput {
  const result = eventConfigInput.safeParse(candidate);
  if (result.success) return result.data;
  const errors: FieldProblem[] = result.error.issues.map((i) => {
    const { extra } = issueError(i);
    return {
      path: i.path.length > 0 ? i.path.join('.') : 'body',
      message: i.message,
      ...(extra ? { rule: extra.rule, line: extra.line, column: extra.column } : {}),
    };
  });
  const first = issueError(result.error.issues[0]!);
  throw new GatewayError(first.code, { detail: first.detail, extra: { ...first.extra, errors } });
}

/**
 * Runs an edit's checks without taking the edit lease or writing: `If-Match` against the current
 * version, the body (every problem), the URL patterns (their form, and that no other event covers
 * them), the sign-in URL, the WaitingRoom's rules (what may change once visitors joined) and the
 * fixed seat plan. Not checked: a change in flight from another edit (the real edit answers 409).
 * @param makeCandidate the configuration the edit would apply, from the current one (null: no event)
 * @returns 200 `{ eventId, dryRun: true, created, config, changes }` with the current `ETag`, or the
 *   412 answer of a stale `If-Match`
 * @throws GatewayError the 4xx the real edit would answer
 */
export async function dryRun(
  c: Context<AppEnv>,
  eventId: string,
  ifMatch: ReturnType<typeof parseIfMatch>,
  makeCandidate: (current: Record<string, unknown> | null) => unknown,
): Promise<Response> {
  const version = await call('directory.configVersion', eventId, async () => directory(c).configVersion(eventId));
  const { event, plan } = await readEvent(c, eventId);
  if (ifMatch === 'any' ? !event : ifMatch !== null && !ifMatch.includes(version)) return stale(version, false);
  const before = event?.config ?? null;
  const input = checkedInput(makeCandidate(before));
  const claim = roomClaim(eventId, input);
  const taken = await call('directory.checkRoom', eventId, async () => directory(c).checkRoom(eventId, claim.keys));
  if (taken) {
    const source = claim.room.patterns[claim.keys.indexOf(taken.key)] ?? taken.key;
    throw new GatewayError('ROUTE_TAKEN', { detail: `pattern ${JSON.stringify(source)} is already covered by event "${taken.eventId}"` });
  }
  if (input.entry) {
    const problem = signInUrlProblem(input.entry.signInUrl, claim.room.patterns);
    if (problem)
      throw new GatewayError('SIGN_IN_URL_INVALID', { detail: `entry.signInUrl ${JSON.stringify(input.entry.signInUrl)}: ${problem}` });
  }
  const { queue, inventory } = splitConfig(eventId, input);
  const check = await call('waitingRoom.configure', eventId, async () => c.env.WAITING_ROOM.getByName(eventId).configure(queue, true));
  if (check.kind === 'conflict') throw new GatewayError('CONFIG_CONFLICT', { detail: check.detail });
  if (plan && planShape(plan) !== planShape(inventory))
    throw new GatewayError('CONFIG_CONFLICT', {
      detail: 'the seat plan (seats, seatsPerRow, sections, tier names and capacities) is fixed once created',
    });
  const config = { ...joinConfig(queue, inventory), patterns: claim.room.patterns, bypass: claim.room.bypass };
  c.header('cache-control', 'no-store');
  c.header('etag', configEtag(version));
  return c.json({ eventId, dryRun: true, created: !event, config, changes: fieldChanges(before ?? undefined, config) });
}
