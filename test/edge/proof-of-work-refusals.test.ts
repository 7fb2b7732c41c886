// Every bad proof of work on join gets its own 4xx code and changes nothing: no place, no ticket,
// no cookie, no arrival counted ("A cost for bots on open events").
import { env, exports } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Challenge } from 'altcha-lib';
import { shardName } from '../../contracts/names';
import { challengeKeyRing, issueChallenge } from '../../src/lib/proof-of-work';
import { BASE, Visitor, createEvent, freshEventId } from '../helpers/client';
import { fetchChallenge, proofHeader, solve, solvedHeader } from '../helpers/proof-of-work';

const POW = { proofOfWork: { difficultyBits: 8 } };

/** Rows of the event's only queue shard (a place ever handed out leaves one). */
const shardRows = (eventId: string) =>
  runInDurableObject(
    env.QUEUE_SHARD.getByName(shardName(eventId, 0)),
    (_o, state) => state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM qs_visitors').toArray()[0]!.n,
  );

/** A join with this proof header from a new browser: status, problem code, and whether a cookie was set. */
async function joinWith(eventId: string, header: string | null) {
  const v = new Visitor();
  const r = await v.json<{ code?: string; state?: string; queueTicket?: string; challengeUrl?: string }>(`/_wr/events/${eventId}/join`, {
    method: 'POST',
    headers: header === null ? {} : { 'x-wr-proof-of-work': header },
  });
  return { status: r.status, code: r.body.code, body: r.body, cookies: v.cookies.size };
}

/** A challenge of `eventId` signed with the gateway's real secrets, issued at `nowMs`. */
async function issuedAt(eventId: string, nowMs: number, bits = 8, ringEnv: Parameters<typeof challengeKeyRing>[0] = env) {
  return issueChallenge(await challengeKeyRing(ringEnv), {
    eventId,
    proofOfWork: { difficultyBits: bits },
    visitorId: crypto.randomUUID(),
    nowMs,
    randomUint32: crypto.getRandomValues(new Uint32Array(1))[0]!,
  });
}

const b64 = (value: unknown) => btoa(typeof value === 'string' ? value : JSON.stringify(value));

async function expectRefused(eventId: string, header: string | null, status: number, code: string) {
  const r = await joinWith(eventId, header);
  expect({ status: r.status, code: r.code }).toEqual({ status, code });
  expect(r.cookies).toBe(0);
  expect(r.body.queueTicket).toBeUndefined();
  expect(await shardRows(eventId)).toBe(0);
  return r;
}

