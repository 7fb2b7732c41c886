// The join challenge of an event that asks new visitors for a proof of work.
import { Hono } from 'hono';
import { GatewayError } from '../lib/errors';
import { newChallenge } from '../lib/proof-of-work';
import { eventIdParam, type AppEnv } from '../types';
import { edgeCursor } from './turn';

/** `GET /_wr/events/{eventId}/challenge`, mounted under `/_wr/events`. */
export const challengeApi = new Hono<AppEnv>();

/**
 * A fresh ALTCHA v2 challenge (`{ parameters, signature }`, docs/reference/api.md "Proof of work"), for one
 * join within CHALLENGE_TTL_MS. Read from the edge-cached cursor: no object call, nothing stored.
 * @throws GatewayError EVENT_NOT_FOUND (404); NOT_FOUND (404) when the event asks for no proof of work
 */
challengeApi.get('/:eventId/challenge', async (c) => {
  const eventId = eventIdParam(c);
  const now = Date.now();
  const cursor = await edgeCursor(c, eventId, now);
  if (!cursor) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
  if (!cursor.proofOfWork) throw new GatewayError('NOT_FOUND', { detail: 'this event asks for no proof of work: join directly' });
  c.header('cache-control', 'no-store');
  return c.json(await newChallenge(c.env, eventId, cursor.proofOfWork, now));
});
