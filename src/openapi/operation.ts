// The shape of one OpenAPI operation as document.ts lists them (and resale-operations.ts).
import type * as z from 'zod/mini';

/** Which of the gateway's APIs an operation belongs to. */
export type Api = 'visitor' | 'organizer' | 'origin' | 'channel' | 'public';

/** One operation: method, path as mounted (Hono's `:param`), which API, what it does, its body schema. */
export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  api: Api;
  summary: string;
  body?: z.ZodMiniType;
  /** The body's media type when not application/json. */
  bodyType?: string;
  /** What a success answers when not JSON. */
  produces?: 'text/html' | 'redirect' | 'empty';
  /** Optional query parameters, each a choice of strings. */
  query?: readonly { name: string; description: string; values: readonly string[] }[];
}
