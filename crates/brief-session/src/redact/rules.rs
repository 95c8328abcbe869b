//! The rule table. Order matters twice: where the secrets of several rules overlap, the
//! marker names the first rule's kind (so a provider's key inside an assignment is reported
//! by its provider), and the catch-all `high-entropy` comes last.
//!
//! Patterns are compiled as byte regexes without Unicode (ASCII classes, ASCII `\b`). The
//! secret is the group named `s` when the pattern has one, else the whole match. Patterns
//! never end on a look-ahead; what must (not) follow a secret is checked in code.

/// How a rule's candidate is confirmed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Check {
    /// The format alone identifies the secret.
    Format,
    /// The format, and a body that reads as random: at least this Shannon entropy (bits per
    /// character) and at least one digit.
    Random(f64),
    /// A value given to a secret-named key or flag (group `name` holds the name): the
    /// allow-lists for code, placeholders and references apply, and the strength the name
    /// calls for (a password, or a token that must read as random).
    Value,
    /// A `Value` given to a command-line flag: the name must be the last word of a `-flag` or
    /// `--flag`.
    Flag,
    /// A `Value` written as a literal in markup (an XML element or attribute, a property
    /// list): placeholders are let through, code is not looked for.
    Literal,
    /// Like `Value`, always with the strength of a password.
    Password,
    /// Like `Value`, always with the strength of a token.
    Token,
    /// The credential of an HTTP `Authorization` header or a bearer token: any value that is
    /// not a placeholder, a reference or a plain word.
    Credential,
    /// Base64 whose decoding opens a PEM private-key block (`LS0tLS1CRUdJTi…`, as in a
    /// kubeconfig's `client-key-data`).
    EncodedKey,
    /// The catch-all for long random-looking tokens: known public formats, base64 of plain
    /// words and identifiers are let through.
    HighEntropy,
}

/// How the secret is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Marker {
    /// `[REDACTED:kind]`.
    Kind,
    /// `[REDACTED]`: the name beside it already says what it was.
    Bare,
}

/// How far a secret reaches from where the rule's pattern matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reach {
    /// The match, or its group `s`.
    Match,
    /// An armored block: the pattern matches its first line; the block runs through the first
    /// match of `end` before the rule's next match, or, cut off before it, over what `tail`
    /// matches right after the first line. Each search stops at the next block, so many
    /// unterminated blocks cost one pass over the text rather than one pass each.
    Block {
        /// The block's last line.
        end: &'static str,
        /// What a cut-off block runs over (matched at the end of the first line).
        tail: &'static str,
    },
}

/// One detector.
#[derive(Debug)]
pub(super) struct Rule {
    /// The kind reported and written in the marker.
    pub kind: &'static str,
    /// The rule runs only when the text holds one of these (ASCII, any case); none: always.
    pub keywords: &'static [&'static str],
    /// A byte regex without Unicode classes; the secret is its group `s` or the whole match.
    pub pattern: &'static str,
    /// How a candidate is confirmed.
    pub check: Check,
    /// How the secret is replaced.
    pub marker: Marker,
    /// How far the secret reaches from the match.
    pub reach: Reach,
}

const fn rule(
    kind: &'static str,
    keywords: &'static [&'static str],
    pattern: &'static str,
    check: Check,
) -> Rule {
    Rule {
        kind,
        keywords,
        pattern,
        check,
        marker: Marker::Kind,
        reach: Reach::Match,
    }
}

const fn bare(
    kind: &'static str,
    keywords: &'static [&'static str],
    pattern: &'static str,
    check: Check,
) -> Rule {
    Rule {
        kind,
        keywords,
        pattern,
        check,
        marker: Marker::Bare,
        reach: Reach::Match,
    }
}

const fn block(
    kind: &'static str,
    keywords: &'static [&'static str],
    first_line: &'static str,
    end: &'static str,
    tail: &'static str,
) -> Rule {
    Rule {
        kind,
        keywords,
        pattern: first_line,
        check: Check::Format,
        marker: Marker::Kind,
        reach: Reach::Block { end, tail },
    }
}

