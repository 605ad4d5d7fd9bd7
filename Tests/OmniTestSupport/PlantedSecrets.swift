import Foundation

/// A secret a test plants in a tree (a key, a token, entropy, a phrase), with every form a leak of it could take:
/// the raw bytes, hex in both cases and any 16-digit run of it, base64 and base64url at each of the three byte
/// alignments (so a secret inside a larger encoding, such as a PKCS#8 PEM body, is found too), and for a phrase
/// any three of its words in a row.
public struct PlantedSecret: Sendable {
    public let name: String
    public let forms: [(kind: String, bytes: [UInt8])]

    /// Binary secret material: a seed, a private key, entropy.
    public static func bytes(_ name: String, _ secret: [UInt8]) -> PlantedSecret {
        PlantedSecret(name: name, forms: binaryForms(secret))
    }

    /// A secret that is text (a token, an API key): the text itself, and its bytes in every binary form.
    public static func text(_ name: String, _ secret: String) -> PlantedSecret {
        PlantedSecret(name: name, forms: [("text", Array(secret.utf8))] + binaryForms(Array(secret.utf8)).filter { $0.kind != "raw bytes" })
    }

    /// A mnemonic: the phrase, and any three of its words in a row.
    public static func phrase(_ name: String, _ phrase: String) -> PlantedSecret {
        var forms: [(String, [UInt8])] = [("phrase", Array(phrase.utf8))]
        let words = phrase.split(separator: " ")
        for start in 0..<max(0, words.count - 2) {
            forms.append(("words \(start + 1)-\(start + 3)", Array(words[start..<start + 3].joined(separator: " ").utf8)))
        }
        return PlantedSecret(name: name, forms: forms)
    }

    static func binaryForms(_ secret: [UInt8]) -> [(kind: String, bytes: [UInt8])] {
        let hex = secret.map { String(format: "%02x", $0) }.joined()
        var forms: [(String, [UInt8])] = [("raw bytes", secret), ("hex", Array(hex.utf8)), ("HEX", Array(hex.uppercased().utf8))]
        let digits = Array(hex)
        if digits.count > 16 {
            for start in stride(from: 0, through: digits.count - 16, by: 2) {
                forms.append(("16 hex digits at \(start)", Array(String(digits[start..<start + 16]).utf8)))
            }
        }
        // Base64 of the secret after 0, 1 or 2 other bytes: the characters that depend on the secret alone are the
        // ones between the first and last partly-foreign group.
        for offset in 0..<3 {
            let encoded = Data([UInt8](repeating: 0, count: offset) + secret + [0, 0]).base64EncodedString()
            let characters = Array(encoded)
            let start = offset == 0 ? 0 : 4
            let end = ((offset + secret.count) / 3) * 4
            guard end - start >= 16 else { continue }
            let base64 = String(characters[start..<end])
            forms.append(("base64 at byte offset \(offset)", Array(base64.utf8)))
            let url = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            if url != base64 { forms.append(("base64url at byte offset \(offset)", Array(url.utf8))) }
        }
        return forms
    }

    /// The kinds of this secret's forms found in `haystack`.
    public func found(in haystack: [UInt8]) -> [String] {
        forms.filter { PlantedSecret.contains(haystack, $0.bytes) }.map(\.kind)
    }

    public static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}

/// Everything a run produced that must not hold a planted secret: outputs of commands, traces, and the files a
/// tree wrote outside its secret stores.
public struct LeakScan: Sendable {
    public private(set) var haystacks: [(name: String, bytes: [UInt8])] = []

    public init() {}

    public mutating func add(_ name: String, _ bytes: [UInt8]) { haystacks.append((name, bytes)) }

    public mutating func add(_ name: String, _ result: ProcessResult) {
        haystacks.append((name + " (stdout)", Array(result.stdout)))
        haystacks.append((name + " (stderr)", Array(result.stderr)))
    }

    /// Every regular file under `directory` except the secret stores in `excluded` (absolute paths of files, or of
    /// directories whose whole content is excluded); returns the relative paths added.
    @discardableResult
    public mutating func addFiles(under directory: URL, excluding excluded: [String] = []) throws -> [String] {
        let root = directory.standardizedFileURL.path
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var added: [String] = []
        for case let relative as String in enumerator {
            let full = root + "/" + relative
            if excluded.contains(where: { full == $0 || full.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }) { continue }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            haystacks.append((relative, [UInt8](try Data(contentsOf: URL(fileURLWithPath: full)))))
            added.append(relative)
        }
        return added
    }

    /// One line per (haystack, secret, form) where a secret was found.
    public func leaks(of secrets: [PlantedSecret]) -> [String] {
        var found: [String] = []
        for haystack in haystacks {
            for secret in secrets {
                for kind in secret.found(in: haystack.bytes) { found.append("\(haystack.name) contains \(secret.name) (\(kind))") }
            }
        }
        return found
    }
}
