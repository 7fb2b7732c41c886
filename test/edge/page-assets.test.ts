// The pages' words and scripts as Workers Static Assets: the Worker reads exactly what the
// sources say, once per isolate, and a missing asset is a clear error that a later request retries.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { LANGS } from '../../contracts/i18n';
import { DASHBOARD_PATH, PageAssets, SCRIPT_PATHS, STYLE_PATH, TEMPLATE_STYLE_PATH, messagesPath } from '../../src/lib/page-assets';
import { scriptHash } from '../../src/lib/security-headers';
import { CHECK_MESSAGES } from '../../src/pages/check-messages';
import { SIGN_IN_MESSAGES } from '../../src/pages/sign-in-messages';
import { MESSAGES } from '../../src/pages/waiting-messages';
import { PAGE_STYLE, TEMPLATE_STYLE } from '../../src/pages/page-style';
import { BASE } from '../helpers/client';

describe('page assets', () => {
  it("hold every language's words exactly as the message tables say, and the pages' styles as written", async () => {
    const read = new PageAssets().reader(env.ASSETS);
    for (const lang of LANGS) {
      expect(await read.json(messagesPath('waiting', lang))).toEqual(MESSAGES[lang]);
      expect(await read.json(messagesPath('check', lang))).toEqual(CHECK_MESSAGES[lang]);
      expect(await read.json(messagesPath('sign-in', lang))).toEqual(SIGN_IN_MESSAGES[lang]);
    }
    expect(await read.text(STYLE_PATH)).toBe(PAGE_STYLE);
    expect(await read.text(TEMPLATE_STYLE_PATH)).toBe(TEMPLATE_STYLE);
  });

  it('are read once per isolate: a second read asks the binding nothing', async () => {
    let calls = 0;
    const counting = { fetch: (input: RequestInfo | URL) => (calls++, env.ASSETS.fetch(input)) } as Fetcher;
    const read = new PageAssets().reader(counting);
    const first = await read.json(messagesPath('waiting', 'ja'));
    expect(await read.json(messagesPath('waiting', 'ja'))).toBe(first);
    await read.text(SCRIPT_PATHS.waiting);
    await read.text(SCRIPT_PATHS.waiting);
    expect(calls).toBe(2);
  });

  it('name a missing asset in the error, and a failed read is tried again on the next call', async () => {
    let answer = 404;
    const flaky = { fetch: async () => new Response(answer === 200 ? '{"a":1}' : 'no', { status: answer }) } as unknown as Fetcher;
    const read = new PageAssets().reader(flaky);
    await expect(read.json('/_wr/page/missing.json')).rejects.toThrow(
      /page asset \/_wr\/page\/missing\.json answered 404: build the assets/,
    );
    answer = 200;
    expect(await read.json('/_wr/page/missing.json')).toEqual({ a: 1 });
  });

  it('are never served as files: the path of an asset is an ordinary gateway 404', async () => {
    for (const path of [SCRIPT_PATHS.waiting, DASHBOARD_PATH, messagesPath('waiting', 'en')]) {
      const res = await exports.default.fetch(`${BASE}${path}`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe('NOT_FOUND');
    }
  });

  it("serve the dashboard as the asset, its scripts allowed by the script assets' CSP hashes", async () => {
    const res = await exports.default.fetch(`${BASE}/_wr/admin/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const script = await (await env.ASSETS.fetch(`https://assets.invalid${SCRIPT_PATHS.dashboard}`)).text();
    expect(html).toBe(await (await env.ASSETS.fetch(`https://assets.invalid${DASHBOARD_PATH}`)).text());
    expect(html).toContain(`<script>${script}</script>`);
    expect(res.headers.get('content-security-policy')).toContain(await scriptHash(script));
    const access = await (await env.ASSETS.fetch(`https://assets.invalid${SCRIPT_PATHS.dashboardAccess}`)).text();
    expect(html).toContain(`<script>${access}</script>`);
    expect(res.headers.get('content-security-policy')).toContain(await scriptHash(access));
  });
});
