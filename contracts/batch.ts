// One item's outcome in a batched Durable Object call: plain data, so it crosses RPC (custom error
// classes and their properties do not), one per item in the order the items were sent.

/** An item decided (`value`), or an item that failed alone (`error`: a message, never a secret). */
export type BatchOutcome<O> = { ok: true; value: O } | { ok: false; error: string };
