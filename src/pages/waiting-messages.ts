// The words of the waiting page and the draw page: one table per language, the same keys in each.
import type { Lang } from '../../contracts/i18n';
import { EN, type Messages } from './messages/en';
import { ES } from './messages/es';
import { JA } from './messages/ja';
import { KO } from './messages/ko';
import { ZH_HANS } from './messages/zh-hans';
import { ZH_HANT } from './messages/zh-hant';

export type { Messages };

/**
 * Every string of the waiting and draw pages, per language. `{n}`-style slots are filled by the
 * page (the same slots in every language: test/unit/messages.test.ts checks keys and slots).
 */
export const MESSAGES: Record<Lang, Messages> = { en: EN, 'zh-Hant': ZH_HANT, 'zh-Hans': ZH_HANS, ja: JA, ko: KO, es: ES };
