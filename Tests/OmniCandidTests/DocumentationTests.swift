import OmniCandid
import Testing

/// Comments that document a `.did` interface are kept with what they document, for binding generators.
@Suite struct DocumentationTests {
    @Test func commentsBeforeAndAfterItemsDocumentThem() throws {
        let text = """
            // File header: separated by a blank line, it documents nothing.

            /// An account.
            /// Second line.
            type Account = record {
              // The owner.
              owner : principal;
              subaccount : opt blob; // 32 bytes
              nested : opt record {
                /* Inner field. */
                inner : nat;
              };
              positional : record { nat; text /** Second */ };
            };
            type Timestamp = nat64; // Nanoseconds since the epoch.
            type Result = variant {
              // Success.
              Ok : nat;

              // Not attached: a blank line follows.

              Err : text;
            };
            type Callback = func (record { /* no */ x : nat }) -> ();
            service : {
              /// Reads a balance.
              balance : (Account) -> (nat) query;
              transfer : (Account) -> (Result); // Moves tokens.
              quiet : () -> ();
            }
            """
        let interface = try CandidInterface.parse(text)
        let docs = interface.documentation
        #expect(docs.definitions == ["Account": "An account.\nSecond line.", "Timestamp": "Nanoseconds since the epoch."])
        #expect(docs.member("Account", [Candid.hash("owner")]) == "The owner.")
        #expect(docs.member("Account", [Candid.hash("subaccount")]) == "32 bytes")
        #expect(docs.member("Account", [Candid.hash("nested"), Candid.hash("inner")]) == "Inner field.")
        #expect(docs.member("Account", [Candid.hash("positional"), 1]) == "Second")
        #expect(docs.member("Result", [Candid.hash("Ok")]) == "Success.")
        #expect(docs.member("Result", [Candid.hash("Err")]) == nil)
        #expect(docs.members["Callback"] == nil, "members of function types are not documented")
        #expect(docs.methods == ["balance": "Reads a balance.", "transfer": "Moves tokens."])
    }

    @Test func aNamedServiceAndImportsKeepTheirComments() throws {
        let imported = """
            // A shared type.
            type Shared = record { a : nat };
            """
        let main = """
            import "shared.did";
            type S = service {
              // Named service method.
              get : () -> (Shared) query;
            };
            service : S
            """
        let resolver = CandidInterface.ImportResolver { path, _ in (path, Array(imported.utf8)) }
        let interface = try CandidInterface.parse(main, resolver: resolver)
        #expect(interface.documentation.definitions["Shared"] == "A shared type.")
        #expect(interface.documentation.methods == ["get": "Named service method."])
    }

    @Test func commentsDoNotChangeWhatParses() throws {
        let plain = try CandidInterface.parse("type A = record { x : nat }; service : { f : (A) -> () }")
        let commented = try CandidInterface.parse("/* a */ type A = record { // x\n x : nat /* y */ }; // z\n service : { f : (A) -> () // f\n }")
        #expect(plain.environment == commented.environment && plain.service == commented.service)
        #expect(throws: CandidError.self) { try CandidInterface.parse("type A = nat; /* unterminated") }
    }
}
