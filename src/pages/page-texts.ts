// The words and scripts each page renders with, read from the page assets (src/lib/page-assets.ts)
// once per isolate, so the Worker's bundle carries none of them.
import type { Lang } from '../../contracts/i18n';
import { withPageTexts, type PageTexts } from '../../contracts/page-words';
import { SCRIPT_PATHS, STYLE_PATH, TEMPLATE_STYLE_PATH, messagesPath, type AssetReader } from '../lib/page-assets';
import type { CheckMessages } from './check-messages';
import type { SignInMessages } from './sign-in-messages';
import type { Messages } from './waiting-messages';

/** What the waiting page needs besides the status: its words in one language and its script's exact text. */
export interface WaitingTexts {
  t: Messages;
  script: string;
  /** The page's style: the pages' shared one (`pageStyle`), or a template page's (`TEMPLATE_STYLE`). */
  style: string;
}

/** What the check page needs: its words in one language and its script's exact text. */
export interface CheckTexts {
  t: CheckMessages;
  script: string;
  /** The pages' shared style (`pageStyle`). */
  style: string;
}

/**
 * The waiting page's words in `lang` (with the event's own words for `lang`, if any), its script
 * and its style: the pages' shared one, or for an event with its own template the template page's.
 * @param texts the event's `page.texts`
 * @param template true for an event with `page.template`
 * @throws Error when an asset is missing (scripts/page-assets.ts did not run: a 500)
 */
export async function waitingTexts(read: AssetReader, lang: Lang, texts: PageTexts | undefined, template = false): Promise<WaitingTexts> {
  const [t, script, style] = await Promise.all([
    waitingWords(read, lang, texts),
    read.text(SCRIPT_PATHS.waiting),
    pageStyle(read, template),
  ]);
  return { t, script, style };
}

/**
 * The words of the waiting, draw and maintenance pages in `lang`, with the event's own words for
 * `lang` in place of ours (`texts`: the event's `page.texts`; validated by the organizer API).
 */
export async function waitingWords(read: AssetReader, lang: Lang, texts: PageTexts | undefined): Promise<Messages> {
  return withPageTexts(await read.json<Messages>(messagesPath('waiting', lang)), texts, lang);
}

/** The check page's words in `lang` and its script. */
export async function checkTexts(read: AssetReader, lang: Lang): Promise<CheckTexts> {
  const [t, script, style] = await Promise.all([
    read.json<CheckMessages>(messagesPath('check', lang)),
    read.text(SCRIPT_PATHS.check),
    pageStyle(read),
  ]);
  return { t, script, style };
}

/** The sign-in page's words in `lang`. */
export function signInWords(read: AssetReader, lang: Lang): Promise<SignInMessages> {
  return read.json<SignInMessages>(messagesPath('sign-in', lang));
}

/**
 * The style the waiting, check and sign-in pages share (without the accent colour: `accentStyle`),
 * or with `template` the small style of a page from an organizer's template (`TEMPLATE_STYLE`).
 */
export function pageStyle(read: AssetReader, template = false): Promise<string> {
  return read.text(template ? TEMPLATE_STYLE_PATH : STYLE_PATH);
}
