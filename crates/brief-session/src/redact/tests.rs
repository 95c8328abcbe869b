//! Unit and property tests of the redactor (the corpus is in `tests/redaction.rs`).

use super::*;

mod unit {
    use super::*;

    #[test]
    fn secrets_redact_unless_the_front_end_asks_to_show() {
        let text = "token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB here";
        assert_eq!(Secrets::default(), Secrets::Redact);
        assert_eq!(Secrets::from_no_redact(false), Secrets::Redact);
        assert_eq!(Secrets::from_no_redact(true), Secrets::Show);
        assert_eq!(Secrets::Redact.apply(text), redact_str(text));
        assert_ne!(Secrets::Redact.apply(text), text);
        assert_eq!(Secrets::Show.apply(text), text);
    }

    /// A byte pattern may match from inside a character (here after `%2B`, inside `Кл✓`): the
    /// replacement widens the secret to whole characters instead of slicing one.
    #[test]
    fn a_secret_that_ends_inside_a_character_is_widened_to_it() {
        let text = "Password: password=\"sk-%2BКл✓-----BEGIN RSA PRIVATE KEY-----";
        let once = redact_str(text);
        assert_ne!(once, text);
        assert!(!once.contains("sk-%2B"), "{once}");
        assert_eq!(redact_str(&once), once, "redacting twice changes nothing");
    }

    fn one(text: &str) -> (String, Vec<&'static str>) {
        let r = redact(text);
        (r.text, r.kinds)
    }

    #[test]
    fn openai_and_anthropic_keys() {
        let (t, k) = one("export OPENAI_KEY=sk-proj-4fGh7Jk2Lm9Np3Qr5St8Uv1Wx6Yz0AbCd and more");
        assert_eq!(t, "export OPENAI_KEY=[REDACTED:openai-key] and more");
        assert_eq!(k, vec!["openai-key"]);
        let (t, k) = one("key sk-ant-api03-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Ji0Hg then");
        assert_eq!(t, "key [REDACTED:anthropic-key] then");
        assert_eq!(k, vec!["anthropic-key"]);
        // Too short to be a key.
        assert_eq!(one("the sk-learn package").0, "the sk-learn package");
    }

    #[test]
    fn github_slack_stripe_google_gitlab() {
        let gh = format!("token ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A");
        assert_eq!(one(&gh).0, "token [REDACTED:github-token]");
        let pat = format!(
            "github_pat_{}",
            "11ABCDEFG0123456789_abcdefghijklmnopqrstuv"
        );
        assert_eq!(one(&pat).0, "[REDACTED:github-token]");
        assert_eq!(
            one("SLACK=xoxb-2048-4096-AbCdEfGhIjKl").0,
            "SLACK=[REDACTED:slack-token]"
        );
        assert_eq!(
            one("stripe sk_live_51HxYzAbCdEf0123").0,
            "stripe [REDACTED:stripe-key]"
        );
        assert_eq!(
            one("AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q in maps").0,
            "[REDACTED:google-api-key] in maps"
        );
        assert_eq!(
            one("glpat-Ab12Cd34Ef56Gh78Ij90").0,
            "[REDACTED:gitlab-token]"
        );
    }

    #[test]
    fn aws_access_key_needs_exactly_sixteen() {
        let (t, k) = one("aws configure: AKIAIOSFODNN7EXAMPLE rejected");
        assert_eq!(t, "aws configure: [REDACTED:aws-key] rejected");
        assert_eq!(k, vec!["aws-key"]);
        assert_eq!(one("AKIANOTAKEY").0, "AKIANOTAKEY");
        let secret = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        assert_eq!(one(secret).0, "aws_secret_access_key = [REDACTED]");
    }

    #[test]
    fn private_key_blocks() {
        let pem = "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\nq2x9\n-----END RSA PRIVATE KEY-----\nafter";
        let (t, k) = one(pem);
        assert_eq!(t, "before\n[REDACTED:private-key]\nafter");
        assert_eq!(k, vec!["private-key"]);
        // Cut off before its END line: the base64 lines go.
        let openssh = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n";
        assert_eq!(one(openssh).0, "[REDACTED:private-key]\n");
        // Public material stays.
        let cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
        assert_eq!(one(cert).0, cert);
    }

