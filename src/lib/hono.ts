// The gateway's Hono class: hono's own base with the RegExpRouter alone (the bundle budget).
import { HonoBase, type HonoOptions } from 'hono/hono-base';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import type { BlankEnv, BlankSchema, Env, Schema } from 'hono/types';

/**
 * `Hono` from 'hono' with one router instead of two. hono's default is a SmartRouter that tries the
 * RegExpRouter and falls back to the TrieRouter for route sets the RegExpRouter cannot compile; every
 * route of the gateway compiles, so the fallback and the picker were 1.2 KiB gzip of dead code. This
 * is the same shape as hono's own presets (`hono/tiny`, `hono/quick`), with the router hono calls its
 * fastest (https://hono.dev/docs/concepts/routers). The PatternRouter of `hono/tiny` would save
 * 2.4 KiB, but matched our 50 routes 4-8x slower (about 5 us per request against under 1 us).
 *
 * A route the RegExpRouter cannot compile (hono's UnsupportedPathError, e.g. two routes whose
 * parameters overlap ambiguously) fails every request with a 500 from the first match on: every
 * edge test then fails, so it cannot land unseen.
 */
export class Hono<E extends Env = BlankEnv, S extends Schema = BlankSchema, BasePath extends string = '/'> extends HonoBase<
  E,
  S,
  BasePath
> {
  /** @param options hono's options; `router` defaults to a new RegExpRouter */
  constructor(options: HonoOptions<E> = {}) {
    super(options);
    this.router = options.router ?? new RegExpRouter();
  }
}
