/**
 * Plain-sight rules for the languages real servers are written in. Concealment ("do not tell the
 * user") and a secret sent somewhere, in seventeen languages; and the language-neutral reach for a
 * key file by a tool whose name has nothing to do with files or keys. Pure.
 */
import { SENS_PATH, SINK } from './lexicon-plain.js';
import type { PlainHit } from './plain-sight.js';

const CONCEAL =
  /(?:不要|请勿|切勿|别|无需|不必|不用)(?:向|对|给)?用户(?:提及|透露|说明|告知|通知|解释)|(?:不要|请勿|无需|不必)(?:告诉|告知|通知|提醒)(?:给)?用户|ユーザー(?:に|には)(?:伝え|知らせ|言わ|教え|通知し|説明し)(?:ない|ず)|사용자에게(?:는)?\s*(?:알리지|말하지|언급하지|알려주지)\s*(?:마|않)|erw(?:ä|ae)hne\s+(?:es\s+)?nicht|ohne\s+(?:den|dem)\s+(?:nutzer|benutzer|anwender)\s+zu\s+(?:informieren|benachrichtigen)|sans\s+(?:en\s+)?(?:informer|avertir|pr(?:é|e)venir)\s+l'utilisateur|sin\s+(?:informar|avisar|notificar)\s+al\s+usuario|non\s+(?:menzionare|dire|informare|avvisare)\b[^.]{0,30}utente|senza\s+(?:informare|avvisare)\s+l'utente|sem\s+(?:informar|avisar)\s+o\s+usu(?:á|a)rio|vermeld\s+niet|vertel\s+(?:het\s+)?niet\s+aan\s+de\s+gebruiker|zonder\s+de\s+gebruiker\s+te\s+(?:informeren|melden)|nie\s+(?:informuj|m(?:ó|o)w|wspominaj)\b[^.]{0,30}u(?:ż|z)ytkownik|kullan(?:ı|i)c(?:ı|i)ya\s+(?:bildirmeyin|s(?:ö|o)ylemeyin|bahsetmeyin|haber\s+vermeyin)|kh(?:ô|o)ng\s+(?:c(?:ầ|a)n\s+)?(?:th(?:ô|o)ng\s+b(?:á|a)o|n(?:ó|o)i|cho\s+bi(?:ế|e)t)\s+(?:cho\s+)?ng(?:ư|u)(?:ờ|o)i\s+d(?:ù|u)ng|jangan\s+(?:beri\s*tahu|memberi\s*tahu|beritahu)\s+pengguna|tanpa\s+memberi\s*tahu\s+pengguna|без\s+ведома\s+пользовател|उपयोगकर्ता\s+को\s+(?:न|मत)\s+(?:बताएं|बताओ|बताना)|उपयोगकर्ता\s+को\s+सूचित\s+न\s+करें|لا\s+(?:تخبر|تُخبر|تبلغ)\s+المستخدم/i;

const SECRET_ML =
  /对话内容|聊天记录|位置信息|现在位置|現在地|位置情報|会話(?:履歴|内容)|대화\s*내용|위치\s*정보|истори\w*\s+(?:диалога|переписки)|токен\w*|conversaci(?:ó|o)n\s+completa|conversation\s+enti(?:è|e)re|int(?:é|e)gralit(?:é|e)\s+de\s+la\s+conversation|identifiants|credenciales|passw(?:ö|o)rter|api-schl(?:ü|ue)ssel|密码|口令|密钥|私钥|令牌|パスワード|秘密鍵|api\s*キー|アクセストークン|비밀번호|개인\s*키|api\s*키|토큰|пароль|ключ\s+api|закрыт\w*\s+ключ|токен|contrase(?:ñ|n)a|clave\s+(?:privada|api|de\s+api)|mot\s+de\s+passe|cl(?:é|e)\s+(?:priv(?:é|e)e|api|d'api)|passwort|privater?\s+schl(?:ü|ue)ssel|api-schl(?:ü|ue)ssel|senha|chave\s+(?:privada|de\s+api|api)|wachtwoord|has(?:ł|l)o|(?:ş|s)ifre|m(?:ậ|a)t\s+kh(?:ẩ|a)u|m(?:ã|a)\s+otp|kata\s+sandi|पासवर्ड|كلمة\s+المرور/i;
const SEND_ML =
  /发送|上传|转发|提交|回传|送信|送る|アップロード|転送|전송|보내|업로드|отправ|загруз|перешл|env(?:í|i)a|enviar|env(?:o|oy)e|envoyer|sende|senden|hochladen|schick|invia|inviare|stuur|verstuur|wy(?:ś|s)lij|przeka(?:ż|z)|g(?:ö|o)nder|g(?:ử|u)i\b|kirim|भेज|أرسل/i;

/** Words a tool name carries when key files ARE its business. */
const KEY_BUSINESS =
  /ssh|key|env|secret|cred|config|conf|file|fs|path|dir|folder|read|write|cat|git|deploy|vault|pass|auth|cert|home|shell|exec|command|cmd|terminal|backup|scan|audit|lint|secur|setup|init|install|dotfile|profile|sync/i;

/** The cloud CLIs' own credential files: cloud tools name them as where their credentials come from. */
const CLOUD_CONFIG = /\.aws\/|\.kube\/config|\.docker\/config\.json/i;
const SINK_RE = new RegExp(`${SINK}|\\b[a-z0-9-]+(?:\\.[a-z0-9-]+)*\\.(?:com|net|org|io|kr|cn|jp|ru|de|fr|vn|xyz|app|dev)\\b`, 'i');
const PATH_RE = new RegExp(SENS_PATH, 'gi');

export const multilingualSightOf = (t: string, field: string, self: string): PlainHit[] => {
  const out: PlainHit[] = [];
  const c = CONCEAL.exec(t);
  if (c) out.push({ code: 'concealment', id: 'conceal-ml', matched: c[0] });
  const secret = SECRET_ML.exec(t);
  if (secret && SEND_ML.test(t) && SINK_RE.test(t))
    out.push({ code: 'data_flow', id: 'secret-to-sink-ml', matched: t.slice(Math.max(0, secret.index - 60), secret.index + 120) });
  // A key file named by a tool whose name says nothing of files or keys, in any language.
  if (field === 'description' && !KEY_BUSINESS.test(self)) {
    // A project's .env is what search, setup and deploy tools name every day; a key file is not.
    PATH_RE.lastIndex = 0;
    const p = [...t.matchAll(PATH_RE)].find((m) => !/^\W*\.env(?:\.\w+)?$/i.test(m[0]) && !CLOUD_CONFIG.test(m[0]));
    if (p) out.push({ code: 'purpose_mismatch', id: 'key-file-off-purpose', matched: t.slice(Math.max(0, p.index - 80), p.index + 80) });
  }
  return out;
};
