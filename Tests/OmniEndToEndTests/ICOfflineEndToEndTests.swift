import Foundation
import Testing
import OmniCodec
import OmniTestSupport

/// The offline `omni ic` commands through the real binary: every principal, account and key vector of
/// ../shared/vectors/ic, the identity store's lifecycle, delegated sessions, every real certificate, and offline
/// signing checked by the independent Python peer (Tests/Peers/ic_peer.py).
@Suite(.serialized, .offPool) struct ICOfflineEndToEndTests {
    // MARK: Principals

    @Test(.vectors("ic")) func everyPrincipalVector() throws {
        let vectors = try vector("principals.json")
        var checked = 0
        for item in try vectors.array("valid") + vectors.array("case_insensitive") {
            let text = try item.string("text"), hex = try item.string("hex")
            let parsed = try omniJSON(["ic", "principal", "parse", text])
            #expect(parsed["bytes"]?.stringValue == hex, "\(text)")
            #expect(parsed["principal"]?.stringValue == text.lowercased(), "\(text)")
            #expect(parsed["input_is_canonical"]?.boolValue == (text == text.lowercased()), "\(text)")
            let fromBytes = try omni(["ic", "principal", "from-bytes", hex])
            #expect(fromBytes.status == 0 && fromBytes.stdoutText == text.lowercased() + "\n", "\(hex): \(fromBytes.stderrText)")
            checked += 1
        }
        for item in try vectors.array("invalid") {
            let text = try item.string("text")
            let result = try omni(["ic", "principal", "parse", "--", text])
            #expect(result.status == 3, "\(text) must be refused")
            #expect(result.stdout.isEmpty)
            #expect(result.stderrText.contains("(rule: "), "\(text): \(result.stderrText)")
            checked += 1
        }
        for item in try vectors.array("self_authenticating") {
            let der = item["public_key_hex"]?.stringValue ?? item["ed25519_der_hex"]?.stringValue ?? item["secp256k1_der_hex"]?.stringValue
            let derived = try omniJSON(["ic", "principal", "from-key", "--der", try #require(der)])
            #expect(derived["principal"]?.stringValue == (try item.string("principal_text")))
            #expect(derived["bytes"]?.stringValue == (try item.string("principal_hex")))
            #expect(derived["class"]?.stringValue == "self_authenticating")
            let parsed = try omniJSON(["ic", "principal", "parse", try item.string("principal_text")])
            #expect(parsed["class"]?.stringValue == "self_authenticating")
            checked += 1
        }
        // CRC-32 vectors: the principal text starts with the big-endian CRC-32 of the bytes.
        for item in try vectors.array("crc32") {
            let text = try omni(["ic", "principal", "from-bytes", try item.string("input_hex")]).stdoutText
            let decoded = try Base32.decode(text.replacingOccurrences(of: "-", with: "").trimmingCharacters(in: .newlines).uppercased(),
                                            padding: .optional)
            #expect(Hex.encode(decoded.prefix(4)) == (try item.string("crc32")), "\(text)")
            checked += 1
        }
        // Ordering is bytewise on the blob: ryjl3 < ivg37 < 2vxsx.
        let ordered = try ["ryjl3-tyaaa-aaaaa-aaaba-cai", "ivg37-qiaaa-aaaab-aaaga-cai", "2vxsx-fae"].map {
            try #require(try omniJSON(["ic", "principal", "parse", $0])["bytes"]?.stringValue)
        }
        #expect(ordered == ordered.sorted())
        #expect(checked == 41)
        print("principals.json: \(checked) vectors through the CLI")
    }

    @Test func principalRulesAndWellKnownPrincipals() throws {
        let rules = ["Hello world!": "invalid_character", "aaaaaaa": "dash_position", "aaaaa": "too_short",
                     "aacd5-niaaa-aaaaa-aaaaa-aaaaa-aaaaa-aaaaa-aaaaa-aaaaa-aaaaa-aaaaa": "too_long",
                     "aaaaa-ba": "checksum", "aaaaa-ab": "not_canonical"]
        for (text, rule) in rules {
            let result = try omni(["ic", "principal", "parse", text, "-o", "json"])
            #expect(result.status == 3)
            let error = try JSONValue.parse(Array(result.stderr))["error"]
            #expect(error?["kind"]?.stringValue == "malformed_input")
            #expect(error?["message"]?.stringValue?.contains("(rule: \(rule))") == true, "\(text): \(result.stderrText)")
        }
        #expect(try omni(["ic", "principal", "anonymous"]).stdoutText == "2vxsx-fae\n")
        #expect(try omniJSON(["ic", "principal", "anonymous"])["class"]?.stringValue == "anonymous")
        #expect(try omni(["ic", "principal", "management"]).stdoutText == "aaaaa-aa\n")
        #expect(try omniJSON(["ic", "principal", "parse", "aaaaa-aa"])["class"]?.stringValue == "management")
        #expect(try omni(["ic", "principal", "from-bytes", "00" + String(repeating: "11", count: 29)]).status == 3)
        #expect(try omni(["ic", "principal", "from-key"]).status == 2)
    }

    // MARK: Keys

    @Test(.vectors("ic")) func everyKeyVector() throws {
        let keys = try vector("keys.json")
        let principals = try vector("principals.json").array("self_authenticating")
        for item in try #require(keys["ed25519_raw_to_der"]).array("vectors") {
            let der = try item.string("der_hex")
            let result = try omniJSON(["ic", "principal", "from-key", "--der", der])
            #expect(result["key_algorithm"]?.stringValue == "ed25519")
            #expect(result["public_key"]?.stringValue == der)
            if let known = principals.first(where: { $0["ed25519_der_hex"]?.stringValue == der }) {
                #expect(result["principal"]?.stringValue == (try known.string("principal_text")))
            }
        }
        let secp = try #require(keys["secp256k1_pem_to_der_public_key"])
        let expectedPrincipal = "t2kpu-6xt6l-tyb3d-rll2p-irv5c-no5nd-h6spj-jsetq-bmqdz-iap77-pqe"
        let directory = try TemporaryDirectory()
        for form in ["pem_sec1", "pem_pkcs8"] {
            let file = try directory.write(form + ".pem", try secp.string(form))
            let result = try omniJSON(["ic", "principal", "from-key", "--pem", file])
            #expect(result["public_key"]?.stringValue == (try secp.string("der_public_key_hex")), "\(form)")
            #expect(result["key_algorithm"]?.stringValue == "ecdsa_secp256k1")
            #expect(result["principal"]?.stringValue == expectedPrincipal, "\(form)")
            #expect(!(try omni(["ic", "principal", "from-key", "--pem", file, "-o", "json"]).stdoutText.contains("PRIVATE")))
        }
        for (index, reject) in try secp.array("must_reject").enumerated() {
            let file = try directory.write("reject\(index).pem", try reject.string("pem"))
            let result = try omni(["ic", "principal", "from-key", "--pem", file])
            // The vector names the reason ("UnsupportedKeyCurve (secp160r2)"): refused for that curve, not for anything.
            let expectedError = try reject.string("error")
            let curve = try #require(expectedError.split(separator: "(").last?.split(separator: ")").first.map(String.init), "\(expectedError)")
            try #require(expectedError.hasPrefix("UnsupportedKeyCurve"), "a new kind of must_reject vector: \(expectedError)")
            #expect(result.status == 3, "\(expectedError): \(result.stderrText)")
            #expect(result.stderrText.contains("unsupported: ") && result.stderrText.contains("unsupported EC curve \(curve)"),
                    "\(expectedError): \(result.stderrText)")
            let imported = try ICCLIHome().run(["ic", "identity", "import", "x", "--pem", file])
            #expect(imported.status == 3 && imported.stderrText.contains("unsupported EC curve \(curve)"), "\(imported.stderrText)")
        }
        // A public key PEM as OpenSSL writes it: the SPKI itself.
        let spki = try Hex.decode(try secp.string("der_public_key_hex"))
        let publicPEM = "-----BEGIN PUBLIC KEY-----\n" + Base64.encode(spki) + "\n-----END PUBLIC KEY-----\n"
        let fromPublic = try omniJSON(["ic", "principal", "from-key", "--pem", try directory.write("public.pem", publicPEM)])
        #expect(fromPublic["principal"]?.stringValue == expectedPrincipal)
        // The mainnet root key's id is the root subnet id (subnet ids are self-authenticating ids of BLS keys).
        let root = try vector("mainnet_root_key.json")
        let subnet = try omniJSON(["ic", "principal", "from-key", "--der", try root.string("der_hex")])
        #expect(subnet["principal"]?.stringValue == (try root.string("root_subnet_id")))
        #expect(subnet["key_algorithm"]?.stringValue == "bls12_381")
    }

