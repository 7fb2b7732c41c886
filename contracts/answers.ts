// The one shape of Durable Object answers: a union discriminated by `kind`, never a bare string,
// boolean or null. Expected outcomes are answered, only bugs are thrown: Durable Object RPC loses
// custom error classes and their properties (Cloudflare docs, "Workers RPC: error handling").

/** The answer of an event-scoped RPC for an event nobody configured; nothing is stored. */
export interface EventNotFound {
  kind: 'event_not_found';
}

/** The one `EventNotFound` value objects return. */
export const EVENT_NOT_FOUND: EventNotFound = { kind: 'event_not_found' };

/** Done, nothing more to say. */
export interface Done {
  kind: 'ok';
}

/** The one `Done` value objects return. */
export const DONE: Done = { kind: 'ok' };
