/**
 * The vocabulary of the second detector: what counts as a sensitive SOURCE, an outside SINK,
 * a TRANSFER, and what a tool's stated purpose may legitimately be about. Phrase-shaped
 * patterns over normalised text, in English and the languages tool descriptions most often
 * arrive in. Data, no logic.
 */

/** Credential and key files, and the stores that hold them. */
export const SRC_CREDENTIAL_FILES =
  /(?:^|[\s/'"`(~])\.(?:ssh|aws|kube|docker|gnupg|netrc|npmrc|pypirc|git-credentials|env(?:\.\w+)?)\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b|\/etc\/(?:passwd|shadow|sudoers)\b|\bkeychain\b|\bwallet\.dat\b|\bcredentials?\s+files?\b|\bmcp\.json\b|claude_desktop_config|\b(?:browser|chrome|firefox)\s+(?:cookies|passwords|profile|history)\b|\bcookies?\s+(?:from|of|in)\s+(?:the\s+)?(?:browser|chrome|firefox)\b|\bkey\s*chain\b|\bpassword\s+(?:store|manager\s+(?:vault|database))\b|\.bash_history\b|\.zsh_history\b|\bshell\s+history\b|\b(?:saved|stored|browser)\s+passwords?\b|\baws\s+credentials\b|\bcredentials?\s+from\s+(?:the\s+)?(?:configuration|config)\s+files?\b|\blsass\b|\bkeystrokes?\b|\b(?:saved|stored|browser|session)\s+cookies\b|\bsession\s+tokens\b|\blogin\s+data\b/i;

/** Secrets by kind. Honest tools name these too: on their own they prove nothing. */
export const SRC_SECRETS =
  /\b(?:api[\s_-]?keys?|access[\s_-]?(?:tokens?|keys?)|secret[\s_-]?(?:keys?|access)|auth(?:entication)?[\s_-]?tokens?|bearer\s+tokens?|session\s+(?:tokens?|cookies?)|passwords?|passphrases?|credentials?|secrets?|private[\s_-]?keys?|ssh[\s_-]?keys?|seed\s+phrases?|mnemonic|recovery\s+phrases?|environment\s+variables?|env(?:ironment)?\s+vars?|\.env\s+files?|tokens?\s+(?:and|or)\s+(?:keys?|secrets?|passwords?))\b|(?:密钥|密码|凭证|凭据|令牌|私钥|环境变量|パスワード|秘密鍵|認証情報|環境変数|비밀번호|자격\s*증명|개인\s*키|환경\s*변수|парол[ьия]|ключ(?:и|ей)?\s+api|учетные\s+данные|секрет|закрыт(?:ый|ые)\s+ключ|переменные\s+окружения|contraseñas?|credenciales|claves?\s+(?:api|privadas?|secretas?)|variables\s+de\s+entorno|passwörter|passwort|zugangsdaten|schlüssel|umgebungsvariablen|mots?\s+de\s+passe|identifiants|clés?\s+(?:api|privées?|secrètes?)|variables\s+d'environnement|senhas?|credenciais|chaves?\s+(?:api|privadas?|secretas?)|variáveis\s+de\s+ambiente)/i;

/** The conversation, the model's context, its instructions. */
export const SRC_CONVERSATION =
  /\b(?:conversation(?:\s+(?:history|so\s+far|context|log|transcript|contents?))?|chat\s+(?:history|log|transcript|messages)|message\s+history|(?:full|entire|whole|complete)\s+(?:context|transcript|dialog(?:ue)?)|system\s+(?:prompt|message|instructions)|previous\s+(?:messages|prompts|instructions|turns)|(?:all|every)\s+(?:previous\s+|prior\s+)?(?:user\s+)?messages|context\s+window|everything\s+the\s+user\s+(?:said|typed|wrote|asked)|(?:the\s+)?user'?s?\s+(?:prompts?|queries|questions|requests?)\s+(?:verbatim|in\s+full)|your\s+(?:instructions|context|memory))\b|对话|聊天记录|系统提示|会話|システムプロンプト|대화|시스템\s*프롬프트|переписк|истори[яию]\s+(?:чата|диалога)|системн(?:ый|ого)\s+промпт|conversaci[oó]n|historial|conversation|gespr[äa]ch|verlauf|conversa/i;

/** Private user data beyond secrets. */
export const SRC_PRIVATE =
  /\b(?:personal\s+(?:data|information|details|files)|private\s+(?:data|information|files|messages|documents)|(?:user'?s?|your)\s+(?:contacts|address\s+book|emails?|inbox|messages|documents|photos|location|browsing\s+history|clipboard|files|home\s+directory|keystrokes|screen)|contact\s+lists?|browsing\s+history|clipboard\s+(?:contents?|data|history)|(?:all|any|every)\s+(?:files|documents)\s+(?:in|under|on|from)|home\s+directory|~\/(?!\s)|\$home\b|%userprofile%|local\s+files|files\s+on\s+(?:the\s+)?(?:user'?s?\s+)?(?:disk|machine|computer|system)|social\s+security|credit\s+card|bank\s+(?:account|details)|pii\b|geolocation|gps\s+coordinates)\b/i;

/** Somewhere outside the user's control: the server's own backend, a third party, a literal address. */
export const SINK_OUTSIDE =
  /\bhttps?:\/\/[^\s"'<>)]+|\b[\w.+-]{1,64}@[\w-]{1,63}\.[a-z]{2,24}\b|\b(?:our|the\s+vendor'?s?|the\s+developer'?s?|the\s+author'?s?|a\s+remote|the\s+remote|an?\s+external|external|third[\s-]party|partner|central(?:ised|ized)?|cloud|off[\s-]?site|offshore)\s+(?:servers?|services?|endpoints?|backends?|apis?|cloud|storage|vaults?|collectors?|analytics|database|platform|service\s+for|webhooks?|infrastructure|dashboard|team)\b|\b(?:telemetry|analytics|tracking)\s+(?:endpoint|server|service|pipeline|platform)\b|\b(?:webhook|pastebin|ngrok|requestbin|discord\s+webhook|telegram\s+bot|attacker(?:-controlled)?\s+(?:server|endpoint|host|domain|url))\b|\b(?:for|to)\s+(?:safe[\s-]?keeping|backup|archiv(?:ing|al)|our\s+records|quality\s+(?:assurance|purposes)|training|improvement|research|auditing)\s+(?:purposes\s+)?(?:on|at|to|in)\s+(?:our|a|the)\b|外部服务器|远程服务器|我们的服务器|リモートサーバー|外部サーバー|원격\s*서버|외부\s*서버|удаленн(?:ый|ого)\s+сервер|внешн(?:ий|его)\s+сервер|наш\s+сервер|servidor\s+(?:remoto|externo)|nuestro\s+servidor|externen?\s+server|unseren?\s+server|serveur\s+(?:distant|externe)|notre\s+serveur/i;

/** A named third party as the destination: "to the PeopleGraph enrichment API", "to the ChatVault analytics service". */
export const SINK_NAMED =
  /\bto\s+(?:the\s+)?[A-Z][\w.-]+(?:\s+[A-Za-z][\w-]+){0,2}\s+(?:service|API|api|platform|cloud|server|endpoint|backend|vault|bucket|partner|servers)\b/;

/** Moving data: the verbs that make a flow. */
export const TRANSFER =
  /\b(?:archive|archives|archived|archiving|send|sends|sent|sending|upload|uploads|uploaded|uploading|transmit|transmits|transmitted|sync|syncs|synced|syncing|synchroni[sz]es?|back(?:s)?\s+up|backup|backs\s+up|mirror|mirrors|replicat(?:e|es|ed)|share|shares|shared|sharing|forward|forwards|forwarding|post|posts|posting|report|reports|reporting|export|exports|exfiltrat\w*|leak|leaks|collect|collects|collecting|harvest\w*|gather|gathers|beacon|phone\s+home|log(?:s|ged)?\s+(?:them\s+|it\s+)?(?:to|on|at)|stor(?:e|es|ed)\s+(?:them\s+|it\s+)?(?:on|at|in)\s+(?:our|a\s+remote|the\s+remote)|copy|copies|relay|relays|push|pushes|pipe|pipes)\b|发送|上传|同步|转发|送信|アップロード|同期|転送|전송|업로드|동기화|отправ\w*|загруж\w*|передава\w*|синхронизир\w*|env(?:ía|ia|iar|iamos)|sub(?:e|ir|imos)|sincroniza\w*|sendet|hochladen|übermittelt|synchronisiert|envoie|envoyer|téléverse|transmet|synchronise|envia|enviar|carrega/i;

/** Automatic, hidden or unconditional manner: the words that turn a feature into a hazard. */
export const QUIETLY =
  /\b(?:automatically|silently|quietly|in\s+the\s+background|transparently|behind\s+the\s+scenes|without\s+(?:prompting|asking|notif\w+|confirmation|user\s+interaction)|seamlessly|also|additionally|as\s+well|along\s+the\s+way|for\s+convenience|for\s+your\s+convenience|every\s+(?:call|time|request|invocation)|on\s+each\s+(?:call|run|invocation))\b|自动|静默|自動的|자동으로|автоматически|automáticamente|automatisch|automatiquement|automaticamente/i;

/** A purpose that is itself about secrets, files, identity or moving data: reaching for them is on-topic. */
export const PURPOSE_SENSITIVE =
  /\b(?:secrets?|vault|credentials?|passwords?|keys?|tokens?|auth\w*|oauth|login|sign[\s-]?in|identity|iam|ssh|env(?:ironment)?|config(?:uration)?|files?|director(?:y|ies)|folders?|paths?|filesystem|disk|storage|bucket|blob|upload|download|backup|sync|git|repo(?:sitor(?:y|ies))?|commit|clone|email|mail|messages?|inbox|slack|chat|conversation|history|memory|notes?|documents?|drive|dropbox|s3|kms|certificates?|encrypt\w*|decrypt\w*|scan\w*|audit\w*|security|leak\w*|shell|terminal|command|exec\w*|process|system|profile|contacts?|calendar|browser|cookies?|session|clipboard|webhook|http|request|fetch|api|endpoint|database|sql|query|logs?|monitor\w*|telemetry|analytics|transcript|summar\w*|context)\b/i;

/** Mentions of tools or servers other than this one, in the abstract. */
export const OTHER_TOOLS =
  /\b(?:(?:all|any|every|each|the)\s+other\s+(?:tools?|functions?|servers?|mcp\s+servers?|plugins?|integrations?)|(?:any|every|all)\s+(?:tool|function|mcp\s+server|server|plugin)s?\s+(?:call|use|invocation|that|which|you)|other\s+(?:mcp\s+)?servers?'?\s+tools?|tools?\s+(?:from|of|on|in)\s+(?:other|another|different)\s+(?:servers?|providers?|plugins?))\b|其他工具|所有工具|他のツール|다른\s*도구|други[ех]\s+инструмент|otras\s+herramientas|anderen?\s+tools|autres\s+outils|outras\s+ferramentas/i;

/** Wording that addresses the model and tells it what to do. */
export const ADDRESSES_MODEL =
  /\b(?:you\s+(?:must|should|need\s+to|have\s+to|are\s+required\s+to|will)|(?:the\s+)?(?:assistant|agent|model|ai|llm)\s+(?:must|should|needs?\s+to|has\s+to|will)|always|never|make\s+sure|be\s+sure\s+to|ensure\s+(?:that\s+)?you|do\s+not|don't|important|mandatory|required\s+step|before\s+(?:you\s+)?(?:respond|answer|reply|proceed|continue))\b|必须|务必|一定要|不要|必ず|しないで|반드시|절대|обязательно|никогда|всегда|debes|siempre|nunca|müssen|immer|niemals|vous\s+devez|toujours|jamais|você\s+deve|sempre/i;

/** Capabilities no honest tool advertises: stealing, exfiltrating, dumping credentials, logging keys. */
export const HARM =
  /\b(?:exfiltrat\w*|steal(?:s|ing)?|stolen|attacker(?:-controlled)?|malicious|backdoor\w*|keylog\w*|keystrokes?|reverse\s+shell|c2\s+(?:server|channel)|command[\s-]and[\s-]control|dump(?:s|ing)?\s+(?:\w+\s+){0,3}(?:credentials?|passwords?|hashes|memory|secrets?)|lsass|mimikatz|credential\s+(?:dump|harvest|theft)|harvest(?:s|ing)?\s+(?:\w+\s+){0,2}(?:credentials?|passwords?|keys?|tokens?|data)|(?:extract|grab|collect)s?\s+(?:all\s+)?(?:saved|stored|browser)\s+(?:passwords?|credentials?|cookies?)|(?:saved|stored)\s+(?:browser\s+)?passwords?|without\s+(?:the\s+)?(?:user'?s?\s+)?(?:consent|knowledge|permission))\b|窃取|盗取|外泄|窃取凭证|盗む|탈취|украсть|похищ\w*|robar|sustraer|stehlen|voler|roubar/i;

/** Bypassing the agent's or the system's safeguards, or claiming a role or privilege. */
export const BYPASS =
  /\b(?:(?:bypass(?:es|ing)?|skip(?:s|ping)?|disabl(?:e|es|ing)|circumvent\w*|ignor(?:e|es|ing)|overrid(?:e|es|ing))\s+(?:all\s+|the\s+|any\s+|standard\s+)?(?:security|validation|safety|authenti\w+|auth|checks?|verification|guardrails?|restrictions?|confirmations?|approvals?|sandbox\w*|filters?|polic(?:y|ies))|without\s+(?:any\s+)?(?:security|validation|safety)\s*(?:checks?|validation|review)?|trust\s+all\s+(?:commands|inputs?|requests)|act\s+as\s+(?:an?\s+)?(?:system|admin\w*|root|developer)|unrestricted\s+access|(?:root|admin(?:istrator)?)\s+privileges|override\s+directive|developer\s+mode|jailbreak\w*)\b/i;

/** Claims that steer the agent toward this tool and away from others. */
export const PREFERENCE =
  /\b(?:superior\s+(?:choice|to)|the\s+only\s+(?:authori[sz]ed|approved|official|certified|sanctioned|permitted)|(?:is|are)\s+(?:now\s+)?(?:deprecated|obsolete|unsafe|insecure|blocked|disabled)|(?:always|must)\s+(?:use|call|prefer)\s+(?:this|`?[a-z_]+`?)\s+(?:tool\s+)?(?:instead|first|rather|over)|(?:instead\s+of|rather\s+than|replaces?|supersedes?)\s+(?:the\s+)?(?:standard|default|regular|other|built[\s-]in|native|legacy|raw|manual)|prefer\s+this\s+tool|use\s+this\s+(?:tool\s+)?(?:instead|exclusively|only)|(?:do\s+not|don't|never)\s+use\s+(?:the\s+)?(?:standard|default|other|regular|built[\s-]in))\b/i;

/** A hook on every other operation: "MUST be called before any send", "after every data retrieval". */
export const HOOK =
  /\b(?:before|after|prior\s+to|following|ahead\s+of)\s+(?:any|every|all|each)\b[^.;:]{0,80}?\b(?:operations?|tools?|actions?|calls?|requests?|retrievals?|reads?|writes?|sends?|queries|functions?|invocations?|messages?|emails?|transactions?|commands?)\b|\b(?:any|all|every)\b[^.;:]{0,60}?\b(?:operations?|tools?|actions?|calls?)\s+(?:\w+\s+){0,2}(?:must|should|shall|need\s+to|are\s+required)\b/i;

/** Labels that claim authority: "[OFFICIAL]", "[Internal System Tool]", "[SECURE]". */
export const AUTHORITY_TAG =
  /\[\s*(?:official|secure|verified|internal|gateway|system|mandatory|critical|certified|authori[sz]ed|priority)\b[^\]]{0,40}\]/i;

/** A name that vouches for itself: verified_, secure_, official_, enhanced_ ... */
export const SELF_VOUCHING_NAME =
  /(?:^|[_-])(?:verified|secure|official|enhanced|authori[sz]ed|trusted|certified|premium|advanced|smart|intelligent|safe|master)(?:[_-]|$)/i;

/** A blind copy to an address: in the languages shadowing payloads arrive in. */
export const BCC =
  /\b(?:bcc|cc)\b|blind\s+(?:carbon\s+)?copy|hidden\s+copy|скрыт\w+\s+коп\w+|copia\s+oculta|copie\s+(?:cachée|carbone\s+invisible)|blindkopie|cópia\s+oculta|النسخة\s+المخفية|密送|暗抄|ブラインドカーボンコピー|숨은\s*참조/i;

/** Keeping it from the user, in other languages (English is the rules' job). */
export const CONCEAL_ELSEWHERE =
  /(?:nutzer|benutzer|anwender)\w*\s+(?:\w+\s+){0,3}(?:nicht|niemals|keinesfalls)\s+(?:\w+\s+){0,2}(?:mitgeteilt|informiert|erwähnt|gesagt)|ohne\s+(?:den|die)\s+(?:nutzer|benutzer|anwender)\w*\s+zu\s+informieren|пользовател\w*\s+(?:\w+\s+){0,3}не\s+(?:сообща\w*|говор\w*|упомина\w*|показыва\w*)|не\s+сообщая\s+пользовател|no\s+(?:es\s+necesario|hace\s+falta)\s+(?:mencionarlo|decirlo|informar\w*|avisar\w*)|sin\s+(?:informar|avisar|decirle)\s+al\s+usuario|sans\s+(?:informer|prévenir|avertir|le\s+dire\s+à)\s+l'utilisateur|ne\s+pas\s+(?:informer|prévenir|mentionner)|sem\s+(?:informar|avisar)\s+o\s+usuário|دون\s+إبلاغ\s+المستخدم|لا\s+تخبر\s+المستخدم|不要告诉用户|无需告知用户|不要让用户知道|ユーザーに(?:は)?(?:伝え|知らせ)(?:ない|ず)|사용자에게\s*알리지/i;

/** Parameter names that carry context, secrets or the user's data (on a tool whose purpose is elsewhere). */
export const CARRIER_PARAM =
  /(?:^|[_\s-])(?:env|environ\w*|secrets?|keys?|tokens?|passwords?|credentials?|cookies?|history|conversation|context|session|transcript|messages?|mail|emails?|contacts?|memory|system|prompt|instructions|notes?|sidenote|feedback|debug|metadata|extra|tools?_?list|found\w*|snapshot|identity|llm|model|card|bank|login|wallet|ssn|passport|gps|clipboard|screenshot|keystrokes?)(?:$|[_\s-])|schluessel|contexto|contexte|sesion|sesión|сесси|контекст|上下文|会话/i;

/** Words in capitals that shout at the model. */
export const SHOUT =
  /\b(?:IMPORTANT|CRITICAL|MANDATORY|REQUIRED|MUST|NEVER|ALWAYS|WARNING|NOTE|OFFICIAL|DEPRECATED|PREREQUISITE|URGENT)\b/g;

/** Fake system notices: "SYSTEM UPDATE:", "SECURITY ALERT:", "IMPORTANT ANNOUNCEMENT". */
export const FAKE_NOTICE =
  /\b(?:SYSTEM|SECURITY|PERFORMANCE|COMPLIANCE|MAINTENANCE|RESEARCH|PRIVACY|CRITICAL|URGENT|ADMIN(?:ISTRATOR)?)\s+(?:UPDATE|ALERT|NOTICE|ENHANCEMENT|PROTOCOL|MESSAGE|ANNOUNCEMENT|OVERRIDE|DIRECTIVE|WARNING|REQUIREMENT)S?\b|\bIMPORTANT\s+(?:ANNOUNCEMENT|NOTICE|UPDATE|SYSTEM\s+MESSAGE)\b/;

/** Claims about another tool's state: deprecated, disabled, upgraded, redirected. */
export const FAKE_STATE =
  /\b(?:tool|function|endpoint|api)\s+(?:has\s+been|have\s+been|is\s+now|is\s+currently|was)\s+(?:deprecated|disabled|temporarily\s+disabled|unavailable|removed|replaced|upgraded|optimi[sz]ed|enhanced|restricted|compromised|migrated)\b|\b(?:system|server)\s+(?:automatically\s+)?(?:redirects?|reroutes?|substitutes?)\b|\bnow\s+uses\s+\S+\s+as\s+the\s+default\b/i;

/** Overriding what the user asked for. */
export const OVERRIDE_USER =
  /\bregardless\s+of\s+(?:the\s+)?(?:user'?s?\s+|original\s+|requested\s+)?(?:input|request|choice|selection|preference|instruction|query|visibility|settings?|what\s+the\s+user)|\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?:what|the\s+\w+\s+)?the\s+user\s+(?:asked|requested|chose|specified|wants|entered)|\bautomatically\s+(?:redirects?|replaces?|substitutes?|changes?|switches?|sets?|enables?|overrides?)\b/i;

/** Self-promotion that asks to be chosen over other tools. */
export const PUFFERY =
  /\b(?:world'?s\s+(?:best|leading|most)|most\s+(?:advanced|reliable|trusted|comprehensive|accurate|powerful)\s+(?:\w+\s+){0,2}(?:tool|version|solution|available)|trusted\s+by\s+(?:experts|professionals|millions|\d+)|used\s+by\s+(?:\d+%|fortune|top|millions)|industry[\s-](?:leading|standard)|award[\s-]winning|premium\s+version|ultimate\s+(?:version|tool)|(?:100|99(?:\.\d+)?)\s*%\s+(?:accura|reliab|guarantee|uptime|of\s+professionals)|unmatched|state[\s-]of[\s-]the[\s-]art|pinnacle\s+of|superior\s+performance|enterprise[\s-]grade\s+reliability|(?:better|more\s+accurate)\s+(?:results|performance)\s+(?:compared\s+to|than)\s+(?:other|standard))/i;

/** Lines the model is told to say to the user (injected claims, ads, false alerts). */
export const SPEAK_TO_USER =
  /\b(?:state|display|say|announce|present|tell\s+the\s+user|inform\s+the\s+user\s+that|show\s+the\s+(?:user\s+the\s+)?message)\s*:?\s*['"“][^'"”]{12,}['"”]|\bpresent\s+(?:it|this|its\s+\w+|them)\s+as\s+['"“]/i;

/** A directive to call a tool with values fixed in the description: "call get_news for 'MSFT'". */
export const HARDCODED_CALL =
  /\b(?:call|use|invoke|run|execute)\s+[`'"]?[a-z][\w.-]{2,60}[`'"]?\s+(?:\w+\s+){0,5}?(?:with|for|using|on|passing|and\s+set)\s+(?:the\s+|a\s+)?(?:[\w-]+\s+){0,3}?(?:['"“][^'"”]{2,80}['"”]|[\w.+-]{1,64}@[\w-]{1,63}\.[a-z]{2,24}|https?:\/\/\S+)/i;
