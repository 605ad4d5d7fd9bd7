import Foundation
import OmniCandid
import OmniTestSupport
import Testing

/// The real-world corpus (`../shared/realworld/candid`, see its SOURCES.md): every published interface checks as
/// `omni candid check` checks it, and successive real versions (and single-edit mutations) get the upgrade verdict
/// that the Candid subtyping rules give, each expectation reasoned from the diff and stated with its reason.
@Suite(.realWorld("candid")) struct RealWorldCandidTests {
    static let root = Vectors.realWorldURL("candid")

    /// As `omni candid check FILE` loads it: from disk, imports resolved relative to the importing file.
    static func load(_ relativePath: String) throws -> CandidInterface {
        try CandidInterface.load(contentsOf: root.appendingPathComponent(relativePath))
    }

    static func text(_ url: URL) throws -> String {
        String(decoding: try Data(contentsOf: url), as: UTF8.self)
    }

    /// `type NAME =` declarations found by a plain scan of a file and (recursively) the files it imports: an
    /// independent count of what the interface must define.
    static func declaredTypes(in url: URL, seen: inout Set<String>) throws -> [String] {
        guard seen.insert(url.standardizedFileURL.path).inserted else { return [] }
        let source = try text(url)
        var names: [String] = []
        let imports = try NSRegularExpression(pattern: #"(?m)^\s*import\s+"([^"]+)""#)
        let declarations = try NSRegularExpression(pattern: #"(?m)^\s*type\s+([A-Za-z_][A-Za-z0-9_]*)\s*="#)
        let range = NSRange(source.startIndex..., in: source)
        for match in imports.matches(in: source, range: range) {
            let path = String(source[Range(match.range(at: 1), in: source)!])
            names += try declaredTypes(in: url.deletingLastPathComponent().appendingPathComponent(path), seen: &seen)
        }
        for match in declarations.matches(in: source, range: range) {
            names.append(String(source[Range(match.range(at: 1), in: source)!]))
        }
        return names
    }

    // MARK: did/

    @Test func everyPublishedInterfaceChecks() throws {
        let directory = Self.root.appendingPathComponent("did")
        let enumerator = try #require(FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil))
        let files = enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "did" }
            .map { String($0.standardizedFileURL.path.dropFirst(Self.root.path.count + 1)) }.sorted()
        // SOURCES.md lists 32 files at the top and 5 in the OpenChat tree.
        #expect(files.count == 37, "\(files)")
        #expect(files.filter { $0.hasPrefix("did/openchat/") }.count == 5)
        for file in files {
            let interface: CandidInterface
            do { interface = try Self.load(file) } catch {
                Issue.record("\(file): \(error)")
                continue
            }
            var seen: Set<String> = []
            let declared = try Self.declaredTypes(in: Self.root.appendingPathComponent(file), seen: &seen)
            #expect(interface.environment.names.sorted() == declared.sorted(), "\(file): every definition of the file and its imports")
            // Only the OpenChat types library has no service (SOURCES.md).
            #expect((interface.service == nil) == file.hasSuffix("libraries/types/can.did"), "\(file): service")
            for method in interface.service?.methods ?? [] {
                #expect(throws: Never.self, "\(file): method \(method.name) is a function type") { try interface.method(method.name) }
            }
            // Printing and reading back gives an equivalent interface (the printer keeps every definition).
            let reread = try CandidInterface.parse(interface.printed())
            #expect(reread.environment.names == interface.environment.names, "\(file): printed definitions")
            #expect(try reread.isEquivalent(to: interface), "\(file): printed interface is equivalent")
        }
    }

    @Test func openChatImportsResolveRelativeToTheImportingFile() throws {
        // user_index imports ../../../libraries/types/can.did, which imports ../../external_canisters/icrc_ledger/api/can.did.
        let userIndex = try Self.load("did/openchat/backend/canisters/user_index/api/can.did")
        let ledger = try Self.load("did/openchat/backend/external_canisters/icrc_ledger/api/can.did")
        let library = try Self.load("did/openchat/backend/libraries/types/can.did")
        #expect(Set(library.environment.names).isSuperset(of: ledger.environment.names), "types imports the ledger's definitions")
        #expect(Set(userIndex.environment.names).isSuperset(of: library.environment.names), "user_index imports the types library")
        // A plain import takes definitions only: the ledger's service does not become part of user_index's.
        let ledgerMethods = Set(ledger.service?.methods.map(\.name) ?? [])
        #expect(!ledgerMethods.isEmpty && ledgerMethods.isDisjoint(with: userIndex.service?.methods.map(\.name) ?? []))
    }

    // MARK: versions/history/

    /// SOURCES.md: "cl_v5 has U+200E (LEFT-TO-RIGHT MARK) after the service's closing brace". The bytes there are
    /// E2 8F 8E, which is U+23CE (RETURN SYMBOL), not U+200E (E2 80 8E); either way it is not Candid, and the
    /// error names the character actually there, at its line and column.
    @Test func clV5WithAStrayCharacterAfterTheServiceIsRefused() throws {
        let bytes = try Vectors.realWorldData("candid/versions/history/cl_v5.did")
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        #expect(Array(lines[130].prefix(4)) == [UInt8(ascii: "}"), 0xE2, 0x8F, 0x8E], "line 131 is the closing brace and the character")
        let error = try #require(throws: CandidError.self) { try Self.load("versions/history/cl_v5.did") }
        #expect(error.kind == .syntax)
        #expect(error.line == 131 && error.column == 2, "\(error)")
        #expect(error.message == "unexpected character U+23CE (RETURN SYMBOL)", "\(error)")
        #expect(error.file?.hasSuffix("cl_v5.did") == true)
    }

    /// SOURCES.md: cl_v9's service uses `SendArg` after the type was renamed `SendArgs`.
    @Test func clV9UsingAnUndefinedTypeIsRefusedWhereItIsUsed() throws {
        let error = try #require(throws: CandidError.self) { try Self.load("versions/history/cl_v9.did") }
        #expect(error.kind == .invalidType)
        #expect(error.message == "unknown type \"SendArg\"")
        // `    send : (SendArg) -> …` is line 114; SendArg starts in column 13.
        #expect(error.line == 114 && error.column == 13, "\(error)")
    }

    @Test func everyOtherHistoryVersionChecks() throws {
        let directory = Self.root.appendingPathComponent("versions/history")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".did") }.sorted()
        #expect(names.count == 37, "SOURCES.md: 10 cl, 7 evm, 2 btc, 4 station, 6 gov, 4 mgmt, 4 icrcl")
        for name in names where name != "cl_v5.did" && name != "cl_v9.did" {
            #expect(throws: Never.self, "\(name)") { try Self.load("versions/history/" + name) }
        }
    }

    /// One expected break: the method, the rest of the path (an element `A|B` accepts either), and words the
    /// reason must contain.
    struct Break: Sendable {
        let method: String
        let path: [String]?
        let reason: [String]

        init(_ method: String, _ path: [String]? = nil, reason: [String] = []) {
            self.method = method
            self.path = path
            self.reason = reason
        }

        func matches(_ mismatch: CandidSubtypeMismatch) -> Bool {
            guard mismatch.path.first == "method \(CandidLabel.quotedForTests(method))" else { return false }
            if let path {
                let rest = Array(mismatch.path.dropFirst())
                guard rest.count == path.count else { return false }
                for (found, wanted) in zip(rest, path) where !wanted.split(separator: "|").map(String.init).contains(found) { return false }
            }
            return reason.allSatisfy(mismatch.reason.contains)
        }
    }

    enum Warnings: Sendable {
        case none
        /// Every warning is a special-opt use below an `opt` (and there are `count` of them, when given).
        case throughOpt(count: Int?)
    }

    /// What the Candid rules say about `new <: old`, and why.
    struct Upgrade: Sendable, CustomTestStringConvertible {
        let old: String
        let new: String
        let reason: String
        let compatible: Bool
        /// Incompatible: breaks that must be reported; `exhaustive`: and no other method breaks.
        var breaks: [Break] = []
        var exhaustive = true
        var warnings: Warnings = .none
        /// With `strict`, the methods whose check fails backwards too; `[]` means equivalent; nil: not checked.
        var strictBreaks: [String]?

        var testDescription: String { "\(new) <: \(old)" }
    }

    static let history: [Upgrade] = [
        Upgrade(old: "btc_v2", new: "btc_v3",
                reason: "two request records gain the required field network and get_current_fee_percentiles a required argument; old clients send neither",
                compatible: false, breaks: [
                    Break("get_balance", ["argument 1", "record field \"network\""], reason: ["missing in the old version", "network in the new version is not optional"]),
                    Break("get_utxos", ["argument 1", "record field \"network\""], reason: ["missing in the old version"]),
                    Break("get_current_fee_percentiles", ["argument 1"], reason: ["the new version adds an argument of type get_current_fee_percentiles_request"]),
                ]),
        Upgrade(old: "cl_v1", new: "cl_v2",
                reason: "SendError, in send's result, turns from a variant into a record of the same name (the other edits are to arguments)",
                compatible: false, breaks: [
                    Break("send", ["result 1", "variant case \"Err\""], reason: ["SendError = record {", "(new) is not a subtype of SendError = variant {", "(old)"]),
                ]),
        Upgrade(old: "cl_v2", new: "cl_v4",
                reason: "Value (icrc1_metadata's result) gains Nat64, Array and Map, and SendError.fee_block (a result) becomes opt",
                compatible: false, breaks: [
                    Break("icrc1_metadata", ["result 1", "vec element", "record field 1", "variant case \"Nat64\"|variant case \"Array\"|variant case \"Map\""],
                          reason: ["the case is only in the new version"]),
                    Break("send", ["result 1", "variant case \"Err\"", "record field \"fee_block\""], reason: ["opt nat (new) is not a subtype of nat (old)"]),
                ]),
        // cl_v5 is not valid Candid, so v4 is followed by v8.
        Upgrade(old: "cl_v4", new: "cl_v8",
                reason: "SendArg, an argument, drops its optional field fee; old clients' extra field is ignored, so both directions hold",
                compatible: true, strictBreaks: []),
        // cl_v9 is not valid Candid, so v8 is followed by v13.
        Upgrade(old: "cl_v8", new: "cl_v13",
                reason: "the file is regenerated (aliases inlined, cases reordered, SendArg renamed SendArgs: names do not matter) and gains three icrc2 methods",
                compatible: true, strictBreaks: ["icrc2_allowance", "icrc2_approve", "icrc2_transfer_from"]),
        Upgrade(old: "cl_v13", new: "cl_v14", reason: "SendArgs, an argument, drops its optional field memo",
                compatible: true, strictBreaks: []),
        Upgrade(old: "cl_v14", new: "cl_v16",
                reason: "TransferArg is renamed TransferArgs, send's Ok is written BlockIndex (= nat), icrc3_get_transactions is added",
                compatible: true, strictBreaks: ["icrc3_get_transactions"]),
        Upgrade(old: "cl_v16", new: "cl_v17",
                reason: "SendError, in send's result, turns from a record into a variant (fee_block moves into FailedToSend)",
                compatible: false, breaks: [
                    Break("send", ["result 1", "variant case \"Err\""], reason: ["SendError = variant {", "(new) is not a subtype of SendError = record {"]),
                ]),
        Upgrade(old: "evm_v1", new: "evm_v2",
                reason: "the source argument's cases change from opt vec Provider to record { service : opt Provider }, and an opt is not a record",
                compatible: false, breaks: ["eth_fee_history", "eth_get_block_by_number", "eth_get_logs", "eth_get_transaction_count",
                                            "eth_get_transaction_receipt", "eth_send_raw_transaction"].map {
                    Break($0, ["argument 1", "variant case \"Ethereum\"|variant case \"Sepolia\""], reason: ["(old) is not a subtype of record {", "(new)"])
                }),
        Upgrade(old: "evm_v2", new: "evm_v3",
                reason: "the source cases change from record { service : opt P } to opt P: an old record is no P, so inside the opt it reads as null "
                    + "(the special opt rule) for both cases, in all six methods that take the source",
                compatible: true, warnings: .throughOpt(count: 2)),
        Upgrade(old: "evm_v3", new: "evm_v7",
                reason: "argument variants rename their cases: CandidRpcSource's Ethereum/Sepolia become EthMainnet/EthSepolia, Source's Url becomes Api",
                compatible: false, breaks: ["eth_fee_history", "eth_get_block_by_number", "eth_get_logs", "eth_get_transaction_count",
                                            "eth_get_transaction_receipt", "eth_send_raw_transaction"].map {
                    Break($0, ["argument 1", "variant case \"Ethereum\"|variant case \"Sepolia\""], reason: ["the case is only in the old version"])
                } + ["request", "request_cost"].map { Break($0, ["argument 1", "variant case \"Url\""], reason: ["the case is only in the old version"]) }),
        Upgrade(old: "evm_v7", new: "evm_v8",
                reason: "Auth renames Admin to ManageService, and Auth is an argument of authorize, deauthorize and get_authorized",
                compatible: false, breaks: [
                    Break("authorize", ["argument 2", "variant case \"Admin\""], reason: ["only in the old version"]),
                    Break("deauthorize", ["argument 2", "variant case \"Admin\""], reason: ["only in the old version"]),
                    Break("get_authorized", ["argument 1", "variant case \"Admin\""], reason: ["only in the old version"]),
                ]),
        Upgrade(old: "evm_v8", new: "evm_v39",
                reason: "the methods are renamed to camelCase (eth_fee_history → eth_feeHistory, …): old clients call names that are gone",
                compatible: false, breaks: [Break("eth_fee_history", [], reason: ["the method is missing in the new version"])], exhaustive: false),
        Upgrade(old: "evm_v39", new: "evm_v40",
                reason: "a result case of eth_sendRawTransaction changes from Ok (null) to Ok : opt text, and opt text is not a subtype of null",
                compatible: false, breaks: [
                    Break("eth_sendRawTransaction", ["result 1", "variant case \"Consistent\"", "variant case \"Ok\"", "variant case \"Ok\""],
                          reason: ["opt text (new) is not a subtype of null (old)"]),
                ]),
        Upgrade(old: "station_v0", new: "station_v1",
                reason: "AddUserOperationInput.name, in create_request's argument, goes from opt text to text: old clients may leave it out",
                compatible: false, breaks: [
                    Break("create_request", ["argument 1", "record field \"operation\"", "variant case \"AddUser\"", "record field \"name\""],
                          reason: ["opt text (old) is not a subtype of text (new)"]),
                ]),
        Upgrade(old: "station_v1", new: "station_v39",
                reason: "result variants gain cases (privileges, operations) and address-book entries lose the required field standard",
                compatible: false, breaks: [
                    Break("me", nil, reason: ["the case is only in the new version"]),
                    Break("get_address_book_entry", ["result 1", "variant case \"Ok\"", "record field \"address_book_entry\"", "record field \"standard\""],
                          reason: ["missing in the new version"]),
                ], exhaustive: false, warnings: .throughOpt(count: nil)),
        Upgrade(old: "station_v39", new: "station_v40", reason: "only cancel_request is added",
                compatible: true, strictBreaks: ["cancel_request"]),
        Upgrade(old: "gov_v2", new: "gov_v3", reason: "update_node_provider loses its query annotation, and annotations must be equal",
                compatible: false, breaks: [
                    Break("update_node_provider", [], reason: ["the annotations differ: an update in the new version, a query in the old version"]),
                ]),
        Upgrade(old: "gov_v3", new: "gov_v77",
                reason: "governance only adds methods and optional fields; its changing variants (Action, Command) sit inside opt, which the special opt rule accepts",
                compatible: true, warnings: .throughOpt(count: nil)),
        Upgrade(old: "gov_v77", new: "gov_v78",
                reason: "get_metrics' result record drops the required field spawning_neurons_count",
                compatible: false, breaks: [
                    Break("get_metrics", ["result 1", "variant case \"Ok\"", "record field \"spawning_neurons_count\""],
                          reason: ["missing in the new version, and its type nat64 in the old version is not optional"]),
                ]),
        Upgrade(old: "gov_v78", new: "gov_v93",
                reason: "methods and optional fields are added; proposal actions gain cases inside opt (special opt rule)",
                compatible: true, warnings: .throughOpt(count: nil)),
        Upgrade(old: "gov_v93", new: "gov_v94", reason: "ListProposalInfo is renamed ListProposalInfoRequest, and names do not matter",
                compatible: true, strictBreaks: []),
        Upgrade(old: "mgmt_v3", new: "mgmt_v4",
                reason: "chunk_hash keeps its name but changes from blob to record { hash : blob }, in two results and one argument",
                compatible: false, breaks: [
                    Break("upload_chunk", ["result 1"], reason: ["chunk_hash = record { hash : blob } (new) is not a subtype of chunk_hash = blob (old)"]),
                    Break("stored_chunks", ["result 1", "vec element"], reason: ["chunk_hash = record { hash : blob } (new)"]),
                    Break("install_chunked_code", ["argument 1", "record field \"chunk_hashes_list\"", "vec element"],
                          reason: ["chunk_hash = blob (old) is not a subtype of chunk_hash = record { hash : blob } (new)"]),
                ]),
        Upgrade(old: "mgmt_v4", new: "mgmt_v29",
                reason: "the bitcoin_*_query methods are removed and canister change details (a result) gain the load_snapshot case",
                compatible: false, breaks: [
                    Break("bitcoin_get_balance_query", [], reason: ["the method is missing in the new version"]),
                    Break("bitcoin_get_utxos_query", [], reason: ["the method is missing in the new version"]),
                    Break("canister_info", nil, reason: ["the case is only in the new version"]),
                ], exhaustive: false),
        Upgrade(old: "mgmt_v29", new: "mgmt_v30", reason: "canister_status becomes a query",
                compatible: false, breaks: [
                    Break("canister_status", [], reason: ["the annotations differ: a query in the new version, an update in the old version"]),
                ]),
        Upgrade(old: "icrcl_v0", new: "icrcl_v1",
                reason: "Account's field of is renamed owner and TransferArg's to_principal becomes to : Account, both in arguments",
                compatible: false, breaks: [
                    Break("icrc1_balance_of", ["argument 1", "record field \"owner\""], reason: ["missing in the old version, and its type principal"]),
                    Break("icrc1_transfer", ["argument 1", "record field \"to\""], reason: ["missing in the old version, and its type Account"]),
                ]),
        Upgrade(old: "icrcl_v1", new: "icrcl_v59", reason: "58 commits only add methods (archives, icrc2, icrc3, …)",
                compatible: true, strictBreaks: nil),
        Upgrade(old: "icrcl_v59", new: "icrcl_v60",
                reason: "the consent message variant, in icrc21's result, gains the case FieldsDisplayMessage",
                compatible: false, breaks: [
                    Break("icrc21_canister_call_consent_message", ["result 1", "variant case \"Ok\"", "record field \"consent_message\"",
                                                                   "variant case \"FieldsDisplayMessage\""], reason: ["the case is only in the new version"]),
                ]),
    ]

    /// Checks one verdict against its reasoned expectation.
    static func check(_ upgrade: Upgrade, new: CandidInterface, old: CandidInterface) throws {
        let verdict = try new.checkUpgrade(from: old)
        let name = upgrade.testDescription
        #expect(verdict.isCompatible == upgrade.compatible, "\(name) (\(upgrade.reason)): \(verdict.mismatches.map(\.description))")
        #expect(try new.isCompatibleUpgrade(of: old) == upgrade.compatible, "\(name): the plain check agrees")
        for expected in upgrade.breaks {
            #expect(verdict.mismatches.contains(where: expected.matches),
                    "\(name): expected \(expected.method) to break (\(upgrade.reason)); found \(verdict.mismatches.map(\.description))")
        }
        if upgrade.exhaustive {
            let broken = Set(verdict.mismatches.compactMap(\.path.first))
            #expect(broken == Set(upgrade.breaks.map { "method \(CandidLabel.quotedForTests($0.method))" }), "\(name): exactly these methods break")
        }
        switch upgrade.warnings {
        case .none:
            #expect(verdict.warnings.isEmpty, "\(name): \(verdict.warnings.map(\.description))")
        case .throughOpt(let count):
            #expect(!verdict.warnings.isEmpty, "\(name): the special opt rule is used")
            if let count { #expect(verdict.warnings.count == count, "\(name): \(verdict.warnings.map(\.description))") }
            for warning in verdict.warnings {
                #expect(warning.kind == .specialOptRule && warning.path.contains("opt") && warning.message.contains("read as null"), "\(warning)")
            }
        }
        if let strictBreaks = upgrade.strictBreaks {
            let strict = try new.checkUpgrade(from: old, strict: true)
            #expect(Set(strict.mismatches.compactMap(\.path.first)) == Set(strictBreaks.map { "method \(CandidLabel.quotedForTests($0))" }),
                    "\(name) --strict: \(strict.mismatches.map(\.description))")
            for mismatch in strict.mismatches {
                #expect(mismatch.reason == "the method is missing in the old version", "\(name) --strict: only added methods differ: \(mismatch)")
            }
        }
    }

    @Test(arguments: history)
    func historyUpgrade(_ upgrade: Upgrade) throws {
        let old = try Self.load("versions/history/\(upgrade.old).did")
        let new = try Self.load("versions/history/\(upgrade.new).did")
        try Self.check(upgrade, new: new, old: old)
    }

    /// Successive versions of each interface are all covered (the two invalid ones bridged).
    @Test func historyPairsCoverEveryValidVersion() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("versions/history").path)
            .filter { $0.hasSuffix(".did") }.map { String($0.dropLast(4)) }
        let covered = Set(Self.history.flatMap { [$0.old, $0.new] })
        #expect(covered == Set(names).subtracting(["cl_v5", "cl_v9"]))
    }

    /// Renamed methods (evm_v8 → evm_v39): every method of the old interface that the new one lacks is reported.
    @Test func everyRemovedMethodIsReported() throws {
        let old = try Self.load("versions/history/evm_v8.did"), new = try Self.load("versions/history/evm_v39.did")
        let removed = Set(old.service?.methods.map(\.name) ?? []).subtracting(new.service?.methods.map(\.name) ?? [])
        #expect(removed.count == 19)
        let reported = try new.checkUpgrade(from: old).mismatches.filter { $0.reason == "the method is missing in the new version" }
        #expect(Set(reported.compactMap(\.path.first)) == Set(removed.map { "method \(CandidLabel.quotedForTests($0))" }))
    }

    /// The special opt rule where the spec says to warn: the warning points into the opt and says what no longer fits.
    @Test func evmSourceCasesWarnAboutTheSpecialOptRule() throws {
        let old = try Self.load("versions/history/evm_v2.did"), new = try Self.load("versions/history/evm_v3.did")
        let warnings = try new.checkUpgrade(from: old).warnings
        let ethereum = try #require(warnings.first { $0.path.contains("variant case \"Ethereum\"") })
        #expect(ethereum.path == ["method \"eth_fee_history\"", "argument 1", "variant case \"Ethereum\"", "opt"])
        #expect(ethereum.message.hasPrefix("record { \"service\" : opt EthereumProvider } (old) is not a subtype of EthereumProvider (new)"))
        // Six methods take the same source type; the pair is reported once, where it is first met.
        #expect(warnings.filter { $0.path.contains("variant case \"Ethereum\"") }.count == 1)
    }

    // MARK: versions/mutations/

    struct Mutation: Sendable, CustomTestStringConvertible {
        let file: String
        /// What the header comment must say the edit is (the verdict below is reasoned from it).
        let header: String
        let upgrade: Upgrade

        var testDescription: String { file }
    }

    static func mutation(_ file: String, header: String, reason: String, compatible: Bool, breaks: [Break] = [], exhaustive: Bool = true,
                         warnings: Warnings = .none, strictBreaks: [String]? = nil) -> Mutation {
        Mutation(file: file, header: header,
                 upgrade: Upgrade(old: file.hasPrefix("icrc3") ? "icrc3_standard" : "icrc1_ledger", new: file, reason: reason,
                                  compatible: compatible, breaks: breaks, exhaustive: exhaustive, warnings: warnings, strictBreaks: strictBreaks))
    }

    static let mutations: [Mutation] = [
        mutation("icrc1_account_field_renamed", header: "Account.owner renamed owner_id",
                 reason: "Account is an argument (icrc1_balance_of, …) and old values lack the required owner_id; where it is a result inside opt "
                    + "(icrc1_minting_account) it passes only by the special opt rule",
                 compatible: false, breaks: [
                    Break("icrc1_balance_of", ["argument 1", "record field \"owner_id\""], reason: ["missing in the old version, and its type principal"]),
                 ], exhaustive: false, warnings: .throughOpt(count: nil)),
        mutation("icrc1_amount_opt", header: "argument field amount becomes opt",
                 reason: "TransferArg is only an argument, and nat <: opt nat by the ordinary opt rule", compatible: true),
        mutation("icrc1_arg_opt_field", header: "optional field added to argument record TransferArg",
                 reason: "an argument record may gain optional fields: old values read them as null", compatible: true),
        mutation("icrc1_arg_required_field", header: "required field added to argument record TransferArg",
                 reason: "old clients do not send the new required field", compatible: false, breaks: [
                    Break("icrc1_transfer", ["argument 1", "record field \"nonce\""], reason: ["missing in the old version, and its type nat64"]),
                 ]),
        mutation("icrc1_method_removed", header: "method icrc1_fee removed", reason: "old clients call icrc1_fee",
                 compatible: false, breaks: [Break("icrc1_fee", [], reason: ["the method is missing in the new version"])]),
        mutation("icrc1_new_method", header: "method added", reason: "a service may gain methods",
                 compatible: true, strictBreaks: ["icrc1_fee_v2"]),
        mutation("icrc1_query_to_update", header: "icrc1_balance_of loses its query annotation",
                 reason: "function annotations must be equal", compatible: false, breaks: [
                    Break("icrc1_balance_of", [], reason: ["the annotations differ: an update in the new version, a query in the old version"]),
                 ]),
        mutation("icrc1_result_case_removed", header: "case TooOld removed from result variant TransferError",
                 reason: "a result variant may lose cases (but then the old result is no subtype of the new)",
                 compatible: true, strictBreaks: nil),
        mutation("icrc1_result_new_case", header: "case added to result variant TransferError",
                 reason: "old clients cannot read a result case they do not know", compatible: false, breaks: [
                    Break("icrc1_transfer", ["result 1", "variant case \"Err\"", "variant case \"Frozen\""], reason: ["the case is only in the new version"]),
                 ]),
        mutation("icrc1_result_required_field", header: "required field added to result record Allowance",
                 reason: "a result record may gain fields: old clients ignore them", compatible: true),
        mutation("icrc1_tokens_int", header: "Tokens nat -> int (used in arguments and results)",
                 reason: "nat <: int keeps every argument compatible; results of type int no longer fit old clients' nat",
                 compatible: false, breaks: ["icrc1_fee", "icrc1_total_supply", "icrc1_balance_of"].map {
                    Break($0, ["result 1"], reason: ["int (new) is not a subtype of nat (old)"])
                 }, exhaustive: false),
        mutation("icrc3_value_deeper", header: "recursive Map entries gain an element (results: compatible, since records may gain fields)",
                 reason: "Value occurs only in results (also through the callback in a result), where records may gain fields", compatible: true),
        mutation("icrc3_value_new_case", header: "case added to recursive result type Value",
                 reason: "Value is a result, and old clients cannot read the new case", compatible: false, breaks: [
                    Break("icrc3_get_blocks", ["result 1", "record field \"blocks\"", "vec element", "record field \"block\"", "variant case \"Bool\""],
                          reason: ["the case is only in the new version"]),
                 ]),
    ]

    @Test(arguments: mutations)
    func mutationUpgrade(_ mutation: Mutation) throws {
        let text = String(decoding: try Vectors.realWorldData("candid/versions/mutations/\(mutation.file).did"), as: UTF8.self)
        let header = try #require(text.split(separator: "\n").first.map(String.init))
        #expect(header.hasPrefix("// Mutation of a real file") && header.contains(mutation.header), "\(mutation.file): \(header)")
        let old = try Self.load("did/\(mutation.upgrade.old).did")
        let new = try Self.load("versions/mutations/\(mutation.file).did")
        try Self.check(mutation.upgrade, new: new, old: old)
    }

    @Test func everyMutationIsCovered() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("versions/mutations").path)
            .filter { $0.hasSuffix(".did") }.map { String($0.dropLast(4)) }
        #expect(Set(files) == Set(Self.mutations.map(\.file)))
    }

    /// Tokens nat → int: arguments stay compatible (nat <: int), so every break is in a result.
    @Test func tokensBecomingIntBreaksOnlyResults() throws {
        let old = try Self.load("did/icrc1_ledger.did"), new = try Self.load("versions/mutations/icrc1_tokens_int.did")
        let mismatches = try new.checkUpgrade(from: old).mismatches
        #expect(!mismatches.isEmpty)
        for mismatch in mismatches { #expect(mismatch.path.dropFirst().first?.hasPrefix("result") == true, "\(mismatch)") }
    }

    /// A renamed Account field breaks arguments, and inside opt results the special opt rule lets it pass with a warning.
    @Test func accountRenameWarnsWhereAnOptHidesTheBreak() throws {
        let old = try Self.load("did/icrc1_ledger.did"), new = try Self.load("versions/mutations/icrc1_account_field_renamed.did")
        let verdict = try new.checkUpgrade(from: old)
        #expect(!verdict.mismatches.contains { $0.path.first == "method \"icrc1_minting_account\"" }, "opt Account passes")
        let warning = try #require(verdict.warnings.first { $0.path.first == "method \"icrc1_minting_account\"" })
        #expect(warning.path == ["method \"icrc1_minting_account\"", "result 1", "opt", "record field \"owner\""])
        #expect(warning.message.contains("missing in the new version") && warning.message.contains("read as null"))
    }
}

extension CandidLabel {
    /// A method name as the explanations quote it.
    static func quotedForTests(_ name: String) -> String { "\"" + name + "\"" }
}
