// The isolate's memory of verified tokens (src/lib/verified-tokens.ts) and of room matches
// (src/lib/room-matches.ts): pure, property-tested against a model and against matchRoom.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VerifiedTokens, headerKid } from '../../src/lib/verified-tokens';
import { RoomMatches } from '../../src/lib/room-matches';
import { compileTable, matchRoom, type RoomRules } from '../../contracts/room-patterns';

const KINDS = ['ticket', 'admission'] as const;
const EVENTS = ['e1', 'e2'];
const KIDS = ['k1', 'k2', 'k3'];

/** One step against the memory: remember a token, or ask for one, at a time that only moves forward. */
const step = fc.oneof(
  fc.record({
    op: fc.constant('put' as const),
    token: fc.integer({ min: 0, max: 30 }),
    kind: fc.constantFrom(...KINDS),
    eventId: fc.constantFrom(...EVENTS),
    kid: fc.constantFrom(...KIDS),
    validForMs: fc.integer({ min: -5_000, max: 200_000 }),
    advanceMs: fc.integer({ min: 0, max: 30_000 }),
  }),
  fc.record({
    op: fc.constant('get' as const),
    token: fc.integer({ min: 0, max: 30 }),
    kind: fc.constantFrom(...KINDS),
    eventId: fc.constantFrom(...EVENTS),
    kids: fc.subarray(KIDS),
    advanceMs: fc.integer({ min: 0, max: 30_000 }),
  }),
);

describe('VerifiedTokens', () => {
  it('answers only with the claims last remembered for that token, for the same kind and event, before its end, while its kid is in the ring; never holds more than its bound', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(step, { maxLength: 120 }), (max, steps) => {
        const maxAgeMs = 60_000;
        const memory = new VerifiedTokens<{ n: number }>(max, maxAgeMs);
        // The model: what each token was last remembered as, and until when it may answer.
        const model = new Map<string, { kind: string; eventId: string; kid: string; n: number; untilMs: number; validUntilMs: number }>();
        let now = 1_000_000;
        steps.forEach((s, n) => {
          now += s.advanceMs;
          const token = `t${s.token}`;
          if (s.op === 'put') {
            const validUntilMs = now + s.validForMs;
            memory.put(token, { kind: s.kind, eventId: s.eventId, issuer: 'wr', kid: s.kid }, { n }, validUntilMs, now);
            model.set(token, {
              kind: s.kind,
              eventId: s.eventId,
              kid: s.kid,
              n,
              untilMs: Math.min(validUntilMs, now + maxAgeMs),
              validUntilMs,
            });
          } else {
            const got = memory.get(token, { kind: s.kind, eventId: s.eventId, issuer: 'wr' }, new Set(s.kids), now);
            if (got !== undefined) {
              const m = model.get(token)!;
              // Never past the token's own end, nor past the memory's age bound.
              expect(now).toBeLessThan(m.validUntilMs);
              expect(now).toBeLessThan(m.untilMs);
              expect(s.kids).toContain(m.kid);
              expect([m.kind, m.eventId, m.n]).toEqual([s.kind, s.eventId, got.n]);
            }
          }
          expect(memory.size).toBeLessThanOrEqual(max);
        });
      }),
    );
  });

  it('answers a token remembered moments ago (a hit is possible), and never for another issuer', () => {
    const memory = new VerifiedTokens<string>(4, 60_000);
    const kids = new Set(['k1']);
    memory.put('t', { kind: 'admission', eventId: 'e', issuer: 'wr', kid: 'k1' }, 'claims', 10_000, 0);
    expect(memory.get('t', { kind: 'admission', eventId: 'e', issuer: 'wr' }, kids, 9_999)).toBe('claims');
    expect(memory.get('t', { kind: 'admission', eventId: 'e', issuer: 'other' }, kids, 1)).toBeUndefined();
    expect(memory.get('t', { kind: 'admission', eventId: 'e', issuer: 'wr' }, kids, 10_000)).toBeUndefined();
    // Gone once its end passed, even for a clock that goes back.
    expect(memory.get('t', { kind: 'admission', eventId: 'e', issuer: 'wr' }, kids, 5)).toBeUndefined();
  });

  it('reads the kid of a protected header, and null for none or garbage', () => {
    const header = (h: object) => `${btoa(JSON.stringify(h)).replace(/=+$/, '')}.e30.sig`;
    expect(headerKid(header({ alg: 'ES256', kid: 'k-1' }))).toBe('k-1');
    expect(headerKid(header({ alg: 'ES256' }))).toBeNull();
    expect(headerKid(header({ alg: 'ES256', kid: '' }))).toBeNull();
    expect(headerKid(header({ alg: 'ES256', kid: 7 }))).toBeNull();
    for (const junk of ['', '.', 'garbage', '!!!.x.y']) expect(headerKid(junk)).toBeNull();
  });
});

describe('RoomMatches', () => {
  const bypass = { methods: ['OPTIONS'], pathPrefixes: ['/events/e2/static/'], extensions: ['css'] };
  const rooms: RoomRules[] = [
    { eventId: 'e1', patterns: ['/events/e1/*', 'shop.test/sale'], bypass },
    { eventId: 'e2', patterns: ['/events/e2/*', '/buy.php'], bypass },
  ];
  const segment = fc.constantFrom('events', 'e1', 'e2', 'E1', 'static', 'x.css', 'buy.php', 'sale', '%2e%2e', '..', '', 'index.html');
  const request = fc.record({
    method: fc.constantFrom('GET', 'HEAD', 'OPTIONS', 'POST'),
    host: fc.constantFrom('shop.test', 'other.test', 'SHOP.test'),
    path: fc.array(segment, { maxLength: 6 }).map((s) => `/${s.join('/')}`),
  });

  it('answers as matchRoom does, table by table, and keeps at most its bound', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(fc.tuple(request, fc.boolean()), { maxLength: 60 }), (max, requests) => {
        const matches = new RoomMatches(max);
        let table = compileTable(rooms, 1);
        for (const [r, refresh] of requests) {
          // A refresh hands over a new table object, here with one room fewer.
          if (refresh) table = compileTable(table.version === 1 ? rooms.slice(1) : rooms, table.version + 1);
          expect(matches.match(table, r.method, r.host, r.path)).toEqual(matchRoom(table, r.method, r.host, r.path));
          expect(matches.size).toBeLessThanOrEqual(max);
        }
      }),
    );
  });
});
