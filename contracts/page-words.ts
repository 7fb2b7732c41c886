// The keys of the waiting, draw and maintenance pages' words with the `{slots}` each one has, and
// the organizer's per-event replacements for them (an event's `page.texts`). The words themselves
// are page assets (src/pages/messages/); only their keys are here, so the gateway can check a
// replacement without carrying any language in its bundle.
import * as z from 'zod/mini';
import { LANGS } from './i18n';
import { plainText } from './zod';

/**
 * Every key of the pages' words and the `{slots}` the page fills in it, sorted. Each language
 * has exactly these keys (src/pages/messages/en.ts is typed by them) and these slots
 * (test/unit/messages.test.ts).
 */
export const MESSAGE_SLOTS = {
  title: [],
  lang: [],
  h_not_open: [],
  h_prequeue: [],
  h_drawing: [],
  h_waiting: [],
  h_paused: [],
  h_closed: [],
  h_sold_out: [],
  h_admitted: [],
  s_not_open: ['t'],
  s_prequeue: ['t'],
  s_drawing: [],
  s_waiting: [],
  s_paused: [],
  s_closed: [],
  s_sold_out: [],
  s_admitted: [],
  placeLabel: [],
  stockLeft: ['held', 'left'],
  stockWarn: ['per'],
  stockWarnOne: [],
  placeRange: ['hi', 'lo'],
  placeAfter: ['n'],
  aheadRange: ['hi', 'lo'],
  aheadMore: ['n'],
  counting: [],
  startsIn: [],
  countdown: ['t'],
  ahead: ['n'],
  aheadOne: [],
  next: [],
  moved: ['n'],
  waitUnknown: [],
  waitPaused: [],
  waitUnderMinute: [],
  waitRange: ['hi', 'lo'],
  waitAbout: ['lo'],
  steps: [],
  stepOpen: [],
  stepDraw: [],
  stepLine: [],
  stepTurn: [],
  fifo: [],
  random: [],
  updated: ['t'],
  retrying: ['s'],
  noScript: ['s'],
  commitment: [],
  verify: [],
  preview: [],
  maintTitle: [],
  maintBack: ['t'],
  drawTitle: [],
  drawPending: [],
  drawDone: ['n'],
  drawCommitment: [],
  drawSeed: [],
  drawRule: [],
  drawCheck: [],
  afterDraw: [],
  drawVerifying: [],
  drawVerified: ['n'],
  drawMismatch: ['expected', 'listed', 'rank'],
  drawBadSeed: [],
  drawVerifyFailed: [],
  drawOrder: ['n', 'total'],
  drawJson: [],
  yourEntrant: [],
  findRank: [],
  drawRank: ['id', 'rank', 'total'],
  drawNotIn: ['id'],
  wlOpen: [],
  wlJoin: [],
  wlSeats: [],
  wlPlace: ['n', 'q'],
  wlOffer: ['fee', 'price', 'seats'],
  wlOfferLeft: ['t'],
  wlTake: [],
  wlTakeElse: [],
  wlLapsed: [],
  wlTaken: [],
} as const satisfies Record<string, readonly string[]>;

/** A key of the pages' words. */
type MessageKey = keyof typeof MESSAGE_SLOTS;

/** The pages' words in one language: every key, each a string with the key's slots. */
export type Messages = Record<MessageKey, string>;

/** An organizer's replacements of the pages' words, per language tag (`LANGS`) and key; any subset. */
export type PageTexts = Partial<Record<(typeof LANGS)[number], Partial<Messages>>>;

/** Longest replacement of one string, characters (the longest English one is under 250). */
export const MAX_PAGE_TEXT_LENGTH = 500;
/** Most characters of all of an event's replacements together: they travel in the room's cursor, which every isolate reads. */
export const MAX_PAGE_TEXTS_TOTAL = 8_000;

/** The `{slots}` of a text, sorted (each as often as it occurs). */
export function slotsOf(text: string): string[] {
  return [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
}

/**
 * An event's `page.texts` as the organizer API takes it: known languages only, known keys only,
 * each string 1 to MAX_PAGE_TEXT_LENGTH plain characters with exactly the English text's slots,
 * MAX_PAGE_TEXTS_TOTAL characters in all. Each error names the language and the key.
 */
export function pageTextsInput() {
  const words = z
    .partialRecord(z.enum(Object.keys(MESSAGE_SLOTS) as [MessageKey, ...MessageKey[]]), plainText(1, MAX_PAGE_TEXT_LENGTH))
    .check(
      z.superRefine((texts, ctx) => {
        for (const [key, text] of Object.entries(texts) as [MessageKey, string][]) {
          const want: readonly string[] = MESSAGE_SLOTS[key] ?? [];
          if (slotsOf(text).join() === want.join()) continue;
          ctx.issues.push({
            code: 'custom',
            input: text,
            path: [key],
            message:
              want.length === 0
                ? 'must have no {placeholders}'
                : `must keep the placeholders ${want.map((s) => `{${s}}`).join(', ')}, each once, and no others`,
          });
        }
      }),
    );
  return z
    .partialRecord(z.enum(LANGS), words)
    .check(
      z.refine(
        (texts) =>
          Object.values(texts).reduce((sum, words) => sum + Object.values(words ?? {}).reduce((n, s) => n + (s?.length ?? 0), 0), 0) <=
          MAX_PAGE_TEXTS_TOTAL,
        { message: `all replacements together must be at most ${MAX_PAGE_TEXTS_TOTAL} characters` },
      ),
    );
}

/**
 * The pages' words in one language with the event's replacements for it applied (a new object:
 * `words` is the isolate's shared copy of the asset).
 */
export function withPageTexts(words: Messages, texts: PageTexts | undefined, lang: (typeof LANGS)[number]): Messages {
  const own = texts?.[lang];
  return own ? { ...words, ...own } : words;
}
