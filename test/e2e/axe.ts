// axe-core in the e2e tests: each page's serious, critical and moderate violations, and a log of
// every page checked printed after the file's tests.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A file's axe checks: `violations` runs axe-core on a page, `print` logs every page's result. */
export function axeLog(): { violations(page: Page, name: string): Promise<string[]>; print(): void } {
  const results: string[] = [];
  return {
    /**
     * Runs axe-core on the page (the script is added in a CSP-bypassing context) and returns its
     * violations of impact moderate or worse, as `rule (nodes)`; the minor ones are only logged.
     */
    async violations(page, name) {
      await page.addScriptTag({ content: AXE });
      const found = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } })
          .axe;
        return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
      });
      const of = (impacts: string[]) => found.filter((v) => impacts.includes(v.impact)).map((v) => `${v.id} (${v.nodes})`);
      const serious = of(['serious', 'critical']);
      const moderate = of(['moderate']);
      results.push(
        `${name}: serious ${serious.length}${serious.length ? ' ' + serious.join(', ') : ''}; moderate ${moderate.length}` +
          `${moderate.length ? ' ' + moderate.join(', ') : ''}; all: ${found.length}`,
      );
      return [...serious, ...moderate];
    },
    print() {
      if (results.length) console.log(`axe (violations per page):\n  ${results.join('\n  ')}`);
    },
  };
}