    #[test]
    fn bearer_tokens_and_jwts() {
        let (t, k) = one("Authorization: Bearer 3f9a8b7c6d5e4f3a2b1c0d");
        assert_eq!(t, "Authorization: Bearer [REDACTED:bearer-token]");
        assert_eq!(k, vec!["bearer-token"]);
        let jwt = "session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk expired";
        let (t, k) = one(jwt);
        assert_eq!(t, "session [REDACTED:jwt] expired");
        assert_eq!(k, vec!["jwt"]);
    }

    #[test]
    fn password_and_token_assignments() {
        assert_eq!(
            one("DB_PASSWORD=hunter22 psql failed").0,
            "DB_PASSWORD=[REDACTED] psql failed"
        );
        assert_eq!(
            one(r#"{"password": "s3cr3t!", "user": "ana"}"#).0,
            r#"{"password": "[REDACTED]", "user": "ana"}"#
        );
        assert_eq!(
            one("client_secret: 9f8e7d6c5b4a").0,
            "client_secret: [REDACTED]"
        );
        assert_eq!(
            one("refresh_token=Zm9vYmFyYmF6cXV4MTIz").0,
            "refresh_token=[REDACTED]"
        );
        // Short values after `token` are parser vocabulary, not secrets.
        assert_eq!(
            one("unexpected token: '}' at line 3").0,
            "unexpected token: '}' at line 3"
        );
        assert_eq!(one("max_tokens: 4000").0, "max_tokens: 4000");
    }

    #[test]
    fn connection_string_credentials() {
        let (t, k) = one("could not connect to postgres://app:Sup3r$ecret@db.internal:5432/notes");
        assert_eq!(
            t,
            "could not connect to postgres://app:[REDACTED]@db.internal:5432/notes"
        );
        assert_eq!(k, vec!["connection-credentials"]);
        assert_eq!(
            one("mongodb+srv://svc:p%40ss@cluster0.example.net/db").0,
            "mongodb+srv://svc:[REDACTED]@cluster0.example.net/db"
        );
        // No password: nothing to hide.
        assert_eq!(
            one("https://github.com/org/repo").0,
            "https://github.com/org/repo"
        );
    }

    #[test]
    fn high_entropy_strings_but_not_identifiers() {
        let (t, k) = one("use kP9zQ2wX7vB4nM1rT8yL5cD3fG6hJ0 as the salt");
        assert_eq!(t, "use [REDACTED:high-entropy] as the salt");
        assert_eq!(k, vec!["high-entropy"]);
        for benign in [
            "AuthenticationProviderFactory2 is deprecated",
            "see crates/brief/src/session/store.rs",
            "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
            "useEffectCleanupHandlerForV2Sync",
            "getUserById2AndRefreshTokenCache",
            "DATABASE_URL_FOR_TESTS_2024_Production",
        ] {
            assert_eq!(one(benign).0, benign, "{benign}");
        }
    }

    /// The examples `docs/redaction.md` gives, both ways.
    #[test]
    fn documented_examples() {
        for (text, want) in [
            (
                "docker login -u ci -p Winter2024! registry.example.com",
                "docker login -u ci -p [REDACTED] registry.example.com",
            ),
            (
                "mysql -h db -u root -p'v7#Kq9!m' shop",
                "mysql -h db -u root -p'[REDACTED]' shop",
            ),
            (
                "deploy --api-key 9fQ2xL7vK3mN8pR4 --region eu",
                "deploy --api-key [REDACTED] --region eu",
            ),
            (
                "ANTHROPIC_API_KEY=sk-ant-api03-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Ji0Hg",
                "ANTHROPIC_API_KEY=[REDACTED:anthropic-key]",
            ),
        ] {
            assert_eq!(one(text).0, want, "{text}");
        }
        for text in [
            "fn check(password: str) -> bool",
            "const token = process.env.TOKEN;",
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq7Xv3Lr9kT2mN8pQ4wZ6yB1cD5fH0jK3sU7vE9aR2t ana@laptop",
            "password: must be at least 12 characters",
            "secret = \"{{ vault_secret }}\"",
        ] {
            assert_eq!(one(text).0, text);
        }
    }

    /// Many secrets and markers in one text: every one replaced, markers kept (the checks
    /// for "inside a marker" and "already replaced" are binary searches, not scans).
    #[test]
    fn many_secrets_and_markers_in_one_text() {
        let token = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";
        let line = format!("{token} [REDACTED:jwt] kP9zQ2wX7vB4nM1rT8yL5cD3fG6hJ0\n");
        let text = line.repeat(5_000);
        let out = redact(&text);
        let want = "[REDACTED:github-token] [REDACTED:jwt] [REDACTED:high-entropy]\n".repeat(5_000);
        assert_eq!(out.text, want);
        assert_eq!(out.kinds, vec!["github-token", "high-entropy"]);
    }

    #[test]
    fn azure_connection_string_keys_of_any_length() {
        // A real account key is 88 characters; one written by hand or cut short is still a key.
        let text = "DefaultEndpointsProtocol=https;AccountName=orders;AccountKey=k3Jd8s9QmZ2xV7bN4cT1yR6uW0eP5aL8oI3hG2fD9sK7jX4vB1nM==;EndpointSuffix=core.windows.net";
        assert_eq!(
            one(text).0,
            "DefaultEndpointsProtocol=https;AccountName=orders;AccountKey=[REDACTED:azure-storage-key];EndpointSuffix=core.windows.net"
        );
        let sas = "BlobEndpoint=https://orders.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&sp=rl&se=2026-01-31&sig=Q9wE2rT5yU8iO1pA4sD7fG0hJ3kL6zX9cV2bN5mM8q%3D";
        let out = one(sas).0;
        assert!(!out.contains("Q9wE2rT5") && !out.contains("%3D"), "{out}");
    }

    #[test]
    fn url_encoded_signatures() {
        let url = "https://orders.blob.core.windows.net/x.csv?sv=2022-11-02&sp=rl&se=2025-12-31T23:59:59Z&sig=Xy7k2P%2BqR9mZ4vT1wB8nC3dF6gH0jK5lL%2FaS2dE4fG8%3D&spr=https";
        assert_eq!(
            one(url).0,
            "https://orders.blob.core.windows.net/x.csv?sv=2022-11-02&sp=rl&se=2025-12-31T23:59:59Z&sig=[REDACTED:url-signature]&spr=https"
        );
    }

    #[test]
    fn discord_webhook_urls() {
        let url = "POST https://discord.com/api/webhooks/1187654321098765432/Zq3Xk9-Lm2Np5Rs8Vw1Xy4Ab6Cd0Ef3Gh7Ij9Kl2MnOpQrStUvWxYz01234_aBcDeFgHiJkLmN done";
        assert_eq!(
            one(url).0,
            "POST https://discord.com/api/webhooks/[REDACTED:discord-webhook] done"
        );
        let old = "https://discordapp.com/api/webhooks/998877665544332211/abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-abcdefghij";
        assert!(!one(old).0.contains("abcdefghijklmnop"));
    }

    #[test]
    fn xml_password_elements() {
        assert_eq!(
            one("<server><id>nexus</id><password>Winter2024!</password></server>").0,
            "<server><id>nexus</id><password>[REDACTED]</password></server>"
        );
        assert_eq!(
            one("<db:Password>hunter22</db:Password>").0,
            "<db:Password>[REDACTED]</db:Password>"
        );
        for kept in [
            "<password>${env.NEXUS_PASSWORD}</password>",
            "<passwordPolicy>strict</passwordPolicy>",
            "<password/>",
        ] {
            assert_eq!(one(kept).0, kept);
        }
    }

    #[test]
    fn bearer_tokens_with_a_tilde_lose_their_tail() {
        for (text, tail) in [
            ("Authorization: Bearer ~Zq3Xk9Lm2Np5Rs8Vw1Xy4Ab6Cd0Ef", "Zq3Xk9Lm"),
            (
                "authorization: bearer aBcDeFgHiJkLmNoPqRsTuVwXyZ~aBcDeFgHiJkLmNoPqRsTuVwXyZ",
                "TuVwXyZ",
            ),
            (
                "token kP9zQ2wX7vB4nM1rT8yL5cD3fG6hJ0~qWmZ8xLp4RtY2vNb rejected",
                "qWmZ8xLp",
            ),
            (
                "Authorization: Bearer AAAAAAAAAAAAAAAAAAAAAjDkuAA0vaeAAAAAAHgXGzgV%2BIes%3D7kiLiUKeISCU2y5nntIcwK3xNJ",
                "7kiLiUKe",
            ),
        ] {
            let out = one(text).0;
            assert!(!out.contains(tail), "{text} → {out}");
        }
    }

    #[test]
    fn passwords_after_a_colon_in_every_shape() {
        for (text, want) in [
            ("Password: Summer", "Password: [REDACTED]"),
            (
                "Password: correct horse battery staple",
                "Password: [REDACTED]",
            ),
            ("Password: PURPLEMONKEY", "Password: [REDACTED]"),
            (
                "login: admin Password: qwerty123 host: db",
                "login: admin Password: [REDACTED] host: db",
            ),
            ("password: /Gr8!Escape", "password: [REDACTED]"),
        ] {
            assert_eq!(one(text).0, want, "{text}");
        }
        for kept in [
            "password: must be at least 12 characters",
            "Password: too short",
            "password: String,",
            "password: SecretString,",
            "Password: (hidden)",
            "Password: incorrect",
            "password: ${DB_PASSWORD}",
            "password: YOUR_PASSWORD_HERE",
        ] {
            assert_eq!(one(kept).0, kept);
        }
    }

    #[test]
    fn ipfs_cids_are_not_secrets() {
        for kept in [
            "ipfs pin add QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG",
            "ipfs://QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o",
            "https://ipfs.io/ipfs/bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/readme.md",
            "/ip4/147.75.83.83/tcp/4001/p2p/12D3KooWKqDKxdrSMDs3xNnnBJBRL84C6AHp7n1FKyKVucq95kQy",
        ] {
            assert_eq!(one(kept).0, kept);
        }
        // The same length and alphabet without the multihash prefix is still a secret.
        assert_eq!(
            one("salt Zm7wAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG").0,
            "salt [REDACTED:high-entropy]"
        );
    }

    /// A key block without its END line runs over its base64 lines and stops at the next
    /// block, which is found and redacted on its own (each END is looked for only up to the
    /// next block, which keeps many unterminated blocks linear).
    #[test]
    fn unterminated_key_blocks_end_at_the_next_block() {
        let text = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEApU3KGCUwux1t\nnote\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIAEojymz1z9qwrae\n-----END EC PRIVATE KEY-----\nafter";
        assert_eq!(
            one(text).0,
            "[REDACTED:private-key]\nnote\n[REDACTED:private-key]\nafter"
        );
        let many = "-----BEGIN PRIVATE KEY-----\nMIIEpAIBAAKCAQEApU3K\n".repeat(2_000);
        assert_eq!(redact_str(&many), "[REDACTED:private-key]\n".repeat(2_000));
        // A public block left open is no shelter for the tokens after it.
        let open = "-----BEGIN CERTIFICATE-----\nMIIB\n-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\nsalt kP9zQ2wX7vB4nM1rT8yL5cD3fG6hJ0";
        assert!(one(open).0.ends_with("salt [REDACTED:high-entropy]"));
    }

    #[test]
    fn cover_holds_only_what_a_span_holds() {
        let cover = Cover::new([(10, 20), (0, 5), (12, 30), (40, 41)].into_iter());
        assert!(cover.contains(0, 5));
        assert!(cover.contains(11, 20));
        assert!(!cover.contains(11, 25));
        assert!(cover.contains(12, 25));
        assert!(cover.contains(13, 30));
        assert!(!cover.contains(4, 6));
        assert!(!cover.contains(25, 35));
        assert!(cover.contains(40, 41));
        assert!(!cover.contains(31, 32));
        assert!(!Cover::new(std::iter::empty()).contains(0, 0));
    }

    #[test]
    fn idempotent_and_unicode_safe() {
        let text = "Ключ AKIAIOSFODNN7EXAMPLE — пароль password=héllo123 ✓";
        let once = redact_str(text);
        assert_eq!(redact_str(&once), once);
        assert!(!once.contains("AKIA"));
        assert!(once.contains("password=[REDACTED]"), "{once}");
    }
}

mod table {
    use super::*;

