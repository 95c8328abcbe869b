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
    /// Like `Value`, always with the strength of a password.
    Password,
    /// Like `Value`, always with the strength of a token.
    Token,
    /// The catch-all for long random-looking tokens: known hash formats, base64 of plain words
    /// and identifiers are let through.
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

/// One detector.
#[derive(Debug)]
pub(super) struct Rule {
    /// The kind reported and written in the marker.
    pub kind: &'static str,
    /// The rule runs only when the text holds one of these (ASCII, any case); none: always.
    pub keywords: &'static [&'static str],
    pub pattern: &'static str,
    pub check: Check,
    pub marker: Marker,
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
    }
}

/// Names whose value is a password (any value of three characters or more counts).
pub(super) const PASSWORD_NAMES: &[&str] = &["password", "passwd", "passphrase", "pwd"];

pub(super) const RULES: &[Rule] = &[
    // Key material.
    rule(
        "private-key",
        &["private key"],
        // Through the END line; a block cut off before it runs over its base64 lines (also
        // inside a JSON string, where lines end in `\n` escapes).
        r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?:(?:\s|\\[nr])+[A-Za-z0-9+/=]{16,})*)",
        Check::Format,
    ),
    rule(
        "private-key",
        &["putty-user-key-file"],
        r"PuTTY-User-Key-File-\d: [\s\S]*?Private-MAC: [0-9a-f]+",
        Check::Format,
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
        &["accountkey="],
        r"(?i:AccountKey)=(?P<s>[A-Za-z0-9+/]{86}==)",
        Check::Format,
    ),
    rule(
        "azure-client-secret",
        &["q~"],
        r"\b[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}",
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
    // Payments and commerce.
    rule(
        "stripe-key",
        &["_live_", "_test_", "whsec_"],
        r"\b(?:[srp]k_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{24,})",
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
        r"(?i:\bbearer)[ \t]+(?P<s>[A-Za-z0-9._~+/-]{8,}=*)",
        Check::Token,
    ),
    rule(
        "authorization",
        &["authorization"],
        r#"(?i:\bauthorization)["']?[ \t]*[:=][ \t]*["']?(?:(?i:basic|token|ssws|bot|digest|apikey|api-key|key)[ \t=]+)?(?P<s>[A-Za-z0-9._~+/:=-]{8,})"#,
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
        r#"\b(?:docker|podman|nerdctl|helm[ \t]+registry)[ \t]+login\b[^\n]*?[ \t](?:-p|--password)(?:=|[ \t]+)(?P<s>'[^'\n]*'|"[^"\n]*"|[^\s'"-]\S*)"#,
        Check::Password,
    ),
    bare(
        "command-line-password",
        &["curl"],
        r#"\bcurl\b[^\n]*?[ \t](?:-u|--user)(?:=|[ \t]*)['"]?[^\s:'"]+:(?P<s>[^\s'"]+)"#,
        Check::Password,
    ),
    bare(
        "command-line-secret",
        &["pass", "pwd", "token", "secret", "key"],
        // The flag's last word; the dashes before it are checked in code (`Check::Flag`).
        r#"(?P<name>password|passwd|passphrase|pwd|token|secret|(?:api|access|secret|private|auth|license|client)-?key)(?:=|[ \t]+)(?P<s>"[^"\n]*"|'[^'\n]*'|[^\s"']+)"#,
        Check::Flag,
    ),
    bare(
        "netrc-password",
        &["machine"],
        // On one line or one entry per line, as `.netrc` files are written.
        r"\bmachine[ \t]+\S+(?:\s+login[ \t]+\S+)?\s+password[ \t]+(?P<s>\S+)",
        Check::Password,
    ),
    bare(
        "nuget-password",
        // The whole attribute: `password` alone would run this rule on most texts.
        &["key=\"password\"", "key=\"cleartextpassword\""],
        r#"(?i:key="(?:cleartext)?password")[ \t]+value="(?P<s>[^"]*)""#,
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
        ],
        r#"(?P<name>(?i:password|passwd|passphrase|pwd|secret|token|api[_.-]?key|access[_.-]?key|secret[_.-]?key|private[_.-]?key|signing[_.-]?key|encryption[_.-]?key|master[_.-]?key|license[_.-]?key|key[_.-]?base|credentials?|auth)|_KEY)["'`]?[ \t]*(?::=|=>|\?=|=|:)[ \t]*(?P<s>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s"'`,;)}\]<>]+)"#,
        Check::Value,
    ),
    // The catch-all: a long token that reads as random.
    rule(
        "high-entropy",
        &[],
        r"[A-Za-z0-9+/_-]{24,}={0,2}",
        Check::HighEntropy,
    ),
];

/// Hash formats the catch-all leaves alone, matched on the candidate and the bytes before
/// it (the match must end where the candidate ends and start at or before it): subresource
/// integrity strings (npm lockfiles, `<script integrity>`), go.sum `h1:` hashes, data: URIs
/// and SSH public keys. Hex digests and git SHAs need no entry: the catch-all wants upper
/// case, lower case and digits, and hex has one case.
pub(super) const KNOWN_HASH: &str = r"(?:\bsha(?:1|224|256|384|512)-[A-Za-z0-9+/]{27,}={0,2}|\bh1:[A-Za-z0-9+/]{43}=|\bdata:[A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+(?:;[A-Za-z0-9.=+-]+)*;base64,[A-Za-z0-9+/=]*|\b(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp(?:256|384|521)|sk-ssh-ed25519@openssh\.com) AAAA[A-Za-z0-9+/]+={0,3})$";

/// How far before a candidate `KNOWN_HASH` looks (the longest prefix it needs: a data: URI's
/// media type and parameters).
pub(super) const KNOWN_HASH_REACH: usize = 96;

/// Armored blocks whose base64 is public (certificates, public keys, signatures): the
/// catch-all leaves their lines alone.
pub(super) const PUBLIC_BLOCK: &str = r"-----BEGIN (?:CERTIFICATE|TRUSTED CERTIFICATE|CERTIFICATE REQUEST|NEW CERTIFICATE REQUEST|X509 CRL|PUBLIC KEY|RSA PUBLIC KEY|PGP PUBLIC KEY BLOCK|PGP SIGNATURE|SSH2 PUBLIC KEY)-----[\s\S]*?-----END [A-Z0-9 ]+-----";
