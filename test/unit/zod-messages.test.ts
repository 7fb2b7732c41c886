// Importing contracts/zod.ts installs zod's English locale (zod/mini loads none: every message would
// be "Invalid input"), so every issue our request schemas can raise reads as zod's English says it.
import en from 'zod/v4/locales/en.js';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { boundedString, visibleId, wholeNumber } from '../../contracts/zod';

const locale = en().localeError as (issue: z.core.$ZodRawIssue) => string;

describe("the gateway's zod messages", () => {
  it('are the English words, e.g. for a number over its maximum', () => {
    expect(z.safeParse(wholeNumber(1, 6), 7).error!.issues[0]!.message).toBe('Too big: expected number to be <=6');
  });
  it('leave the messages our own schemas give', () => {
    expect(z.safeParse(visibleId(1, 4), 'a b').error!.issues[0]!.message).toBe('only visible ASCII characters (no spaces or controls)');
  });

  const cases: [string, z.ZodMiniType, unknown][] = [
    ['wrong type', z.string(), 5],
    ['wrong type: null', z.number(), null],
    ['wrong type: array', z.strictObject({}), []],
    ['NaN', z.number(), Number.NaN],
    ['too big, number', wholeNumber(1, 6), 7],
    ['too small, number', wholeNumber(1, 6), 0],
    ['too long', boundedString(1, 3), 'abcd'],
    ['too short', boundedString(2, 3), 'a'],
    ['too many items', z.array(z.string()).check(z.maxLength(2)), ['a', 'b', 'c']],
    ['pattern', z.string().check(z.regex(/^a+$/)), 'b'],
    ['one option', z.literal('fifo'), 'x'],
    ['options', z.enum(['fifo', 'random']), 'x'],
    ['unknown key', z.strictObject({ a: z.number() }), { a: 1, b: 2 }],
    ['unknown keys', z.strictObject({}), { b: 2, c: 3 }],
    ['not a whole number', z.int(), 1.5],
  ];
  for (const [name, schema, input] of cases) {
    it(name, () => {
      const parsed = z.safeParse(schema, input, { reportInput: true });
      expect(parsed.success).toBe(false);
      for (const issue of parsed.error!.issues) {
        const raw = issue as unknown as z.core.$ZodRawIssue;
        if (issue.code === 'custom') continue;
        expect(issue.message).toBe(locale(raw));
        expect(issue.message).not.toBe('Invalid input');
      }
    });
  }
});
