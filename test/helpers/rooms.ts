// Rooms for tests: claim URL patterns straight in the EventDirectory, and requests through a fresh
// app (its own room table copy) with bindings a test may replace.
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { DIRECTORY_NAME } from '../../contracts/names';
import type { BypassRules } from '../../contracts/room-patterns';
import type { ClaimAnswer } from '../../contracts/room-table';
import { createApp } from '../../src/app';
import { roomClaim } from '../../src/lib/room-claims';
import { RoomTableCache, defaultCache } from '../../src/lib/room-table';
import { BASE } from './client';

export const NO_BYPASS: BypassRules = { pathPrefixes: [], extensions: [], methods: [] };

/**
 * Claims patterns for an event in the room table without creating its objects (the state a crash
 * between the claim and the objects leaves), and drops the data centre's cached table.
 */
export async function claimRoomDirectly(eventId: string, patterns: string[], bypass: BypassRules = NO_BYPASS): Promise<ClaimAnswer> {
  const answer = await env.DIRECTORY.getByName(DIRECTORY_NAME).claimRoom(roomClaim(eventId, { patterns, bypass }));
  await new RoomTableCache().forget(defaultCache());
  return answer;
}

/** One request through a new app instance (a cold isolate's room table) with `bindings` over the real env. */
export async function viaFreshApp(
  path: string,
  init: RequestInit = {},
  bindings: Partial<Record<keyof Env | 'ORIGIN', unknown>> = {},
): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await createApp().fetch(new Request(BASE + path, init), { ...env, ...bindings } as Env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
