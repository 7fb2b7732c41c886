// What scripts/page-assets.ts writes into the Workers Static Assets directory: every page asset
// the Worker reads (src/lib/page-assets.ts), from the sources the tests also import. Only the
// generator imports this module, so none of these texts is in the Worker's bundle.
import { LANGS } from '../../contracts/i18n';
import {
  CONSOLE_PATH,
  DASHBOARD_PATH,
  OPENAPI_ASSET_PATH,
  SCRIPT_PATHS,
  STYLE_PATH,
  TEMPLATE_STYLE_PATH,
  messagesPath,
} from '../lib/page-assets';
import { openApiDocument } from '../openapi/document';
import { consolePage } from './console-page';
import { CONSOLE_SCRIPT } from './console-script';
import { CHECK_MESSAGES } from './check-messages';
import { CHECK_SCRIPT } from './check-script';
import { dashboardPage } from './dashboard-page';
import { DASHBOARD_SCRIPT } from './dashboard-script';
import { DRAW_SCRIPT } from './draw-script';
import { DASHBOARD_ACCESS_SCRIPT } from './dashboard-access';
import { SIGN_IN_MESSAGES } from './sign-in-messages';
import { PAGE_STYLE, TEMPLATE_STYLE } from './page-style';
import { MESSAGES } from './waiting-messages';
import { WAITING_SCRIPT } from './waiting-script';

/** Each asset's path (as the Worker asks for it) and its exact text. */
export function pageAssetSources(): Record<string, string> {
  const files: Record<string, string> = {
    [SCRIPT_PATHS.waiting]: WAITING_SCRIPT,
    [SCRIPT_PATHS.check]: CHECK_SCRIPT,
    [SCRIPT_PATHS.dashboard]: DASHBOARD_SCRIPT,
    [SCRIPT_PATHS.draw]: DRAW_SCRIPT,
    [SCRIPT_PATHS.dashboardAccess]: DASHBOARD_ACCESS_SCRIPT,
    [DASHBOARD_PATH]: dashboardPage(),
    [SCRIPT_PATHS.console]: CONSOLE_SCRIPT,
    [CONSOLE_PATH]: consolePage(),
    [STYLE_PATH]: PAGE_STYLE,
    [TEMPLATE_STYLE_PATH]: TEMPLATE_STYLE,
    [OPENAPI_ASSET_PATH]: openApiText(),
  };
  for (const lang of LANGS) {
    files[messagesPath('waiting', lang)] = JSON.stringify(MESSAGES[lang]);
    files[messagesPath('sign-in', lang)] = JSON.stringify(SIGN_IN_MESSAGES[lang]);
    files[messagesPath('check', lang)] = JSON.stringify(CHECK_MESSAGES[lang]);
  }
  return files;
}

/** The OpenAPI document's text, exactly as committed in docs/reference/openapi.json (scripts/openapi.ts). */
export function openApiText(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}
