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

const DE: SignInMessages = {
  title: 'Melden Sie sich an, um sich anzustellen',
  intro:
    'Bei diesem Verkauf kommen nur angemeldete Konten in die Warteschlange: ein Platz pro Konto, egal wie viele Browser oder Geräte Sie nutzen. Melden Sie sich an, dann kommen Sie mit Ihrem Platz hierher zurück.',
  ENTRY_REQUIRED: 'Sie sind noch nicht angemeldet.',
  ENTRY_TOKEN_EXPIRED: 'Ihr Anmeldelink ist abgelaufen.',
  ENTRY_TOKEN_INVALID: 'Ihr Anmeldelink gilt nicht für diesen Verkauf.',
  ENTRY_TOKEN_OTHER_EVENT: 'Ihr Anmeldelink gehört zu einem anderen Verkauf.',
  ENTRY_TOKEN_USED:
    'Ihr Anmeldelink wurde bereits verwendet. Melden Sie sich auf diesem Gerät erneut an: Ihr Konto behält denselben Platz.',
  LANE_NOT_CONFIGURED: 'Ihr Anmeldelink nennt einen Vorverkauf, den dieser Verkauf nicht hat.',
  button: 'Anmelden',
};

const FR: SignInMessages = {
  title: 'Connectez-vous pour entrer dans la file',
  intro:
    "Cette vente n'accepte que les comptes connectés : une place dans la file par compte, quel que soit le nombre de navigateurs ou d'appareils utilisés. Connectez-vous et vous reviendrez ici avec votre place.",
  ENTRY_REQUIRED: "Vous n'êtes pas encore connecté.",
  ENTRY_TOKEN_EXPIRED: 'Votre lien de connexion a expiré.',
  ENTRY_TOKEN_INVALID: "Votre lien de connexion n'est pas valable pour cette vente.",
  ENTRY_TOKEN_OTHER_EVENT: 'Votre lien de connexion concerne une autre vente.',
  ENTRY_TOKEN_USED: 'Votre lien de connexion a déjà été utilisé. Reconnectez-vous sur cet appareil : votre compte garde la même place.',
  LANE_NOT_CONFIGURED: "Votre lien de connexion indique une prévente que cette vente n'a pas.",
  button: 'Se connecter',
};

const IT: SignInMessages = {
  title: 'Accedi per metterti in coda',
  intro:
    'Questa vendita ammette solo account con accesso effettuato: un posto in coda per account, qualunque sia il numero di browser o dispositivi che usi. Accedi e tornerai qui con il tuo posto.',
  ENTRY_REQUIRED: "Non hai ancora effettuato l'accesso.",
  ENTRY_TOKEN_EXPIRED: 'Il tuo link di accesso è scaduto.',
  ENTRY_TOKEN_INVALID: 'Il tuo link di accesso non è valido per questa vendita.',
  ENTRY_TOKEN_OTHER_EVENT: "Il tuo link di accesso è per un'altra vendita.",
  ENTRY_TOKEN_USED:
    'Il tuo link di accesso è già stato usato. Accedi di nuovo su questo dispositivo: il tuo account mantiene lo stesso posto.',
  LANE_NOT_CONFIGURED: 'Il tuo link di accesso indica una prevendita che questa vendita non ha.',
  button: 'Accedi',
};

const PT_BR: SignInMessages = {
  title: 'Entre na sua conta para entrar na fila',
  intro:
    'Esta venda só aceita contas conectadas: um lugar na fila por conta, não importa quantos navegadores ou dispositivos você use. Entre na sua conta e você volta para cá com o seu lugar.',
  ENTRY_REQUIRED: 'Você ainda não entrou na sua conta.',
  ENTRY_TOKEN_EXPIRED: 'Seu link de acesso expirou.',
  ENTRY_TOKEN_INVALID: 'Seu link de acesso não é válido para esta venda.',
  ENTRY_TOKEN_OTHER_EVENT: 'Seu link de acesso é de outra venda.',
  ENTRY_TOKEN_USED: 'Seu link de acesso já foi usado. Entre de novo neste dispositivo: sua conta mantém o mesmo lugar.',
  LANE_NOT_CONFIGURED: 'Seu link de acesso indica uma pré-venda que esta venda não tem.',
  button: 'Entrar',
};