    // MARK: Accounts

    @Test(.vectors("ic")) func everyAccountVector() throws {
        let vectors = try vector("account_identifiers.json")
        var checked = 0
        for item in try vectors.array("vectors") {
            let owner = try item.string("principal"), subaccount = try item.string("subaccount_hex")
            let expected = try item.string("account_identifier_hex")
            let text = try omni(["ic", "account-id", owner, "--subaccount", subaccount])
            #expect(text.status == 0 && text.stdoutText == expected + "\n", "\(text.stderrText)")
            let json = try omniJSON(["ic", "account-id", owner, "--subaccount", "0x" + subaccount])
            #expect(json["account_identifier"]?.stringValue == expected)
            // The ICRC-1 form of the same account leads to the same identifier.
            let account = try #require(json["icrc1_account"]?.stringValue)
            let decoded = try omniJSON(["ic", "account", "decode", account])
            #expect(decoded["account_identifier"]?.stringValue == expected)
            #expect(decoded["subaccount"]?.stringValue == subaccount)
            #expect(try omniJSON(["ic", "account", "decode", expected])["checksum_valid"]?.boolValue == true)
            checked += 1
        }
        let first = try #require(try vectors.array("vectors").first)
        #expect(try omni(["ic", "account-id", try first.string("principal")]).stdoutText
            == (try first.string("account_identifier_hex")) + "\n", "no subaccount is the default subaccount")
        let owner = try first.string("principal")
        for item in try vectors.array("subaccount_from_id") {
            let id = try #require(item["id"]?.int64Value)
            let json = try omniJSON(["ic", "account-id", owner, "--subaccount", String(id)])
            #expect(json["subaccount"]?.stringValue == (try item.string("subaccount_hex")), "id \(id)")
            checked += 1
        }
        for item in try #require(vectors["subaccount_from_principal"]).array("vectors") {
            let json = try omniJSON(["ic", "account-id", owner, "--subaccount-principal", try item.string("principal")])
            #expect(json["subaccount"]?.stringValue == (try item.string("subaccount_hex")))
            checked += 1
        }
        #expect(checked == 10)
        print("account_identifiers.json: \(checked) vectors through the CLI")
    }

    @Test func icrc1TextualAccounts() throws {
        // ICRC-1 TextualEncoding.md example.
        let owner = "k2t6j-2nvnp-4zjm3-25dtz-6xhaa-c7boj-5gayf-oj3xs-i43lp-teztq-6ae"
        let subaccount = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"
        let text = owner + "-dfxgiyy.102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"
        #expect(try omni(["ic", "account", "encode", owner, "--subaccount", subaccount]).stdoutText == text + "\n")
        let decoded = try omniJSON(["ic", "account", "decode", text])
        #expect(decoded["owner"]?.stringValue == owner && decoded["subaccount"]?.stringValue == subaccount)
        #expect(try omni(["ic", "account", "encode", owner]).stdoutText == owner + "\n")
        #expect(try omni(["ic", "account", "encode", owner, "--subaccount", "0"]).stdoutText == owner + "\n")
        let one = try omniJSON(["ic", "account", "encode", owner, "--subaccount", "1"])
        let oneText = try #require(one["icrc1_account"]?.stringValue)
        #expect(oneText.hasSuffix(".1"))
        #expect(try omniJSON(["ic", "account", "decode", oneText])["subaccount_index"]?.stringValue == "1")
        // Non-canonical and damaged texts exit 3.
        for bad in [owner + "-dfxgiyy.0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
                    owner + "-aaaaaaa.102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
                    owner + "." + "1", owner + "-dfxgiyy.", "df4ad42194201b15ecbbe66ff68559a126854d8141fd935c5bd53433c2fb28d5"] {
            #expect(try omni(["ic", "account", "decode", bad]).status == 3, "\(bad)")
        }
        #expect(try omni(["ic", "account-id", owner, "--subaccount", "0x" + String(repeating: "1", count: 65)]).status == 3)
        #expect(try omni(["ic", "account-id", owner, "--subaccount", "1", "--subaccount-principal", owner]).status == 2)
    }

    // MARK: Identities

    @Test func identityLifecycle() throws {
        let home = try ICCLIHome()
        #expect(try home.run(["ic", "identity", "principal"]).stdoutText == "2vxsx-fae\n", "no default identity: anonymous")
        var principals: [String: String] = [:]
        for (name, type) in [("alice", "ed25519"), ("bob", "secp256k1"), ("carol", "p256")] {
            let created = try home.json(["ic", "identity", "new", name, "--type", type] + (name == "alice" ? ["--use"] : []))
            #expect(created["type"]?.stringValue == type)
            principals[name] = try #require(created["principal"]?.stringValue)
            #expect(try home.run(["ic", "identity", "new", name]).status == 7, "an existing identity is never overwritten")
        }
        // Files 0600 in a 0700 directory.
        let directory = home.config.appendingPathComponent("omni/identities")
        #expect(try permissions(directory.path) == 0o700)
        for name in ["alice", "bob", "carol"] {
            #expect(try permissions(directory.appendingPathComponent(name + ".pem").path) == 0o600, "\(name)")
        }
        let list = try home.json(["ic", "identity", "list"])
        #expect(list["default"]?.stringValue == "alice")
        let listed = try #require(list["identities"]?.arrayValue)
        #expect(listed.compactMap { $0["name"]?.stringValue } == ["alice", "bob", "carol"])
        #expect(listed.compactMap { $0["principal"]?.stringValue } == ["alice", "bob", "carol"].compactMap { principals[$0] })
        #expect(try home.run(["ic", "identity", "principal"]).stdoutText == principals["alice"]! + "\n")
        #expect(try home.run(["ic", "identity", "use", "bob"]).status == 0)
        #expect(try home.run(["ic", "identity", "principal"]).stdoutText == principals["bob"]! + "\n")
        #expect(try home.json(["ic", "identity", "principal", "carol"])["principal"]?.stringValue == principals["carol"])
        #expect(try home.run(["ic", "identity", "use", "nobody"]).status == 7)
        // Account commands default to the default identity's principal.
        #expect(try home.run(["ic", "account-id"]).stdoutText == (try home.run(["ic", "account-id", principals["bob"]!]).stdoutText))
        #expect(try home.run(["ic", "account", "encode", "--subaccount", "7"]).stdoutText
            == (try home.run(["ic", "account", "encode", principals["bob"]!, "--subaccount", "7"]).stdoutText))
        // Nothing but export shows a private key.
        for arguments in [["ic", "identity", "list"], ["ic", "identity", "show", "bob"], ["ic", "identity", "principal"]] {
            for format in ["text", "json"] {
                let result = try home.run(arguments + ["-o", format])
                #expect(!result.stdoutText.contains("PRIVATE") && !result.stderrText.contains("PRIVATE"), "\(arguments)")
            }
        }
        // Export needs the explicit flag; the exported PEM imports back to the same principal.
        let refused = try home.run(["ic", "identity", "export", "carol"])
        #expect(refused.status == 2 && refused.stdout.isEmpty)
        #expect(refused.stderrText.contains("--show-private-key"))
        for name in ["alice", "bob", "carol"] {
            let exported = try home.run(["ic", "identity", "export", name, "--show-private-key"])
            #expect(exported.status == 0 && exported.stdoutText.contains("PRIVATE KEY-----"))
            let file = try home.write("\(name)-export.pem", exported.stdoutText)
            let imported = try home.json(["ic", "identity", "import", name + "2", "--pem", file])
            #expect(imported["principal"]?.stringValue == principals[name], "\(name) round trip")
            let pemJSON = try home.json(["ic", "identity", "export", name, "--show-private-key"])
            #expect(pemJSON["private_key_pem"]?.stringValue == exported.stdoutText)
        }
        // Removal asks; without a terminal it needs --yes.
        let unconfirmed = try home.run(["ic", "identity", "remove", "bob"])
        #expect(unconfirmed.status == 2 && unconfirmed.stderrText.contains("--yes"))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("bob.pem").path))
        let removed = try home.json(["ic", "identity", "remove", "bob", "--yes"])
        #expect(removed["was_default"]?.boolValue == true && removed["principal"]?.stringValue == principals["bob"])
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("bob.pem").path))
        #expect(try home.json(["ic", "identity", "list"])["default"] == .null)
        #expect(try home.run(["ic", "account-id"]).status == 7, "no default identity to take the owner from")
        #expect(try home.run(["ic", "identity", "remove", "bob", "--yes"]).status == 7)
        #expect(try home.run(["ic", "identity", "new", "../evil"]).status == 2)
    }

    /// dfx's identity.pem is read as is and gives the principal dfx shows (keys.json's published secp256k1 test key,
    /// and Ed25519/P-256 keys made by Python's `cryptography` with the principal computed there).
    @Test(.vectors("ic")) func dfxIdentitiesImportAsIs() throws {
        let home = try ICCLIHome()
        let secp = try #require(try vector("keys.json")["secp256k1_pem_to_der_public_key"])
        let dfxDirectory = home.home.appendingPathComponent(".config/dfx/identity/tester")
        try FileManager.default.createDirectory(at: dfxDirectory, withIntermediateDirectories: true)
        let pem = try secp.string("pem_sec1")
        let dfxFile = dfxDirectory.appendingPathComponent("identity.pem")
        try pem.write(to: dfxFile, atomically: true, encoding: .utf8)
        let imported = try home.json(["ic", "identity", "import", "tester", "--dfx", "tester", "--use"])
        #expect(imported["principal"]?.stringValue == "t2kpu-6xt6l-tyb3d-rll2p-irv5c-no5nd-h6spj-jsetq-bmqdz-iap77-pqe")
        #expect(imported["type"]?.stringValue == "secp256k1")
        #expect(try String(contentsOf: dfxFile, encoding: .utf8) == pem, "the dfx file is not touched")
        #expect(try home.run(["ic", "identity", "import", "tester", "--dfx", "tester"]).status == 7)
        #expect(try home.run(["ic", "identity", "import", "tester", "--dfx", "tester", "--force"]).status == 0)
        #expect(try home.run(["ic", "identity", "import", "ghost", "--dfx", "ghost"]).status == 7)
        #expect(try home.run(["ic", "identity", "import", "both", "--dfx", "tester", "--pem", dfxFile.path]).status == 2)
        let stored = try permissions(home.config.appendingPathComponent("omni/identities/tester.pem").path)
        #expect(stored == 0o600)

        let script = """
            import hashlib, json, zlib, base64
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric import ec, ed25519
            def text(blob):
                data = zlib.crc32(blob).to_bytes(4, "big") + blob
                b32 = base64.b32encode(data).decode().lower().rstrip("=")
                return "-".join(b32[i:i + 5] for i in range(0, len(b32), 5))
            out = []
            for key in [ed25519.Ed25519PrivateKey.generate(), ec.generate_private_key(ec.SECP256R1())]:
                der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
                pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
                out.append({"pem": pem.decode(), "principal": text(hashlib.sha224(der).digest() + b"\\x02")})
            print(json.dumps(out))
            """
        let peer = try Subprocess.run("/usr/bin/env", ["python3", "-c", script])
        #expect(peer.status == 0, "\(peer.stderrText)")
        for (index, key) in try #require(try JSONValue.parse(Array(peer.stdout)).arrayValue).enumerated() {
            let file = try home.write("py\(index).pem", try key.string("pem"))
            let result = try home.json(["ic", "identity", "import", "py\(index)", "--pem", file])
            #expect(result["principal"]?.stringValue == (try key.string("principal")), "key \(index)")
            #expect(try omniJSON(["ic", "principal", "from-key", "--pem", file])["principal"]?.stringValue == (try key.string("principal")))
        }
    }

    // MARK: Delegations

    @Test func delegateThenVerifyTheChain() throws {
        let home = try ICCLIHome()
        let root = try home.json(["ic", "identity", "new", "root", "--use"])
        let rootPrincipal = try #require(root["principal"]?.stringValue)
        let ledger = "ryjl3-tyaaa-aaaaa-aaaba-cai"
        let sessionFile = home.home.appendingPathComponent("ci.session.json").path
        let created = try home.json(["ic", "identity", "delegate", "--out-file", sessionFile, "--lifetime", "1h",
                                     "--target", ledger, "--save", "ci"])
        #expect(created["principal"]?.stringValue == rootPrincipal)
        #expect(try permissions(sessionFile) == 0o600)
        let expirationText = try #require(created["expiration"]?.stringValue)
        let expiration = try #require(UInt64(expirationText))
        let now = UInt64(Date().timeIntervalSince1970 * 1e9)
        #expect(expiration > now + 3_500_000_000_000 && expiration <= now + 3_600_000_000_000)
        // The session file holds the session key and the chain, never the root key.
        let rootPEM = try home.run(["ic", "identity", "export", "root", "--show-private-key"]).stdoutText
        let rootBody = rootPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let sessionText = try String(contentsOfFile: sessionFile, encoding: .utf8)
        #expect(!rootBody.isEmpty && !sessionText.contains(rootBody))
        #expect(try home.run(["ic", "identity", "delegate", "--out-file", sessionFile]).status == 2, "no silent overwrite")

        let valid = try home.json(["ic", "identity", "verify-delegation", "@" + sessionFile, "--canister", ledger])
        #expect(valid["valid"]?.boolValue == true && valid["principal"]?.stringValue == rootPrincipal)
        #expect(valid["targets"] == .array([.string(ledger)]))
        let chainJSON = try #require(created["delegation_chain"])
        let chainFile = try home.write("chain.json", chainJSON.serialized())
        #expect(try home.json(["ic", "identity", "verify-delegation", "@" + chainFile])["input"]?.stringValue == "delegation_chain")
        let reasons: [([String], String)] = [
            (["--canister", "aaaaa-aa"], "target"),
            (["--at", ICOfflineEndToEndTests.rfc3339(expiration + 1_000_000_000)], "expired"),
        ]
        for (extra, reason) in reasons {
            let result = try home.run(["ic", "identity", "verify-delegation", "@" + chainFile, "-o", "json"] + extra)
            #expect(result.status == 1, "\(extra)")
            #expect(try JSONValue.parse(Array(result.stdout))["reason"]?.stringValue == reason)
        }
        // A forged signature breaks the chain.
        var links = try #require(chainJSON["delegations"]?.arrayValue)
        var link = try #require(links[0].objectValue)
        let signature = try #require(link["signature"]?.stringValue)
        link["signature"] = .string((signature.first == "0" ? "1" : "0") + signature.dropFirst())
        links[0] = .object(link)
        var forged = try #require(chainJSON.objectValue)
        forged["delegations"] = .array(links)
        let forgedResult = try home.run(["ic", "identity", "verify-delegation", JSONValue.object(forged).serialized(), "-o", "json"])
        #expect(forgedResult.status == 1)
        #expect(try JSONValue.parse(Array(forgedResult.stdout))["reason"]?.stringValue == "delegation_chain")
        // The stored session is an identity that signs as the root; its requests pass the independent peer.
        let show = try home.json(["ic", "identity", "show", "ci"])
        #expect(show["type"]?.stringValue == "delegated" && show["principal"]?.stringValue == rootPrincipal)
        #expect(!(try home.run(["ic", "identity", "show", "ci", "-o", "json"]).stdoutText.contains("PRIVATE")))
        let requestFile = home.home.appendingPathComponent("session-call.json").path
        let signed = try home.json(["ic", "sign", ledger, "transfer", "--update", "--identity", "ci",
                                    "--out-file", requestFile])
        #expect(signed["sender"]?.stringValue == rootPrincipal)
        try checkWithPeer(requestFile, seed: nil)
        // A session may not sign for canisters outside its targets.
        let outside = try home.run(["ic", "sign", "rrkah-fqaaa-aaaaa-aaaaq-cai", "m", "--update", "--identity", "ci",
                                    "--out-file", home.home.appendingPathComponent("x.json").path])
        #expect(outside.status == 6 && outside.stderrText.contains("not authorised"), "\(outside.stderrText)")
        // A session file imports as an identity; lifetimes are bounded.
        #expect(try home.json(["ic", "identity", "import", "ci2", "--session", sessionFile])["principal"]?.stringValue == rootPrincipal)
        #expect(try home.run(["ic", "identity", "delegate", "--save", "long", "--lifetime", "31d"]).status == 2)
        #expect(try home.run(["ic", "identity", "delegate"]).status == 2, "a destination is required")
    }

    // MARK: Certificates

    struct CertificateCase: Sendable, CustomStringConvertible {
        let id: String
        let scope: [String]
        /// nil: valid.
        let reason: String?
        var description: String { "\(id) \(scope.joined(separator: " ")) → \(reason ?? "valid")" }
    }

    static let ivg37 = ["--canister", "ivg37-qiaaa-aaaab-aaaga-cai"]
    static let ledger = ["--canister", "ryjl3-tyaaa-aaaaa-aaaba-cai"]
    static let uzr34 = "uzr34-akd3s-xrdag-3ql62-ocgoh-ld2ao-tamcv-54e7j-krwgb-2gm4z-oqe"
    static let o3ow2 = "o3ow2-2ipam-6fcjo-3j5vt-fzbge-2g7my-5fz2m-p4o2t-dwlc4-gt2q7-5ae"

    /// Every real certificate with the outcomes its upstream tests expect (as in OmniICTests' CertificateTests).
    static let certificateCases: [CertificateCase] = [
        CertificateCase(id: "agent-rs/ivg37_time", scope: ivg37, reason: nil),
        CertificateCase(id: "agent-rs/ivg37_time", scope: ledger, reason: "range"),
        CertificateCase(id: "agent-rs/ivg37_time_pruned_ranges", scope: ivg37, reason: "range"),
        CertificateCase(id: "agent-rs/ivg37_delegated_v2", scope: ivg37, reason: nil),
        CertificateCase(id: "agent-rs/ivg37_delegated_v2", scope: ledger, reason: "range"),
        CertificateCase(id: "agent-rs/ivg37_delegated_v2_pruned_subnet", scope: ivg37, reason: "range"),
        CertificateCase(id: "agent-rs/224od_subnet", scope: ["--canister", "224od-giaaa-aaaao-ae5vq-cai"], reason: nil),
        CertificateCase(id: "agent-rs/224od_subnet", scope: ["--canister", "rdmx6-jaaaa-aaaaa-aaadq-cai"], reason: "range"),
        CertificateCase(id: "agent-rs/uzr34_node_keys", scope: ["--subnet", uzr34], reason: nil),
        CertificateCase(id: "agent-rs/uzr34_node_keys", scope: ["--subnet", o3ow2], reason: "delegation"),
        CertificateCase(id: "agent-rs/o3ow2_subnet_key", scope: ["--subnet", o3ow2], reason: nil),
        CertificateCase(id: "agent-rs/o3ow2_subnet_key", scope: ["--canister", "v7pvf-xyaaa-aaaao-aaaaa-cai"], reason: "range"),
        CertificateCase(id: "agent-js/goldenCertificates.mainnetApplication", scope: ["--canister", "erxue-5aaaa-aaaab-qaagq-cai"], reason: nil),
        CertificateCase(id: "agent-js/goldenCertificates.mainnetApplication", scope: ledger, reason: "range"),
        CertificateCase(id: "agent-js/goldenCertificates.mainnetSystem", scope: ledger, reason: nil),
        CertificateCase(id: "agent-js/goldenCertificates.localApplication", scope: ledger, reason: nil),
        CertificateCase(id: "agent-js/goldenCertificates.localSystem", scope: ledger, reason: nil),
        CertificateCase(id: "agent-js/SAMPLE_CERT_BYTES", scope: ivg37, reason: nil),
        CertificateCase(id: "agent-js/SAMPLE_CERT_BYTES", scope: ["--canister", "jrlun-jiaaa-aaaab-aaaaa-cai"], reason: nil),
        CertificateCase(id: "agent-js/SAMPLE_CERT_BYTES", scope: ledger, reason: "range"),
        CertificateCase(id: "agent-js/canisterStatus.testCases[0]", scope: ["--canister", "rrkah-fqaaa-aaaaa-aaaaq-cai"], reason: "signature"),
        CertificateCase(id: "agent-js/bin/with_subnet_key.bin", scope: ["--canister", "rdmx6-jaaaa-aaaaa-aaadq-cai"], reason: nil),
    ]

    @Test(.vectors("ic"), arguments: certificateCases)
    func everyRealCertificateAtItsTime(_ item: CertificateCase) throws {
        let vector = try ICOfflineEndToEndTests.certificate(item.id)
        let derived = try #require(vector["derived"])
        let time = try #require(derived["time_ns"]?.numberText)
        let result = try omni(["ic", "certificate", "verify", try vector.string("certificate_cbor_hex"), "--at", ICOfflineEndToEndTests.unixSeconds(time), "-o", "json"] + item.scope)
        let verdict = try JSONValue.parse(Array(result.stdout))
        if let reason = item.reason {
            #expect(result.status == 1, "\(item): \(result.stderrText)")
            #expect(verdict["valid"]?.boolValue == false)
            #expect(verdict["reason"]?.stringValue == reason, "\(item): \(result.stdoutText)")
            #expect(verdict["message"]?.stringValue?.isEmpty == false)
        } else {
            #expect(result.status == 0, "\(item): \(result.stdoutText) \(result.stderrText)")
            #expect(verdict["valid"]?.boolValue == true)
            #expect(verdict["time"]?.stringValue == time)
            #expect(verdict["time_rfc3339"]?.stringValue == (try derived.string("time_iso")))
            #expect(verdict["root_hash"]?.stringValue == (try derived.string("root_hash")))
            let subnet = derived["delegation_subnet_id"]?.stringValue
            #expect(verdict["subnet"]?.stringValue == subnet ?? "tdb26-jop6k-aogll-7ltgs-eruif-6kk7m-qpktf-gdiqx-mxtrf-vb5e6-eqe")
            #expect(verdict["delegated"]?.boolValue == (subnet != nil))
        }
        // The read_state response body, as binary on stdin, gives the same verdict.
        if let body = vector["response_body_cbor_hex"]?.stringValue {
            let fromBody = try omni(["ic", "certificate", "verify", "-", "--input-format", "binary", "--at", ICOfflineEndToEndTests.unixSeconds(time), "-o", "json"] + item.scope,
                                    stdin: Data(try Hex.decode(body)))
            #expect(fromBody.status == result.status, "\(item) from the response body: \(fromBody.stderrText)")
            #expect(try JSONValue.parse(Array(fromBody.stdout))["input"]?.stringValue == "read_state_response")
        }
    }

    @Test(.vectors("ic")) func certificateSetCoversEveryVector() throws {
        let ids = try vector("certificates.json").array("certificates").map { try $0.string("id") }
        #expect(ids.count == 14)
        #expect(Set(ids) == Set(ICOfflineEndToEndTests.certificateCases.map(\.id)))
    }

    @Test(.vectors("ic")) func certificateTimeRootKeysLookupsAndMalformedInput() throws {
        let sample = try ICOfflineEndToEndTests.certificate("agent-js/SAMPLE_CERT_BYTES")
        let hex = try sample.string("certificate_cbor_hex")
        let derived = try #require(sample["derived"])
        let timeText = try #require(derived["time_ns"]?.numberText)
        let time = try #require(UInt64(timeText))
        let ivg37 = ICOfflineEndToEndTests.ivg37
        // Freshness: the clock by default, --at in RFC 3339 or Unix seconds, --time-tolerance.
        let seconds = time / 1_000_000_000
        let stale = try omni(["ic", "certificate", "verify", hex, "-o", "json"] + ivg37)
        let staleVerdict = try JSONValue.parse(Array(stale.stdout))
        #expect(stale.status == 1 && staleVerdict["reason"]?.stringValue == "time")
        #expect(try omni(["ic", "certificate", "verify", hex, "--at", try derived.string("time_iso")] + ivg37).status == 0)
        #expect(try omni(["ic", "certificate", "verify", hex, "--at", String(seconds + 299)] + ivg37).status == 0)
        #expect(try omni(["ic", "certificate", "verify", hex, "--at", String(seconds + 301)] + ivg37).status == 1)
        #expect(try omni(["ic", "certificate", "verify", hex, "--at", String(seconds + 3_000), "--time-tolerance", "1h"] + ivg37).status == 0)
        #expect(try omni(["ic", "certificate", "verify", hex, "--at", "yesterday"] + ivg37).status == 3)
        // Root keys: mainnet by name, DER hex, raw hex in a file; another BLS key fails on the signature.
        let root = try vector("mainnet_root_key.json")
        let directory = try TemporaryDirectory()
        let rawFile = try directory.write("root.hex", try root.string("raw_g2_compressed_hex") + "\n")
        for key in ["mainnet", try root.string("der_hex"), "@" + rawFile] {
            #expect(try omni(["ic", "certificate", "verify", hex, "--at", String(seconds), "--root-key", key] + ivg37).status == 0, "\(key)")
        }
        let subnetID = try derived.string("delegation_subnet_id")
        let subnetKey = try #require(derived["delegation"]?["subnet"]?[subnetID]?["public_key_der_hex"]?.stringValue)
        let foreign = try omni(["ic", "certificate", "verify", hex, "--at", String(seconds), "--root-key", subnetKey, "-o", "json"] + ivg37)
        let foreignVerdict = try JSONValue.parse(Array(foreign.stdout))
        #expect(foreign.status == 1 && foreignVerdict["reason"]?.stringValue == "signature")
        #expect(try omni(["ic", "certificate", "verify", hex, "--at", String(seconds), "--root-key", "abcd"] + ivg37).status == 3)
        // Lookups: Found with the value, Absent (certified), Unknown (pruned).
        let status = try #require(derived["request_status"]?.arrayValue?.first { $0["path"]?.arrayValue?.last?.stringValue == "status" })
        let requestID = try #require(status["path"]?.arrayValue?.first?.stringValue)
        let lookups = try omniJSON(["ic", "certificate", "verify", hex, "--at", String(seconds),
                                    "--lookup", "/request_status/\(requestID)/status", "--lookup", "/request_status/\(requestID)/reject_code",
                                    "--lookup", "/time", "--lookup", "/request_status/\(requestID)/reply", "--lookup", "/zzz",
                                    "--lookup", "/canister/ivg37-qiaaa-aaaab-aaaga-cai/certified_data"] + ivg37)
        let results = try #require(lookups["lookups"]?.arrayValue)
        #expect(results.map { $0["result"]?.stringValue ?? "" } == ["found", "found", "found", "absent", "absent", "unknown"], "\(lookups)")
        #expect(results[0]["value"]?.stringValue == (try status.string("value_hex")))
        #expect(results[0]["text"]?.stringValue == "rejected")
        #expect(results[1]["value"]?.stringValue == "03")
        #expect(results[2]["time"]?.stringValue == String(time))
        // Malformed input exits 3; binary given as hex is pointed out.
        for garbage in ["00", "zz", "d9d9f7a0", "a16474726565"] {
            #expect(try omni(["ic", "certificate", "verify", garbage, "--at", String(seconds)] + ivg37).status == 3, "\(garbage)")
        }
        let binaryAsHex = try omni(["ic", "certificate", "verify", "-", "--at", String(seconds)] + ivg37, stdin: Data(try Hex.decode(hex)))
        #expect(binaryAsHex.status == 3 && binaryAsHex.stderrText.contains("--input-format binary"))
        #expect(try omni(["ic", "certificate", "verify", hex, "--at", String(seconds)]).status == 2, "a scope is required")
        #expect(try omni(["ic", "certificate", "verify", hex, "--lookup", "time"] + ivg37).status == 3)
    }

    /// A delegated certificate wrapped as another certificate's delegation: refused as a nested delegation before any
    /// signature is checked.
    @Test(.vectors("ic")) func nestedDelegationIsRefused() throws {
        for id in ["agent-rs/uzr34_node_keys", "agent-js/bin/with_subnet_key.bin", "agent-js/SAMPLE_CERT_BYTES"] {
            let vector = try ICOfflineEndToEndTests.certificate(id)
            let inner = try Hex.decode(try vector.string("certificate_cbor_hex"))
            let subnet = try #require(vector["derived"]?["delegation_subnet_id"]?.stringValue)
            let subnetBytes = try #require(try omniJSON(["ic", "principal", "parse", subnet])["bytes"]?.stringValue)
            let outer = try CBOR.map([
                (key: .text("tree"), value: .array([.unsigned(3), .bytes(Array("x".utf8))])),
                (key: .text("signature"), value: .bytes([UInt8](repeating: 0x80, count: 48))),
                (key: .text("delegation"), value: .map([
                    (key: .text("subnet_id"), value: .bytes(try Hex.decode(subnetBytes))),
                    (key: .text("certificate"), value: .bytes(inner)),
                ])),
            ]).selfDescribed.encoded()
            let at = try #require(vector["derived"]?["time_iso"]?.stringValue, "\(id)")
            let result = try omni(["ic", "certificate", "verify", Hex.encode(outer), "--subnet", subnet, "--at", at, "-o", "json"])
            #expect(result.status == 1, "\(id): \(result.stderrText)")
            #expect(try JSONValue.parse(Array(result.stdout))["reason"]?.stringValue == "delegation", "\(id)")
        }
    }

    // MARK: Offline signing

    /// Requests signed by omni, checked by the Python peer: its own request-id computation, sender, delegations and
    /// signatures. Random arguments and nonces from a fresh seed (printed on failure).
    @Test func signedRequestsPassTheIndependentPeer() throws {
        var generator = SeededGenerator()
        let seed = generator.seed
        let home = try ICCLIHome()
        for type in ["ed25519", "secp256k1", "p256"] {
            #expect(try home.run(["ic", "identity", "new", type, "--type", type]).status == 0)
        }
        let did = try home.write("counter.did", "service : { get : () -> (nat) query; add : (nat, text) -> (nat); }")
        var runs = 0
        for identity in ["ed25519", "secp256k1", "p256", "anonymous"] {
            for kind in ["--query", "--update"] {
                let nonce = Hex.encode(generator.bytes(Int.random(in: 1...32, using: &generator)))
                let blob = generator.bytes(Int.random(in: 0...64, using: &generator))
                let file = home.home.appendingPathComponent("req-\(identity)\(kind).json").path
                let summary = try home.json(["ic", "sign", "rrkah-fqaaa-aaaaa-aaaaq-cai", "store", kind,
                                             "--identity", identity, "--nonce", nonce, "--out-file", file,
                                             "(blob \"\(blob.map { String(format: "\\%02x", $0) }.joined())\")"])
                #expect(summary["request_type"]?.stringValue == (kind == "--query" ? "query" : "call"), "seed \(seed)")
                #expect(try permissions(file) == 0o600)
                try checkWithPeer(file, seed: seed)
                runs += 1
            }
        }
        // Types from a .did file: the kind comes from the method's annotation; JSON arguments need the types.
        let query = try home.json(["ic", "sign", "rrkah-fqaaa-aaaaa-aaaaq-cai", "get", "--did", did,
                                   "--identity", "ed25519", "--out-file", home.home.appendingPathComponent("get.json").path])
        #expect(query["request_type"]?.stringValue == "query")
        let addFile = home.home.appendingPathComponent("add.json").path
        let add = try home.json(["ic", "sign", "rrkah-fqaaa-aaaaa-aaaaq-cai", "add", "--did", did,
                                 "--input-format", "json", "[5, \"five\"]", "--pem",
                                 home.config.appendingPathComponent("omni/identities/p256.pem").path, "--out-file", addFile])
        #expect(add["request_type"]?.stringValue == "call")
        let written = try JSONValue.parse(try String(contentsOfFile: addFile, encoding: .utf8))
        // (5 : nat, "five" : text)
        #expect(written["arg"]?.stringValue == "4449444c00027d71050466697665")
        try checkWithPeer(addFile, seed: seed)
        runs += 1
        #expect(try home.run(["ic", "sign", "rrkah-fqaaa-aaaaa-aaaaq-cai", "add", "--did", did,
                              "(\"not a nat\")", "--out-file", home.home.appendingPathComponent("bad.json").path]).status == 3)
        #expect(try home.run(["ic", "sign", "rrkah-fqaaa-aaaaa-aaaaq-cai", "x",
                              "--out-file", home.home.appendingPathComponent("kind.json").path]).status == 2, "query or update must be said")
        #expect(try home.run(["ic", "sign", "rrkah-fqaaa-aaaaa-aaaaq-cai", "get", "--did", did,
                              "--identity", "ed25519", "--out-file", home.home.appendingPathComponent("get.json").path]).status == 2,
                "an existing file is not overwritten without --force")
        // Management canister calls route to the canister named in the argument.
        let managed = try home.json(["ic", "sign", "aaaaa-aa", "canister_status", "--update",
                                     "(record { canister_id = principal \"ryjl3-tyaaa-aaaaa-aaaba-cai\" })",
                                     "--out-file", home.home.appendingPathComponent("status.json").path])
        #expect(managed["effective_canister_id"]?.stringValue == "ryjl3-tyaaa-aaaaa-aaaba-cai")
        #expect(try home.run(["ic", "sign", "aaaaa-aa", "create_canister", "--update",
                              "--out-file", home.home.appendingPathComponent("create.json").path]).status == 2)
        #expect(runs == 9)
    }

    @Test func ingressExpiryIsRoundedOrExact() throws {
        let home = try ICCLIHome()
        let before = UInt64(Date().timeIntervalSince1970 * 1e9)
        let signed = try home.json(["ic", "sign", "ryjl3-tyaaa-aaaaa-aaaba-cai", "m", "--query",
                                    "--out-file", home.home.appendingPathComponent("a.json").path])
        let expiryText = try #require(signed["ingress_expiry"]?.stringValue)
        let expiry = try #require(UInt64(expiryText))
        #expect(expiry % 60_000_000_000 == 0)
        #expect(expiry > before + 240_000_000_000 - 1 && expiry <= before + 301_000_000_000)
        let exact = try home.json(["ic", "sign", "ryjl3-tyaaa-aaaaa-aaaba-cai", "m", "--query",
                                   "--expires-at", "2030-01-01T00:00:30Z", "--out-file", home.home.appendingPathComponent("b.json").path])
        #expect(exact["ingress_expiry"]?.stringValue == "1893456030000000000")
        #expect(try home.run(["ic", "sign", "ryjl3-tyaaa-aaaaa-aaaba-cai", "m", "--query", "--expiry", "10s",
                              "--out-file", home.home.appendingPathComponent("c.json").path]).status == 2)
    }

    // MARK: Helpers

    /// The peer recomputes the request id and checks sender and signatures of the request and its status read.
    func checkWithPeer(_ file: String, seed: UInt64?) throws {
        let request = try JSONValue.parse(try String(contentsOfFile: file, encoding: .utf8))
        #expect(request["format"]?.stringValue == "omni-ic-signed-request")
        let now = UInt64(Date().timeIntervalSince1970 * 1e9)
        var lines = [JSONValue.object(["envelope": .string(try request.string("envelope")), "time": .number(String(now))]).serialized()]
        if let status = request["request_status_envelope"]?.stringValue {
            lines.append(JSONValue.object(["envelope": .string(status), "time": .number(String(now))]).serialized())
        } else {
            #expect(request["request_type"]?.stringValue == "query", "a call carries its status read")
        }
        let peer = try Subprocess.python("ic_peer.py", ["verify-envelopes"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(peer.status == 0, "\(peer.stderrText)")
        let verdicts = try peer.stdoutText.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(verdicts.count == lines.count)
        let context = "\(file) seed \(seed.map(String.init) ?? "-")"
        #expect(verdicts.first?["valid"]?.boolValue == true, "\(context): \(peer.stdoutText)")
        #expect(verdicts.first?["request_id"]?.stringValue == request["request_id"]?.stringValue, "\(context)")
        if verdicts.count == 2 { #expect(verdicts[1]["valid"]?.boolValue == true, "\(context): \(peer.stdoutText)") }
    }

    static func certificate(_ id: String) throws -> JSONValue {
        try #require(try vector("certificates.json").array("certificates").first { $0["id"]?.stringValue == id }, "\(id)")
    }

    /// `--at` takes Unix seconds (or RFC 3339); vectors give nanoseconds.
    static func unixSeconds(_ nanoseconds: String) -> String {
        String((UInt64(nanoseconds) ?? 0) / 1_000_000_000)
    }

    static func rfc3339(_ nanoseconds: UInt64) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(nanoseconds / 1_000_000_000))
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}

// MARK: - Support

private func vector(_ name: String) throws -> JSONValue {
    try JSONValue.parse(try Vectors.text("ic/" + name))
}

private func omni(_ arguments: [String], stdin: Data? = nil) throws -> ProcessResult {
    try Omni.run(arguments, stdin: stdin)
}

/// Runs a command that must succeed and returns its JSON output.
private func omniJSON(_ arguments: [String]) throws -> JSONValue {
    let result = try Omni.run(arguments + ["-o", "json"])
    guard result.status == 0 else {
        throw TestSupportError("omni \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderrText)")
    }
    return try JSONValue.parse(Array(result.stdout))
}

private func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// A throwaway directory, removed when the value goes away.
private final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("omni-ic-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func write(_ name: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        // Key files are read as secrets ('identity import --pem' refuses one others may read, as ssh does).
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return file.path
    }
}

/// A private HOME and XDG_CONFIG_HOME for identity tests.
private final class ICCLIHome {
    let directory: TemporaryDirectory
    var home: URL { directory.url.appendingPathComponent("home") }
    var config: URL { directory.url.appendingPathComponent("config") }

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    func run(_ arguments: [String], stdin: Data? = nil) throws -> ProcessResult {
        try Omni.run(arguments, stdin: stdin, environment: ["HOME": home.path, "XDG_CONFIG_HOME": config.path])
    }

    func json(_ arguments: [String]) throws -> JSONValue {
        let result = try run(arguments + ["-o", "json"])
        guard result.status == 0 else {
            throw TestSupportError("omni \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderrText)")
        }
        return try JSONValue.parse(Array(result.stdout))
    }

    func write(_ name: String, _ text: String) throws -> String {
        try directory.write(name, text)
    }
}

private extension JSONValue {
    func string(_ key: String) throws -> String {
        guard let value = self[key]?.stringValue else { throw TestSupportError("missing string \(key) in \(serialized().prefix(200))") }
        return value
    }

    func array(_ key: String) throws -> [JSONValue] {
        guard let value = self[key]?.arrayValue else { throw TestSupportError("missing array \(key)") }
        return value
    }
}