    #[test]
    fn every_rule_compiles() {
        for rule in RULES {
            compile(rule.pattern);
            if let Reach::Block { end, tail } = rule.reach {
                compile(end);
                compile(tail);
            }
            assert!(
                rule.keywords
                    .iter()
                    .all(|k| !k.is_empty() && k.is_ascii() && k.to_ascii_lowercase() == *k),
                "{}: keywords are non-empty lower-case ASCII",
                rule.kind
            );
            // Every kind is a marker's word, which the marker pattern must match.
            let marker = format!("[REDACTED:{}]", rule.kind);
            assert!(
                compile(r"^\[REDACTED(?::[a-z0-9-]{1,40})?\]$").is_match(marker.as_bytes()),
                "{marker}"
            );
        }
        compile(KNOWN_PUBLIC);
        compile(PUBLIC_BLOCK);
        compile(BLOCK_END);
    }

    /// The keyword pre-filter never hides a match: wherever a rule's pattern matches a text
    /// of the corpus, one of its keywords occurs in that text.
    #[test]
    fn keywords_cover_every_match_in_the_corpus() {
        let corpus = [
            include_str!("../../tests/redaction/secrets.toml"),
            include_str!("../../tests/redaction/ordinary.toml"),
        ];
        let texts: Vec<String> = corpus
            .iter()
            .flat_map(|file| {
                let value: toml::Table = toml::from_str(file).expect("corpus parses");
                value
                    .into_iter()
                    .flat_map(|(_, entries)| match entries {
                        toml::Value::Array(entries) => entries,
                        _ => Vec::new(),
                    })
                    .filter_map(|entry| entry.get("text")?.as_str().map(str::to_string))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(texts.len() >= 250, "{} corpus texts", texts.len());
        for rule in RULES.iter().filter(|r| !r.keywords.is_empty()) {
            let regex = compile(rule.pattern);
            for text in &texts {
                if regex.is_match(text.as_bytes()) {
                    let lower = text.to_ascii_lowercase();
                    assert!(
                        rule.keywords.iter().any(|k| lower.contains(k)),
                        "{}: matches without a keyword in {text}",
                        rule.kind
                    );
                }
            }
        }
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    /// Text built from fragments that trip the rules' prefixes, so the scanners' edge cases
    /// (truncated keys, dangling PEM headers, quotes, non-ASCII next to matches) get
    /// exercised; `sep` joins them.
    fn fragments(sep: &'static str) -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("sk-".to_string()),
            Just("sk-ant-".to_string()),
            Just("AKIA".to_string()),
            Just("ghp_".to_string()),
            Just("xoxb-".to_string()),
            Just("eyJ".to_string()),
            Just(".".to_string()),
            Just("Bearer ".to_string()),
            Just("-----BEGIN RSA PRIVATE KEY-----".to_string()),
            Just("-----END ".to_string()),
            Just("password=".to_string()),
            Just("token: ".to_string()),
            Just("\"".to_string()),
            Just("://".to_string()),
            Just("@".to_string()),
            Just(":".to_string()),
            Just("<password>".to_string()),
            Just("</password>".to_string()),
            Just("AccountKey=".to_string()),
            Just("&sig=".to_string()),
            Just("Cookie: sessionid=".to_string()),
            Just("Password: ".to_string()),
            Just("-----BEGIN CERTIFICATE-----".to_string()),
            Just("LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVkt".to_string()),
            Just("QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG".to_string()),
            Just("~".to_string()),
            Just("%2B".to_string()),
            "[A-Za-z0-9]{1,30}",
            "[ \n\t]{1,2}",
            "[é✓Ключ]{1,3}",
        ];
        prop::collection::vec(piece, 0..24).prop_map(move |v| v.join(sep))
    }

    proptest! {
        /// Idempotent on words: redacting stored (already redacted) text again at render
        /// time changes nothing. Glued adversarial fragments (`sk-://password=:@@`) may be
        /// redacted further by a second pass, never less.
        #[test]
        fn idempotent_on_words(text in fragments(" ")) {
            let once = redact_str(&text);
            prop_assert_eq!(redact_str(&once), once.clone());
        }

        #[test]
        fn never_panics_on_glued_fragments(text in fragments("")) {
            let once = redact_str(&text);
            let _ = redact_str(&once);
        }

        #[test]
        fn never_panics_on_any_text(text in any::<String>()) {
            let _ = redact(&text);
        }
    }
}
mod scan {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The catch-all's byte scan finds exactly what its pattern finds.
        #[test]
        fn token_scan_equals_the_pattern(text in "[A-Za-z0-9+/_=\\- .é]{0,200}") {
            let rule = RULES.iter().find(|r| r.check == Check::HighEntropy).unwrap();
            let regex = compile(rule.pattern);
            let by_regex: Vec<(usize, usize)> =
                regex.find_iter(text.as_bytes()).map(|m| (m.start(), m.end())).collect();
            let by_scan: Vec<(usize, usize)> = tokens(text.as_bytes()).collect();
            prop_assert_eq!(by_scan, by_regex);
        }
    }
}
