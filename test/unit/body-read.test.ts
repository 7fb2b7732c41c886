// readBodyText: the size limit holds on both reads (a declared length read whole, a chunked body chunk by chunk).
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, readBodyText } from '../../src/lib/validate';
import { GatewayError } from '../../src/lib/errors';

const chunked = (parts: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const p of parts) controller.enqueue(new TextEncoder().encode(p));
      controller.close();
    },
  });

const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request('http://127.0.0.1/x', { method: 'POST', body, headers, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) });

async function refusal(run: Promise<unknown>): Promise<string | null> {
  try {
    await run;
    return null;
  } catch (err) {
    return err instanceof GatewayError ? err.code : String(err);
  }
}

describe('readBodyText', () => {
  it('reads a body with a declared length whole, in UTF-8', async () => {
    const text = JSON.stringify({ seatIds: ['A-1-1', 'Ä-1-2'] });
    expect(await readBodyText(post(text))).toBe(text);
  });

  it('reads a chunked body (no declared length) across its chunks', async () => {
    expect(await readBodyText(post(chunked(['{"a"', ':1}'])))).toBe('{"a":1}');
  });

  it('reads an empty or absent body as the empty string', async () => {
    expect(await readBodyText(post(null))).toBe('');
    expect(await readBodyText(post(''))).toBe('');
  });

  const cases: { name: string; request: () => Request }[] = [
    { name: 'declared over the limit', request: () => post('x'.repeat(MAX_BODY_BYTES + 1)) },
    { name: 'chunked over the limit', request: () => post(chunked(Array.from({ length: 20 }, () => 'x'.repeat(1024)))) },
    // A Request built in the isolate can carry a Content-Length smaller than its body: the whole
    // read checks the size it got, not the one declared.
    {
      name: 'declared under the limit, body over it',
      request: () => post(chunked(Array.from({ length: 20 }, () => 'x'.repeat(1024))), { 'content-length': '10' }),
    },
  ];
  for (const c of cases)
    it(`refuses a body ${c.name} with PAYLOAD_TOO_LARGE`, async () => {
      expect(await refusal(readBodyText(c.request()))).toBe('PAYLOAD_TOO_LARGE');
    });

  it('never reads more than the limit it is given', async () => {
    expect(await refusal(readBodyText(post('x'.repeat(101)), 100))).toBe('PAYLOAD_TOO_LARGE');
    expect(await readBodyText(post('x'.repeat(100)), 100)).toBe('x'.repeat(100));
  });
});