/// Names whose value is a password (any value of three characters or more counts).
pub(super) const PASSWORD_NAMES: &[&str] = &["password", "passwd", "passphrase", "pwd", "pass"];

pub(super) const RULES: &[Rule] = &[
    // Key material.
    block(
        "private-key",
        &["private key"],
        r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----",
        r"-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----",
        // Cut off before its END line: its base64 lines (also inside a JSON string, where
        // lines end in `\n` escapes).
        r"^(?:(?:\s|\\[nr])+[A-Za-z0-9+/=]{16,})*",
    ),
    block(
        "private-key",
        &["putty-user-key-file"],
        r"PuTTY-User-Key-File-\d: ",
        r"Private-MAC: [0-9a-f]+",
        r"^[^\n]*(?:\r?\n(?:[A-Za-z-]+: [^\n]*|[A-Za-z0-9+/=]{16,}))*",
    ),
    rule(
        "private-key",
        // `-----BEGIN` in base64 (a kubeconfig's `client-key-data`, a Kubernetes secret's
        // `tls.key`); the check decodes the label.
        &["ls0tls1crudjti"],
        r"\bLS0tLS1CRUdJTi[A-Za-z0-9+/]*={0,2}",
        Check::EncodedKey,
    ),
    rule(
        "age-secret-key",
        &["age-secret-key-1"],
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        Check::Format,
    ),
    rule(
        "jwt",
        &["eyj"],
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
        Check::Format,
    ),
    // Cloud providers.
    rule(
        "aws-key",
        &["akia", "asia", "abia", "acca"],
        r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b",
        Check::Format,
    ),
    rule(
        "google-api-key",
        &["aiza"],
        r"\bAIza[A-Za-z0-9_-]{35}",
        Check::Format,
    ),
    rule(
        "google-oauth-secret",
        &["gocspx-"],
        r"\bGOCSPX-[A-Za-z0-9_-]{28}",
        Check::Format,
    ),
    rule(
        "firebase-key",
        &[":apa91b"],
        r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}",
        Check::Format,
    ),
    rule(
        "azure-storage-key",
        // Whatever its length: the name says what it is.
        &["accountkey="],
        r"(?i:\bAccountKey)=(?P<s>[^;\s'`<>]+)",
        Check::Password,
    ),
    rule(
        "azure-shared-access-key",
        &["sharedaccesskey=", "sharedaccesssignature="],
        r"(?i:\bSharedAccess(?:Key|Signature))=(?P<s>[^;\s'`<>]+)",
        Check::Password,
    ),
    rule(
        "url-signature",
        // Signed URLs (Azure SAS, S3 and GCS presigned URLs) grant access until they expire.
        &["sig=", "signature=", "security-token="],
        r"[?&;](?i:sig|signature|x-amz-signature|x-goog-signature|x-amz-security-token)=(?P<s>[A-Za-z0-9%+/=._~-]{16,})",
        Check::Random(3.0),
    ),
    rule(
        "azure-client-secret",
        &["q~"],
        r"\b[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}",
        Check::Format,
    ),
    rule(
        "alibaba-access-key",
        &["ltai"],
        r"\bLTAI[A-Za-z0-9]{12,20}\b",
        Check::Format,
    ),
    rule(
        "tencent-secret-id",
        &["akid"],
        r"\bAKID[A-Za-z0-9]{32}\b",
        Check::Format,
    ),
    rule(
        "cloudflare-origin-ca-key",
        &["v1.0-"],
        r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b",
        Check::Format,
    ),
    rule(
        "digitalocean-token",
        &["_v1_"],
        r"\bdo[opr]_v1_[a-f0-9]{64}\b",
        Check::Format,
    ),
    rule(
        "heroku-key",
        &["hrku-"],
        r"\bHRKU-[A-Za-z0-9_-]{58,}",
        Check::Format,
    ),
    rule(
        "databricks-token",
        &["dapi"],
        r"\bdapi[a-f0-9]{32}(?:-\d)?\b",
        Check::Format,
    ),
    rule(
        "vault-token",
        &["hvs.", "hvb.", "hvr."],
        r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}",
        Check::Format,
    ),
    rule(
        "terraform-token",
        &["atlasv1"],
        r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
        Check::Format,
    ),
    rule(
        "pulumi-token",
        &["pul-"],
        r"\bpul-[a-f0-9]{40}\b",
        Check::Format,
    ),
    rule(
        "doppler-token",
        &["dp."],
        r"\bdp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9_-]{40,}",
        Check::Format,
    ),
    rule(
        "planetscale-token",
        &["pscale_"],
        r"\bpscale_(?:tkn|oauth|pw)_[A-Za-z0-9_.=-]{32,64}",
        Check::Format,
    ),
    rule(
        "tailscale-key",
        &["tskey-"],
        r"\btskey-[a-z]+-[A-Za-z0-9]+-[A-Za-z0-9]+",
        Check::Format,
    ),
    rule(
        "fly-token",
        &["fo1_"],
        r"\bfo1_[A-Za-z0-9_-]{43}",
        Check::Format,
    ),
    rule(
        "netlify-token",
        &["nfp_"],
        r"\bnfp_[A-Za-z0-9]{36}\b",
        Check::Format,
    ),
    rule(
        "supabase-token",
        &["sbp_"],
        r"\bsbp_[a-f0-9]{40}\b",
        Check::Format,
    ),
    rule(
        "dynatrace-token",
        &["dt0c01."],
        r"\bdt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b",
        Check::Format,
    ),
    rule(
        "new-relic-key",
        &["nrak-"],
        r"\bNRAK-[A-Z0-9]{27}\b",
        Check::Format,
    ),
    // Source hosting, registries and CI.
    rule(
        "github-token",
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})",
        Check::Format,
    ),
    rule(
        "gitlab-token",
        &[
            "glpat-", "glrt-", "gldt-", "glptt-", "glsoat-", "glft-", "glimt-", "glagent-",
            "gloas-", "glcbt-",
        ],
        r"\bgl(?:pat|rt|dt|ptt|soat|ft|imt|agent|oas|cbt)-[A-Za-z0-9_.-]{20,}",
        Check::Format,
    ),
    rule(
        "bitbucket-token",
        &["atbb"],
        r"\bATBB[A-Za-z0-9_=.-]{32,}",
        Check::Format,
    ),
    rule(
        "npm-token",
        &["npm_"],
        r"\bnpm_[A-Za-z0-9]{36}\b",
        Check::Format,
    ),
    rule(
        "pypi-token",
        &["pypi-"],
        r"\bpypi-AgE[A-Za-z0-9_-]{50,}",
        Check::Format,
    ),
    rule(
        "rubygems-key",
        &["rubygems_"],
        r"\brubygems_[a-f0-9]{48}\b",
        Check::Format,
    ),
    rule("nuget-key", &["oy2"], r"\boy2[a-z0-9]{43}\b", Check::Format),
    rule(
        "crates-io-token",
        &["cio"],
        r"\bcio[A-Za-z0-9]{32}\b",
        Check::Random(3.5),
    ),
    rule(
        "docker-hub-token",
        &["dckr_"],
        r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}",
        Check::Format,
    ),
    rule(
        "artifactory-key",
        &["akcp"],
        r"\bAKCp[A-Za-z0-9]{69}\b",
        Check::Format,
    ),
    rule(
        "postman-key",
        &["pmak-"],
        r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b",
        Check::Format,
    ),
    rule(
        "sentry-token",
        &["sntry"],
        r"\bsntry[us]_[A-Za-z0-9+/=_]{40,}",
        Check::Format,
    ),
    rule(
        "grafana-token",
        &["glsa_", "glc_"],
        r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})",
        Check::Format,
    ),
    rule(
        "sonarqube-token",
        &["squ_", "sqp_", "sqa_"],
        r"\bsq[upa]_[a-f0-9]{40}\b",
        Check::Format,
    ),
    rule(
        "buildkite-token",
        &["bkua_"],
        r"\bbkua_[a-f0-9]{40}\b",
        Check::Format,
    ),
    rule(
        "circleci-token",
        &["ccipat_"],
        r"\bCCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}\b",
        Check::Format,
    ),
    // Chat and messaging.
    rule(
        "slack-token",
        &["xox", "xapp-"],
        r"\b(?:xox[abposer]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})",
        Check::Format,
    ),
    rule(
        "slack-webhook",
        &["hooks.slack.com"],
        r"hooks\.slack\.com/(?P<s>(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,})",
        Check::Format,
    ),
    rule(
        "discord-webhook",
        &["discord.com/api", "discordapp.com/api"],
        r"discord(?:app)?\.com/api/(?:v\d+/)?webhooks/(?P<s>\d{15,20}/[A-Za-z0-9_-]{60,})",
        Check::Format,
    ),
    rule(
        "discord-bot-token",
        &["discord", "bot"],
        r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b",
        Check::Random(4.0),
    ),
    rule(
        "teams-webhook",
        &["webhook.office.com"],
        r"\.webhook\.office\.com/webhookb2/(?P<s>[A-Za-z0-9@/-]{60,})",
        Check::Format,
    ),
    rule(
        "mattermost-webhook",
        &["/hooks/"],
        r"/hooks/(?P<s>[a-z0-9]{26})\b",
        Check::Random(3.5),
    ),
    rule(
        "telegram-bot-token",
        &[":aa"],
        r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}\b",
        Check::Format,
    ),
    rule(
        "twilio-key",
        &["sk"],
        r"\bSK[0-9a-fA-F]{32}\b",
        Check::Format,
    ),
    rule(
        "sendgrid-key",
        &["sg."],
        r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}",
        Check::Format,
    ),
    rule(
        "mailgun-key",
        &["key-"],
        r"\bkey-[0-9a-f]{32}\b",
        Check::Format,
    ),
    rule(
        "mailchimp-key",
        &["-us"],
        r"\b[0-9a-f]{32}-us[0-9]{1,2}\b",
        Check::Format,
    ),
    rule(
        "brevo-key",
        &["xkeysib-"],
        r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b",
        Check::Format,
    ),
    rule(
        "resend-key",
        &["re_"],
        r"\bre_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}\b",
        Check::Format,
    ),
    // Payments and commerce.
    rule(
        "stripe-key",
        &["_live_", "_test_", "whsec_", "_secret_"],
        r"\b(?:[srp]k_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{24,}|(?:pi|seti)_[A-Za-z0-9]{24}_secret_[A-Za-z0-9]{24,})",
        Check::Format,
    ),
    rule(
        "shopify-token",
        &["shpat_", "shpca_", "shppa_", "shpss_"],
        r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
        Check::Format,
    ),
    rule(
        "square-token",
        &["sq0", "eaaa"],
        r"\b(?:sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}|EAAA[A-Za-z0-9_-]{60})\b",
        Check::Format,
    ),
    rule(
        "plaid-token",
        &[
            "access-sandbox-",
            "access-development-",
            "access-production-",
        ],
        r"\baccess-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
        Check::Format,
    ),
    rule(
        "braintree-token",
        &["access_token$"],
        r"\baccess_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}\b",
        Check::Format,
    ),
    rule(
        "flutterwave-key",
        &["flwseck"],
        r"\bFLWSECK(?:_TEST)?-[a-f0-9]{32}-X\b",
        Check::Format,
    ),
    rule(
        "shippo-token",
        &["shippo_"],
        r"\bshippo_(?:live|test)_[a-f0-9]{40}\b",
        Check::Format,
    ),
    rule(
        "easypost-key",
        &["ezak", "eztk"],
        r"\bEZ[AT]K[a-f0-9]{54}\b",
        Check::Format,
    ),
    rule(
        "mapbox-secret-token",
        &["sk.eyj"],
        r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
        Check::Format,
    ),
    // AI and other SaaS.
    rule(
        "anthropic-key",
        &["sk-ant-"],
        r"\bsk-ant-[A-Za-z0-9_-]{20,}",
        Check::Format,
    ),
    rule(
        "openai-key",
        &["sk-"],
        r"\bsk-[A-Za-z0-9_-]{20,}",
        Check::Random(3.5),
    ),
    rule(
        "huggingface-token",
        &["hf_"],
        r"\bhf_[A-Za-z]{34}\b",
        Check::Format,
    ),
    rule(
        "groq-key",
        &["gsk_"],
        r"\bgsk_[A-Za-z0-9]{52}\b",
        Check::Format,
    ),
    rule(
        "replicate-token",
        &["r8_"],
        r"\br8_[A-Za-z0-9]{37}\b",
        Check::Format,
    ),
    rule(
        "perplexity-key",
        &["pplx-"],
        r"\bpplx-[A-Za-z0-9]{48}\b",
        Check::Format,
    ),
    rule(
        "xai-key",
        &["xai-"],
        r"\bxai-[A-Za-z0-9]{80}\b",
        Check::Format,
    ),
    rule(
        "langsmith-key",
        &["lsv2_"],
        r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b",
        Check::Format,
    ),
    rule(
        "pinecone-key",
        &["pcsk_"],
        r"\bpcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{50,}",
        Check::Format,
    ),
    rule(
        "linear-key",
        &["lin_api_"],
        r"\blin_api_[A-Za-z0-9]{40}\b",
        Check::Format,
    ),
    rule(
        "notion-token",
        &["ntn_", "secret_"],
        r"\b(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\b",
        Check::Format,
    ),
    rule(
        "atlassian-token",
        &["atatt3"],
        r"\bATATT3[A-Za-z0-9_=-]{100,}",
        Check::Format,
    ),
    rule(
        "1password-token",
        &["ops_eyj"],
        r"\bops_eyJ[A-Za-z0-9+/]{100,}={0,3}",
        Check::Format,
    ),
    // HTTP credentials.
    rule(
        "bearer-token",
        &["bearer"],
        r"(?i:\bbearer)[ \t]+(?P<s>[A-Za-z0-9._~+/%-]{8,}=*)",
        Check::Credential,
    ),
    rule(
        "authorization",
        &["authorization"],
        // The scheme is any one word (`Basic`, `token`, `Splunk`, `Api-Token`, `key=`).
        r#"(?i:\bauthorization)["']?[ \t]*[:=][ \t]*["']?(?:[A-Za-z][A-Za-z0-9-]{1,24}[ \t=]+)?(?P<s>[A-Za-z0-9._~+/:=%-]{8,})"#,
        Check::Credential,
    ),
    bare(
        "session-cookie",
        &["cookie"],
        // The first session cookie of a `Cookie:` or `Set-Cookie:` header (`sessionid=…`).
        r"(?i:\b(?:set-)?cookie)[ \t]*:(?:[^\n;]*;)*?[ \t]*(?P<name>[A-Za-z0-9_.-]*(?i:sess|sid|auth|jwt|remember)[A-Za-z0-9_.-]*)=(?P<s>[^;\s]+)",
        Check::Token,
    ),
    // URLs with credentials: the password goes, the rest stays readable.
    bare(
        "connection-credentials",
        &["://"],
        r#"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/'"<>@:]*:(?P<s>[^\s/'"<>]+)@[A-Za-z0-9\[]"#,
        Check::Password,
    ),
    bare(
        "connection-credentials",
        &["://"],
        r#"\b[A-Za-z][A-Za-z0-9+.-]*://(?P<s>[A-Za-z0-9_-]{20,})@[A-Za-z0-9\[]"#,
        Check::Token,
    ),
    bare(
        "connection-credentials",
        // Oracle's `user/password@host` (JDBC thin URLs, `sqlplus`).
        &["jdbc:oracle:", "sqlplus"],
        r"(?:\bjdbc:oracle:[a-z]+:|\bsqlplus[ \t]+(?:-[A-Za-z]+[ \t]+)*)[A-Za-z0-9_$#]+/(?P<s>[^@\s/'\x22]+)@",
        Check::Password,
    ),
    // Passwords on command lines and in credential files.
    bare(
        "command-line-password",
        &["mysql", "mariadb"],
        r#"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mariadb|mariadb-dump)\b[^\n]*?[ \t]-p(?P<s>'[^'\n]*'|"[^"\n]*"|[^\s'"-]\S*)"#,
        Check::Password,
    ),
    bare(
        "command-line-password",
        &["-p'", "-p\""],
        r#"[ \t]-p(?P<s>'[^'\n]+'|"[^"\n]+")"#,
        Check::Password,
    ),
    bare(
        "command-line-password",
        &["sshpass"],
        r#"\bsshpass[ \t]+-p[ \t]*(?P<s>'[^'\n]*'|"[^"\n]*"|\S+)"#,
        Check::Password,
    ),
    bare(
        "command-line-password",
        &["login"],
        r#"\b(?:docker|podman|nerdctl|helm[ \t]+registry|az)[ \t]+login\b[^\n]*?[ \t](?:-p|--password)(?:=|[ \t]+)(?P<s>'[^'\n]*'|"[^"\n]*"|[^\s'"-]\S*)"#,
        Check::Password,
    ),
    bare(
        "command-line-password",
        // `echo … | docker login --password-stdin`: the echoed value.
        &["password-stdin"],
        r#"\becho[ \t]+(?:-n[ \t]+)?(?P<s>"[^"\n]*"|'[^'\n]*'|[^\s|'"]+)[ \t]*\|[^\n]*--password-stdin"#,
        Check::Password,
    ),
    bare(
        "command-line-password",
        &["curl"],
        r#"\bcurl\b[^\n]*?[ \t](?:-u|--user)(?:=|[ \t]*)['"]?[^\s:'"]+:(?P<s>[^\s'"]+)"#,
        Check::Password,
    ),
    bare(
        "command-line-password",
        &["redis-cli"],
        r#"\bredis-cli\b[^\n]*?[ \t]-a[ \t]+(?P<s>'[^'\n]*'|"[^"\n]*"|[^\s'"-]\S*)"#,
        Check::Password,
    ),
    bare(
        "command-line-password",
        &["ldap"],
        r#"\bldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn)\b[^\n]*?[ \t]-w[ \t]*(?P<s>'[^'\n]*'|"[^"\n]*"|[^\s'"-]\S*)"#,
        Check::Password,
    ),
    bare(
        "command-line-password",
        &["htpasswd"],
        r#"\bhtpasswd[ \t]+-[A-Za-z]*b[A-Za-z]*[ \t]+\S+[ \t]+\S+[ \t]+(?P<s>'[^'\n]*'|"[^"\n]*"|\S+)"#,
        Check::Password,
    ),
    bare(
        "command-line-password",
        // OpenSSL's `-passin pass:…`, `-passout pass:…`, `-pass pass:…`.
        &["pass:"],
        r"-pass(?:in|out|word)?[ \t]+pass:(?P<s>\S+)",
        Check::Password,
    ),
    bare(
        "command-line-password",
        &["convertto-securestring"],
        r#"(?i:\bConvertTo-SecureString)[ \t]+(?:-String[ \t]+)?(?P<s>"[^"\n]*"|'[^'\n]*')"#,
        Check::Password,
    ),
    bare(
        "command-line-secret",
        &["secret set"],
        r#"\bgh[ \t]+secret[ \t]+set\b[^\n]*?[ \t](?:-b|--body)(?:=|[ \t]+)(?P<s>'[^'\n]*'|"[^"\n]*"|[^\s'"-]\S*)"#,
        Check::Password,
    ),
    bare(
        "command-line-secret",
        &["pass", "pwd", "token", "secret", "key"],
        // The flag's last word; the dashes before it are checked in code (`Check::Flag`).
        r#"(?P<name>password|passwd|passphrase|pwd|pass|token|secret|(?:api|access|secret|private|auth|license|client)-?key)(?:=|[ \t]+)(?P<s>"[^"\n]*"|'[^'\n]*'|[^\s"']+)"#,
        Check::Flag,
    ),
    bare(
        "netrc-password",
        &["machine"],
        // On one line or one entry per line, as `.netrc` files are written.
        r"\bmachine[ \t]+\S+(?:\s+login[ \t]+\S+)?\s+password[ \t]+(?P<s>\S+)",
        Check::Password,
    ),
    // Secrets in configuration languages that do not write `name = value`.
    bare(
        "xml-secret",
        // `<password>…</password>`, `<db:ClientSecret>…`, also with attributes.
        &[
            "password>",
            "passwd>",
            "passphrase>",
            "pwd>",
            "secret>",
            "token>",
            "key>",
            "credential>",
            "credentials>",
        ],
        r"<(?P<name>[A-Za-z0-9_.:-]*(?i:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|credentials?))(?:[ \t\r\n][^>]*[^/>])?>(?P<s>[^<]+)</",
        Check::Literal,
    ),
    bare(
        "xml-secret",
        // `<add key="SmtpPassword" value="…"/>` (.NET, NuGet), `<property name="…" value="…">`.
        &["value="],
        r#"\b(?i:key|name)=["'](?P<name>[A-Za-z0-9_.:-]*(?i:password|passwd|pwd|secret|token|api[_.-]?key|access[_.-]?key|secret[_.-]?key|private[_.-]?key))["'][ \t\r\n]+(?i:value)=(?P<s>"[^"]*"|'[^']*')"#,
        Check::Literal,
    ),
    bare(
        "xml-secret",
        // Android's `<string name="api_secret">…</string>`.
        &["<string"],
        r#"<string[ \t]+name=["'](?P<name>[A-Za-z0-9_.-]*(?i:password|passwd|secret|token|api[_-]?key|_key))["'][^>]*>(?P<s>[^<]+)</string>"#,
        Check::Literal,
    ),
    bare(
        "xml-secret",
        // A property list: `<key>Password</key><string>…</string>`.
        &["</key>"],
        r"<key>(?P<name>[^<]{0,64}(?i:password|passwd|secret|token|api[_ -]?key))</key>\s*<string>(?P<s>[^<]+)</string>",
        Check::Literal,
    ),
    bare(
        "sql-password",
        &["identified"],
        r#"(?i:\bidentified[ \t]+by)[ \t]+(?P<s>'[^'\n]*'|"[^"\n]*"|[^\s;'"]+)"#,
        Check::Password,
    ),
    bare(
        "sql-password",
        // `ALTER ROLE … WITH LOGIN PASSWORD '…'`, `CREATE USER … PASSWORD '…'`.
        &["password"],
        r"(?i:\b(?:role|user|login)\b[^\n;]*?\bpassword)[ \t]+(?P<s>'[^'\n]*')",
        Check::Password,
    ),
    bare(
        "secret-assignment",
        // PHP's `define('DB_PASSWORD', '…')` (WordPress's keys and salts).
        &["define("],
        r#"\bdefine\([ \t]*['"](?P<name>[A-Za-z0-9_]*(?i:password|passwd|pwd|secret|token|key|salt))['"][ \t]*,[ \t]*(?P<s>'[^'\n]*'|"[^"\n]*")"#,
        Check::Value,
    ),
    bare(
        "secret-assignment",
        // A Dockerfile's `ENV NAME value` (the form without `=`).
        &["env "],
        r"(?m:^)[ \t]*ENV[ \t]+(?P<name>[A-Za-z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|_KEY|_PASS))[ \t]+(?P<s>[^\s=][^\n]*)",
        Check::Value,
    ),
    bare(
        "secret-assignment",
        // redis.conf.
        &["requirepass", "masterauth"],
        r"(?m:^)[ \t]*(?P<name>requirepass|masterauth)[ \t]+(?P<s>\S+)",
        Check::Password,
    ),
    // `NAME = value`, `"name": "value"`, `name: value` where the name ends with a secret word.
    // The match starts at that word (a literal the search can skip to); the rest of the name
    // is read in code.
    bare(
        "secret-assignment",
        &[
            "pass",
            "pwd",
            "secret",
            "token",
            "key",
            "auth",
            "credential",
            "_pat",
        ],
        r#"(?P<name>(?i:password|passwd|passphrase|pwd|pass|secret|token|api[_.-]?key|access[_.-]?key|secret[_.-]?key|private[_.-]?key|signing[_.-]?key|encryption[_.-]?key|master[_.-]?key|license[_.-]?key|key[_.-]?base|credentials?|auth)|_KEY|_PAT)["'`]?[ \t]*(?::=|=>|\?=|=|:)[ \t]*(?P<s>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s"'`,;)}\]<>]+)"#,
        Check::Value,
    ),
    // The catch-all: a long token that reads as random.
    rule(
        "high-entropy",
        &[],
        r"[A-Za-z0-9+/_~-]{24,}={0,2}",
        Check::HighEntropy,
    ),
];

