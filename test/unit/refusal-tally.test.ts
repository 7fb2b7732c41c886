// The edge's refusal tally: which cause each error code counts under, and when an isolate reports.
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE, type ErrorCode } from '../../src/lib/errors';
import { REFUSAL_REPORT_EVERY_MS, recordRefusal, refusalCause } from '../../src/lib/refusal-tally';

describe('refusalCause', () => {
  it.each([
    ['PROOF_OF_WORK_REQUIRED', 'proofOfWork'],
    ['PROOF_OF_WORK_INVALID', 'proofOfWork'],
    ['PROOF_OF_WORK_USED', 'proofOfWork'],
    ['ENTRY_REQUIRED', 'entryToken'],
    ['ENTRY_TOKEN_INVALID', 'entryToken'],
    ['ENTRY_TOKEN_USED', 'entryToken'],
    ['LANE_NOT_CONFIGURED', 'entryToken'],
    ['RATE_LIMITED', 'rateLimit'],
    ['TOKEN_INVALID', 'other'],
    ['EVENT_NOT_FOUND', null],
    ['ROOM_MAINTENANCE', null],
    ['OVERLOADED', null],
  ] as [ErrorCode, string | null][])('counts %s under %s', (code, cause) => {
    expect(refusalCause(code)).toBe(cause);
  });

  it('counts no 5xx answer as a refusal', () => {
    const serverSide = (Object.keys(ERROR_TABLE) as ErrorCode[]).filter((code) => ERROR_TABLE[code].status >= 500);
    expect(serverSide.length).toBeGreaterThan(0);
    expect(serverSide.filter((code) => refusalCause(code) !== null)).toEqual([]);
  });
});

describe('recordRefusal', () => {
  it('reports the first refusal at once, holds the rest of the window, and reports them with the next after it', () => {
    const t0 = 1_000_000;
    expect(recordRefusal('tally-a', 'proofOfWork', t0)).toEqual({ proofOfWork: 1, entryToken: 0, rateLimit: 0, other: 0 });
    expect(recordRefusal('tally-a', 'rateLimit', t0 + 10)).toBeNull();
    expect(recordRefusal('tally-a', 'rateLimit', t0 + REFUSAL_REPORT_EVERY_MS - 1)).toBeNull();
    expect(recordRefusal('tally-b', 'other', t0 + 20)).toEqual({ proofOfWork: 0, entryToken: 0, rateLimit: 0, other: 1 });
    expect(recordRefusal('tally-a', 'entryToken', t0 + REFUSAL_REPORT_EVERY_MS)).toEqual({
      proofOfWork: 0,
      entryToken: 1,
      rateLimit: 2,
      other: 0,
    });
  });

  it('reports at once when the clock went back rather than holding counts until it catches up', () => {
    expect(recordRefusal('tally-c', 'other', 5_000_000)).not.toBeNull();
    expect(recordRefusal('tally-c', 'other', 4_000_000)).toEqual({ proofOfWork: 0, entryToken: 0, rateLimit: 0, other: 1 });
  });
});
