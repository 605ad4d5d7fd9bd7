/// Which values are secrets, so a command can warn when one arrives on the command line anyway (every process on
/// the machine can read argv, and shells keep it in history). omni's own options never take a secret as a literal
/// (keys, seeds, tokens and API keys come from files, stdin or the environment); this rule is for names omni does
/// not choose — the fields and parameters of an OpenAPI document, for instance.
public enum SecretNames {
    /// The last word that makes a name a secret: `password`, `db_password`, `SessionToken`, `client_secret`.
    static let secretLastWords: Set<String> = ["password", "passwd", "passphrase", "secret", "token", "mnemonic", "apikey", "authcode"]
    /// The last two words that do: `api_key`, `X-Api-Key`, `private_key`, `auth_code` (a domain transfer code).
    static let secretLastPairs: Set<[String]> = [["api", "key"], ["private", "key"], ["secret", "key"], ["access", "key"],
                                                  ["auth", "code"], ["recovery", "code"], ["seed", "phrase"]]

    /// True when `name` names a secret by its last word or two: `token` does, `token_type`, `token_id` and
    /// `api_key_prefix` do not (they describe one). One-time codes (`totp`, `otp`) are not secrets here: they expire
    /// within a minute and work once.
    public static func looksSecret(_ name: String) -> Bool {
        let words = Self.words(name)
        guard let last = words.last else { return false }
        if secretLastWords.contains(last) { return true }
        return words.count >= 2 && secretLastPairs.contains(Array(words.suffix(2)))
    }

    /// Lower-case words of an identifier: split at anything not a letter or digit and where a lower-case letter
    /// meets an upper-case one (`SessionToken` → session, token).
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousWasLower = false
        for character in name {
            guard character.isLetter || character.isNumber else {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousWasLower = false
                continue
            }
            if character.isUppercase, previousWasLower, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current += character.lowercased()
            previousWasLower = character.isLowercase
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}

extension Invocation {
    /// True when a content option was given on the command line as the value itself, not as `@FILE` or `-`.
    public func isGivenLiterally(_ option: some OptionDeclaration) -> Bool {
        guard let raw = parsed.options[option.spec.name]?.last else { return false }
        guard option.spec.source == .content else { return true }
        return raw != "-" && (!raw.hasPrefix("@") || raw.hasPrefix("@@"))
    }

    /// The one warning for a secret given on the command line: what it was, and how to give it instead.
    public func warnSecretOnCommandLine(_ what: String, instead: String) {
        warn("\(what) looks like a secret and was given on the command line, where other users' processes can read "
             + "it and your shell history keeps it; \(instead)")
    }
}