/// Public formats the catch-all leaves alone, matched on the candidate and the bytes before
/// it (the match must end where the candidate ends and start at or before it): subresource
/// integrity strings (npm, yarn and pnpm lockfiles, `<script integrity>`, Nix hashes), HTTP
/// digests, go.sum `h1:` hashes, NuGet lockfiles' `contentHash`, data: URIs, SSH public keys
/// and hashed `known_hosts` entries, IPFS content ids (`Qm…`, base58 `z…`) and libp2p peer
/// ids, mangled C++ and Rust symbols (`_ZN5brief…E`), Stripe object ids (`ch_…`, `cus_…`:
/// names of objects, not keys). Hex digests and git
/// SHAs need no entry: the catch-all wants upper case, lower case and digits, and hex has one
/// case; CIDv1 in base32 (`bafy…`) has one case too.
pub(super) const KNOWN_PUBLIC: &str = concat!(
    r"(?:",
    r"\bsha(?:1|224|256|384|512)-[A-Za-z0-9+/]{27,}={0,2}",
    r"|(?i:\bsha-?(?:1|224|256|384|512))[=:]:?[A-Za-z0-9+/]{27,}={0,2}",
    r"|\bh1:[A-Za-z0-9+/]{43}=",
    r#"|"contentHash":[ \t]*"[A-Za-z0-9+/]{86}=="#,
    r"|\bdata:[A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+(?:;[A-Za-z0-9.=+-]+)*;base64,[A-Za-z0-9+/=]*",
    r"|\b(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp(?:256|384|521)|sk-ssh-ed25519@openssh\.com) AAAA[A-Za-z0-9+/]+={0,3}",
    r"|\|1\|[A-Za-z0-9+/]{27}=(?:\|[A-Za-z0-9+/]{27}=)?",
    r"|\bQm[1-9A-HJ-NP-Za-km-z]{44}",
    r"|\bz(?:b2rh|dj7W)[1-9A-HJ-NP-Za-km-z]{40,}",
    r"|\b12D3KooW[1-9A-HJ-NP-Za-km-z]{44}",
    r"|\b_ZN[0-9]+[A-Za-z_$][A-Za-z0-9_$]*E",
    r"|\b(?:ch|cus|in|pi|pm|py|re|sub|si|price|prod|evt|req|txn|acct|po|tr|ii|il|seti|card|src|ba|plink|cs_live|cs_test)_[A-Za-z0-9]{14,}",
    r")$"
);

