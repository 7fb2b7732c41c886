// zod's small build for every request-body schema: zod/mini (plain functions the bundler can drop
// when unused, instead of methods on classes) with English messages only. Schema files import
// `* as z from 'zod/mini'` themselves: re-exporting the namespace from here would keep all of it
// (every locale) in the bundle. Importing any helper below also installs the English messages. The full `zod` build was
// about 807 KiB of a 1,068 KiB gateway bundle (#16); zod/mini keeps the same parser, the same issue
// shape (`path`, `message`) and the same English messages.
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

z.config(en());

/** A whole number (a safe integer) from `min` to `max` inclusive. */
export function wholeNumber(min: number, max: number) {
  return z.int().check(z.minimum(min), z.maximum(max));
}

/** A number from `min` to `max` inclusive (finite: zod refuses Infinity and NaN). */
export function boundedNumber(min: number, max: number) {
  return z.number().check(z.minimum(min), z.maximum(max));
}

/** A string of `min` to `max` characters. */
export function boundedString(min: number, max: number) {
  return z.string().check(z.minLength(min), z.maxLength(max));
}