describe('a join without a valid, unused proof of work gets no place', () => {
  it('no proof: 401 PROOF_OF_WORK_REQUIRED naming the challenge URL', async () => {
    const eventId = freshEventId('pow');
    expect((await createEvent(eventId, POW)).status).toBe(201);
    const r = await expectRefused(eventId, null, 401, 'PROOF_OF_WORK_REQUIRED');
    expect(r.body.challengeUrl).toBe(`/_wr/events/${eventId}/challenge`);
  });

  it('malformed: not base64, not JSON, the wrong shape, wrong field types, or too long: 400 PROOF_OF_WORK_MALFORMED', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId, POW);
    const good = await fetchChallenge(eventId);
    const solution = await solve(good);
    const malformed = [
      'not base64!',
      b64('not json'),
      b64({}),
      b64({ challenge: good }),
      b64({ solution }),
      b64({ challenge: { parameters: good.parameters }, solution }),
      b64({ challenge: { ...good, parameters: { ...good.parameters, cost: '1' } }, solution }),
      b64({ challenge: good, solution: { counter: String(solution.counter), derivedKey: solution.derivedKey } }),
      b64({ challenge: good, solution: { counter: solution.counter } }),
      'A'.repeat(5000),
    ];
    for (const header of malformed) await expectRefused(eventId, header, 400, 'PROOF_OF_WORK_MALFORMED');
  });

  it('stale: a challenge past its expiry gets 401 PROOF_OF_WORK_EXPIRED', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId, POW);
    const old = await issuedAt(eventId, Date.now() - 10 * 60_000);
    await expectRefused(eventId, proofHeader(old, await solve(old)), 401, 'PROOF_OF_WORK_EXPIRED');
  });

  it('forged or tampered: another secret, changed data, a changed signature or a wrong key get 403 PROOF_OF_WORK_INVALID', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId, POW);
    const otherSecret = { QUEUE_TICKET_SECRET: 'an-attacker-secret-of-at-least-32-characters', QUEUE_TICKET_PREVIOUS_SECRET: '' };
    const forged = await issuedAt(eventId, Date.now(), 8, otherSecret);
    const good = await fetchChallenge(eventId);
    const solution = await solve(good);
    const flip = (hex: string) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);
    const cases: [string, Challenge, { counter: number; derivedKey: string }][] = [
      ['signed with another secret', forged, await solve(forged)],
      [
        'easier difficulty written in',
        { ...good, parameters: { ...good.parameters, data: { ...good.parameters.data, bits: 1 } } },
        solution,
      ],
      [
        'another visitor id written in',
        { ...good, parameters: { ...good.parameters, data: { ...good.parameters.data, visitor: crypto.randomUUID() } } },
        solution,
      ],
      ['expiry moved', { ...good, parameters: { ...good.parameters, expiresAt: good.parameters.expiresAt! + 3600 } }, solution],
      ['signature changed', { ...good, signature: flip(good.signature!) }, solution],
      ['key not found (a wrong derived key)', good, { counter: solution.counter, derivedKey: flip(solution.derivedKey) }],
    ];
    for (const [what, challenge, sol] of cases) {
      const r = await joinWith(eventId, proofHeader(challenge, sol));
      expect({ what, status: r.status, code: r.code }).toEqual({ what, status: 403, code: 'PROOF_OF_WORK_INVALID' });
      expect(r.cookies).toBe(0);
    }
    expect(await shardRows(eventId)).toBe(0);
  });

  it('other event: a solution of event A joining event B gets 403 PROOF_OF_WORK_OTHER_EVENT', async () => {
    const a = freshEventId('pow');
    const b = freshEventId('pow');
    await createEvent(a, POW);
    await createEvent(b, POW);
    await expectRefused(b, (await solvedHeader(a)).header, 403, 'PROOF_OF_WORK_OTHER_EVENT');
  });

  it('wrong difficulty: a challenge issued before the organizer raised it gets 409 PROOF_OF_WORK_TOO_EASY; a harder one is accepted', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId, POW);
    const easy = await solvedHeader(eventId);
    const harder = await issuedAt(eventId, Date.now(), 10);
    expect((await createEvent(eventId, { proofOfWork: { difficultyBits: 9 } })).status).toBe(200);
    await expectRefused(eventId, easy.header, 409, 'PROOF_OF_WORK_TOO_EASY');
    const ok = await joinWith(eventId, proofHeader(harder, await solve(harder)));
    expect(ok.status).toBe(200);
  });

  it('reused: the same solution again (another browser, or two at once) gets 409 PROOF_OF_WORK_USED and no second place', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId, POW);
    const { header } = await solvedHeader(eventId);
    const first = await joinWith(eventId, header);
    expect(first.status).toBe(200);
    const again = await joinWith(eventId, header);
    expect({ status: again.status, code: again.code, cookies: again.cookies }).toEqual({
      status: 409,
      code: 'PROOF_OF_WORK_USED',
      cookies: 0,
    });
    // Two requests racing with one fresh solution: exactly one place.
    const race = (await solvedHeader(eventId)).header;
    const both = await Promise.all([joinWith(eventId, race), joinWith(eventId, race)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await shardRows(eventId)).toBe(2);
  });

  it('a solution whose place was left cannot join again', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId, POW);
    const { header } = await solvedHeader(eventId);
    const v = new Visitor();
    expect((await v.json(`/_wr/events/${eventId}/join`, { method: 'POST', headers: { 'x-wr-proof-of-work': header } })).status).toBe(200);
    expect((await v.json(`/_wr/events/${eventId}/leave`, { method: 'POST' })).status).toBe(200);
    expect((await joinWith(eventId, header)).code).toBe('PROOF_OF_WORK_USED');
  });

  it('the organizer cannot set a difficulty outside 8-20 bits (400 INVALID_REQUEST, nothing stored)', async () => {
    for (const difficultyBits of [7, 21, 12.5, '16', -1]) {
      const eventId = freshEventId('pow');
      const r = await createEvent(eventId, { proofOfWork: { difficultyBits } });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { code: string }).code).toBe('INVALID_REQUEST');
    }
    const r = await createEvent(freshEventId('pow'), { proofOfWork: { difficultyBits: 16, extra: 1 } });
    expect(r.status).toBe(400);
  });

  it('the challenge endpoint: 404 NOT_FOUND for an event without a proof of work, 404 EVENT_NOT_FOUND for none', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId);
    const none = await exports.default.fetch(new Request(`${BASE}/_wr/events/${eventId}/challenge`));
    expect(none.status).toBe(404);
    expect(((await none.json()) as { code: string }).code).toBe('NOT_FOUND');
    const missing = await exports.default.fetch(new Request(`${BASE}/_wr/events/${freshEventId('nope')}/challenge`));
    expect(((await missing.json()) as { code: string }).code).toBe('EVENT_NOT_FOUND');
  });
});