/// How far before a candidate `KNOWN_PUBLIC` looks (the longest prefix it needs: a data:
/// URI's media type and parameters).
pub(super) const KNOWN_PUBLIC_REACH: usize = 96;

/// The first line of an armored block whose base64 is public (certificates, public keys,
/// signatures): the catch-all leaves such blocks alone, through their END line.
pub(super) const PUBLIC_BLOCK: &str = r"-----BEGIN (?:CERTIFICATE|TRUSTED CERTIFICATE|CERTIFICATE REQUEST|NEW CERTIFICATE REQUEST|X509 CRL|PUBLIC KEY|RSA PUBLIC KEY|PGP PUBLIC KEY BLOCK|PGP SIGNATURE|SSH2 PUBLIC KEY)-----";

/// The last line of any armored block.
pub(super) const BLOCK_END: &str = r"-----END [A-Z0-9 ]+-----";

/// Labels of PEM blocks that hold no secret, for base64 that decodes to one (a kubeconfig's
/// `certificate-authority-data`).
pub(super) const PUBLIC_LABELS: &[&str] = &[
    "CERTIFICATE",
    "TRUSTED CERTIFICATE",
    "CERTIFICATE REQUEST",
    "NEW CERTIFICATE REQUEST",
    "X509 CRL",
    "PUBLIC KEY",
    "RSA PUBLIC KEY",
    "PGP PUBLIC KEY BLOCK",
    "PGP SIGNATURE",
];
