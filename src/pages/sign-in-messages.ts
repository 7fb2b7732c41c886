// The words of the sign-in page (an event that requires an entry token): one table per language, the same keys in each.
import type { Lang } from '../../contracts/i18n';

const EN = {
  title: 'Sign in to join the line',
  intro:
    'This sale lets in signed-in accounts only: one place in line per account, however many browsers or devices you use. Sign in and you come back here with your place.',
  ENTRY_REQUIRED: 'You are not signed in yet.',
  ENTRY_TOKEN_EXPIRED: 'Your sign-in link has expired.',
  ENTRY_TOKEN_INVALID: 'Your sign-in link is not valid for this sale.',
  ENTRY_TOKEN_OTHER_EVENT: 'Your sign-in link is for another sale.',
  ENTRY_TOKEN_USED: 'Your sign-in link was already used. Sign in again on this device: your account keeps the same place.',
  LANE_NOT_CONFIGURED: 'Your sign-in link names a presale this sale does not have.',
  button: 'Sign in',
};

/** The sign-in page's words. */
export type SignInMessages = typeof EN;

const ZH_HANT: SignInMessages = {
  title: '請先登入再排隊',
  intro: '本場售票只開放已登入的帳號：每個帳號只有一個排隊位置，不論使用多少個瀏覽器或裝置。登入後會回到這裡並取得您的位置。',
  ENTRY_REQUIRED: '您尚未登入。',
  ENTRY_TOKEN_EXPIRED: '您的登入連結已過期。',
  ENTRY_TOKEN_INVALID: '您的登入連結不適用於本場售票。',
  ENTRY_TOKEN_OTHER_EVENT: '您的登入連結屬於另一場售票。',
  ENTRY_TOKEN_USED: '您的登入連結已使用過。請在此裝置上重新登入：您的帳號會保有相同的位置。',
  LANE_NOT_CONFIGURED: '您的登入連結指定了本場售票沒有的預購通道。',
  button: '登入',
};

const ZH_HANS: SignInMessages = {
  title: '请先登录再排队',
  intro: '本场售票只对已登录的账号开放：每个账号只有一个排队位置，无论使用多少个浏览器或设备。登录后会回到这里并获得您的位置。',
  ENTRY_REQUIRED: '您尚未登录。',
  ENTRY_TOKEN_EXPIRED: '您的登录链接已过期。',
  ENTRY_TOKEN_INVALID: '您的登录链接不适用于本场售票。',
  ENTRY_TOKEN_OTHER_EVENT: '您的登录链接属于另一场售票。',
  ENTRY_TOKEN_USED: '您的登录链接已经使用过。请在此设备上重新登录：您的账号会保留相同的位置。',
  LANE_NOT_CONFIGURED: '您的登录链接指定了本场售票没有的预售通道。',
  button: '登录',
};

const JA: SignInMessages = {
  title: 'ログインして列に並ぶ',
  intro:
    'この販売はログインしたアカウントのみが対象です。ブラウザーや端末をいくつ使っても、列の順番は1アカウントにつき1つです。ログインすると、順番を持ってこのページに戻ります。',
  ENTRY_REQUIRED: 'まだログインしていません。',
  ENTRY_TOKEN_EXPIRED: 'ログインリンクの有効期限が切れています。',
  ENTRY_TOKEN_INVALID: 'このログインリンクはこの販売では使えません。',
  ENTRY_TOKEN_OTHER_EVENT: 'このログインリンクは別の販売のものです。',
  ENTRY_TOKEN_USED: 'このログインリンクは使用済みです。この端末でもう一度ログインしてください。アカウントの順番は変わりません。',
  LANE_NOT_CONFIGURED: 'このログインリンクは、この販売にない先行枠を指定しています。',
  button: 'ログイン',
};

const KO: SignInMessages = {
  title: '로그인하고 대기열에 들어가세요',
  intro:
    '이 판매는 로그인한 계정만 입장할 수 있습니다. 브라우저나 기기를 몇 개 쓰든 계정당 대기 순번은 하나입니다. 로그인하면 순번을 받고 이 페이지로 돌아옵니다.',
  ENTRY_REQUIRED: '아직 로그인하지 않았습니다.',
  ENTRY_TOKEN_EXPIRED: '로그인 링크가 만료되었습니다.',
  ENTRY_TOKEN_INVALID: '이 로그인 링크는 이 판매에 유효하지 않습니다.',
  ENTRY_TOKEN_OTHER_EVENT: '이 로그인 링크는 다른 판매용입니다.',
  ENTRY_TOKEN_USED: '이 로그인 링크는 이미 사용되었습니다. 이 기기에서 다시 로그인하세요. 계정의 순번은 그대로입니다.',
  LANE_NOT_CONFIGURED: '이 로그인 링크는 이 판매에 없는 선예매 대기열을 지정합니다.',
  button: '로그인',
};

const ES: SignInMessages = {
  title: 'Inicia sesión para entrar en la fila',
  intro:
    'Esta venta solo admite cuentas con sesión iniciada: un lugar en la fila por cuenta, uses los navegadores o dispositivos que uses. Inicia sesión y volverás aquí con tu lugar.',
  ENTRY_REQUIRED: 'Todavía no has iniciado sesión.',
  ENTRY_TOKEN_EXPIRED: 'Tu enlace de inicio de sesión ha caducado.',
  ENTRY_TOKEN_INVALID: 'Tu enlace de inicio de sesión no es válido para esta venta.',
  ENTRY_TOKEN_OTHER_EVENT: 'Tu enlace de inicio de sesión es de otra venta.',
  ENTRY_TOKEN_USED:
    'Tu enlace de inicio de sesión ya se usó. Vuelve a iniciar sesión en este dispositivo: tu cuenta conserva el mismo lugar.',
  LANE_NOT_CONFIGURED: 'Tu enlace de inicio de sesión indica una preventa que esta venta no tiene.',
  button: 'Iniciar sesión',
};

/** The sign-in page's words per language. */
export const SIGN_IN_MESSAGES: Record<Lang, SignInMessages> = { en: EN, 'zh-Hant': ZH_HANT, 'zh-Hans': ZH_HANS, ja: JA, ko: KO, es: ES };