const TH: SignInMessages = {
  title: 'เข้าสู่ระบบเพื่อเข้าคิว',
  intro: 'การขายนี้เปิดให้เฉพาะบัญชีที่เข้าสู่ระบบแล้ว: หนึ่งบัญชีได้หนึ่งลำดับในคิว ไม่ว่าจะใช้เบราว์เซอร์หรืออุปกรณ์กี่เครื่อง เข้าสู่ระบบแล้วคุณจะกลับมาที่นี่พร้อมลำดับของคุณ',
  ENTRY_REQUIRED: 'คุณยังไม่ได้เข้าสู่ระบบ',
  ENTRY_TOKEN_EXPIRED: 'ลิงก์เข้าสู่ระบบของคุณหมดอายุแล้ว',
  ENTRY_TOKEN_INVALID: 'ลิงก์เข้าสู่ระบบของคุณใช้กับการขายนี้ไม่ได้',
  ENTRY_TOKEN_OTHER_EVENT: 'ลิงก์เข้าสู่ระบบของคุณเป็นของการขายอื่น',
  ENTRY_TOKEN_USED: 'ลิงก์เข้าสู่ระบบของคุณถูกใช้ไปแล้ว โปรดเข้าสู่ระบบอีกครั้งบนอุปกรณ์นี้ บัญชีของคุณยังคงได้ลำดับเดิม',
  LANE_NOT_CONFIGURED: 'ลิงก์เข้าสู่ระบบของคุณระบุรอบพรีเซลที่การขายนี้ไม่มี',
  button: 'เข้าสู่ระบบ',
};

const VI: SignInMessages = {
  title: 'Đăng nhập để vào hàng chờ',
  intro:
    'Đợt bán này chỉ nhận tài khoản đã đăng nhập: mỗi tài khoản một chỗ trong hàng chờ, dù bạn dùng bao nhiêu trình duyệt hay thiết bị. Đăng nhập xong, bạn sẽ quay lại đây cùng chỗ của mình.',
  ENTRY_REQUIRED: 'Bạn chưa đăng nhập.',
  ENTRY_TOKEN_EXPIRED: 'Liên kết đăng nhập của bạn đã hết hạn.',
  ENTRY_TOKEN_INVALID: 'Liên kết đăng nhập của bạn không hợp lệ cho đợt bán này.',
  ENTRY_TOKEN_OTHER_EVENT: 'Liên kết đăng nhập của bạn dành cho một đợt bán khác.',
  ENTRY_TOKEN_USED: 'Liên kết đăng nhập của bạn đã được dùng. Hãy đăng nhập lại trên thiết bị này: tài khoản của bạn vẫn giữ nguyên chỗ.',
  LANE_NOT_CONFIGURED: 'Liên kết đăng nhập của bạn chỉ định một đợt bán trước mà đợt bán này không có.',
  button: 'Đăng nhập',
};

const ID: SignInMessages = {
  title: 'Masuk untuk ikut mengantre',
  intro:
    'Penjualan ini hanya untuk akun yang sudah masuk: satu tempat dalam antrean per akun, berapa pun browser atau perangkat yang Anda gunakan. Masuklah dan Anda akan kembali ke sini dengan tempat Anda.',
  ENTRY_REQUIRED: 'Anda belum masuk.',
  ENTRY_TOKEN_EXPIRED: 'Tautan masuk Anda sudah kedaluwarsa.',
  ENTRY_TOKEN_INVALID: 'Tautan masuk Anda tidak berlaku untuk penjualan ini.',
  ENTRY_TOKEN_OTHER_EVENT: 'Tautan masuk Anda untuk penjualan lain.',
  ENTRY_TOKEN_USED: 'Tautan masuk Anda sudah digunakan. Masuk lagi di perangkat ini: akun Anda tetap di tempat yang sama.',
  LANE_NOT_CONFIGURED: 'Tautan masuk Anda menyebut prapenjualan yang tidak ada di penjualan ini.',
  button: 'Masuk',
};

/** The sign-in page's words per language. */
export const SIGN_IN_MESSAGES: Record<Lang, SignInMessages> = {
  en: EN,
  'zh-Hant': ZH_HANT,
  'zh-Hans': ZH_HANS,
  ja: JA,
  ko: KO,
  es: ES,
  de: DE,
  fr: FR,
  it: IT,
  'pt-BR': PT_BR,
  th: TH,
  vi: VI,
  id: ID,
};
