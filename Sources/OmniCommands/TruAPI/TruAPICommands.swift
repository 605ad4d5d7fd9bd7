import OmniCLI
import OmniCodec
import OmniTruAPI

/// `omni truapi …`: the TrUAPI product ⇄ host protocol (frames, wire table; the bridge builds on these).
public enum TruAPICommands {
    public static var group: Command {
        Command(
            "truapi", abstract: "Speak TrUAPI, the product-host protocol of @parity/truapi: a host bridge, a client, frames.",
            discussion: """
                A TrUAPI product (a web app built on @parity/truapi) talks to its host in SCALE frames: a request id, \
                a one-byte wire id naming the method and the frame kind, then the payload. omni speaks protocol \
                \(TruAPITypes.protocolVersion) (truapi 229bb23): 'bridge' is a host for products on a local WebSocket (a \
                signing host with a 'session'), 'key' derives and signs offline as it does, 'call', 'subscribe' and \
                'replay' drive a bridge from scripts, 'methods' lists the 69 methods, 'frame \
                decode' and 'frame encode' turn frames into JSON and back (the mapping is in 'omni help truapi-json').
                """,
            section: "Polkadot"
        ) {
            [TruAPIBridgeCommand.command, TruAPISessionCommands.group, TruAPIKeyCommands.group, TruAPICallCommand.command,
             TruAPISubscribeCommand.command, TruAPIReplayCommand.command, TruAPIMethodsCommand.command, frameGroup]
        }
    }

    static var frameGroup: Command {
        Command("frame", abstract: "Decode and encode TrUAPI frames (hex, base64 or raw bytes ⇄ JSON).",
                subcommands: [TruAPIFrameDecodeCommand.command, TruAPIFrameEncodeCommand.command])
    }

    /// How frame bytes are written on input.
    enum ByteEncoding: String, CaseIterable, ArgumentValue { case hex, base64, binary }

    /// `--method`/`--kind` for a bare payload (`--payload-only`).
    static let method = Option<String>("method", valueName: "NAME", help: "The method a bare payload belongs to (see 'omni truapi methods').",
                                       completion: .values(TruAPIWireTable.methods.map(\.name)))
    static let kind = Option<TruAPIFrameKind>("kind", valueName: "KIND",
                                              help: "The frame kind of a bare payload.",
                                              absentMeans: "request, or start for a subscription")
    static let payloadOnly = Flag("payload-only", help: "Work on the payload alone, without request id and wire id (give --method).")

    /// The method and frame kind named by --method and --kind.
    static func methodAndKind(_ invocation: Invocation) throws -> (TruAPIMethod, TruAPIFrameKind) {
        let name = try invocation.value(method) ?? ""
        guard let found = TruAPIWireTable.method(named: name) else {
            throw CLIError.usage("--method: unknown method '\(name)' (see 'omni truapi methods')", commandPath: invocation.commandPath)
        }
        let frameKind = try invocation.value(kind) ?? (found.kind == .request ? .request : .start)
        guard found.discriminant(of: frameKind) != nil else {
            let kinds = found.discriminants.map(\.0.rawValue).joined(separator: ", ")
            throw CLIError.usage("--kind: \(name) has no \(frameKind.rawValue) frame (its kinds: \(kinds))", commandPath: invocation.commandPath)
        }
        return (found, frameKind)
    }

    public static var jsonTopic: HelpTopic {
        HelpTopic("truapi-json", abstract: "How TrUAPI frames and SCALE values map to JSON and back.", body: """
            'omni truapi frame decode --output json' prints a frame as
              {"request_id": "p:1", "discriminant": 0, "method": "system_handshake", "kind": "request",
               "payload": {"codec_version": 1}, "payload_hex": "0x0001"}
            and 'omni truapi frame encode' reads the same object back (discriminant, or method and kind; payload
            and/or payload_hex: payload_hex alone is sent as it is, both must agree).

            Values, by their SCALE type (Appendix A of the reference):
              ()                              null
              bool                            true / false
              u8, u16, u32                    number: 255
              u64, u128, Compact<u64>         decimal string: "18446744073709551615" (JSON numbers lose digits)
              str                             string (strict UTF-8; "0x…" stays text)
              bytes, [u8; N]                  0x-prefixed lowercase hex: "0xdeadbeef" (exactly N bytes)
              Vec<T>, tuples                  array
              Option<T>, OptionBool           null when absent, otherwise the value itself
              struct                          object with the fields in declaration order
              enum, unit variant              its name as a string: "Disconnected"
              enum, other variants            {"Variant": payload}: a one-item tuple's item, a longer tuple as
                                              an array, named fields as an object
              Result                          {"Ok": value} or {"Err": error}
              versioned envelope              the V1 content itself; another version as {"V2": content}

            Payloads per frame kind:
              request, start                  the request (V1 content); null for methods without arguments
              response                        {"Ok": body} ({"Ok": null} for a unit Ok) or {"Err": call error}
              receive                         the item
              interrupt                       null when the stream just ended, else the call error
              stop                            null
            A call error is {"Domain": error} (the method's own error, e.g. {"Domain": "NotConnected"}),
            "Denied", "Unsupported", {"MalformedFrame": {"reason": "…"}} or {"HostFailure": {"reason": "…"}}.

            Reading JSON: every integer may also be a number or a decimal string and is range-checked; hex may
            omit 0x; absent Option fields are None; unknown keys are errors; a unit variant may also be written
            {"Variant": null}; {"V1": content} is accepted for an envelope. Option<Option<T>> does not occur in
            the protocol (null could not tell its two Nones apart).
            """)
    }

    public static var policyTopic: HelpTopic {
        HelpTopic("truapi-policy", abstract: "The --policy file of 'omni truapi bridge': what products may have.", body: """
            A JSON object; every section is optional:
              {"default": "prompt",
               "device": {"camera": "allow", "microphone": "deny", "*": "prompt"},
               "remote": {"web_rtc": "deny", "chain_submit": "prompt"},
               "domains": {"example.com": "allow", "*.example.org": "allow", "*": "deny"},
               "identity_disclosure": "deny",
               "account_access": {"other.dot": "allow", "*": "deny"},
               "confirmations": {"sign_raw": "prompt", "*": "deny"}}
            Each value is "allow", "deny" or "prompt". A subject without an entry takes its section's "*", then
            "default", then prompt.

              device          notifications, camera, microphone, bluetooth, nfc, location, clipboard, open_url,
                              biometrics
              remote          web_rtc, chain_submit, preimage_submit, statement_submit
              domains         host names of Remote { domains } requests; also what http(s) navigate_to needs
                              (checked, never asked: the product must have been granted the host before);
                              "*.example.org" covers every subdomain of example.org
              account_access  one decision, or one per product id
              confirmations   sign_payload, sign_raw, create_transaction, sign_vrf, statement_store_product_sign,
                              account_alias, create_proof, resource_allocation, preimage_submit, product_subtree

            "allow" and "deny" apply as written, every time. "prompt" asks on the terminal (stderr, answered on
            stdin with y or n) and the answer is remembered for the product in the state directory, so it is
            asked once; delete permissions.json there to forget. Confirmations of one request (sign_raw,
            sign_payload, create_transaction, sign_vrf) are the exception: each request is asked about by
            itself, with its decoded payload shown, and nothing is remembered. Signing also needs the remote
            permission chain_submit (asked once), as the reference host checks it first. Without a terminal, after --prompt-timeout, or
            with more than 16 questions waiting, a prompt refuses and nothing is remembered. --auto-accept answers
            every prompt yes (a line per approval on stderr, without request contents); --deny-all refuses
            everything. A request for several domains is granted only when each is; the undecided ones are asked
            in one question. Errors in the file name the line and column, or the field: at $.device.camra.
            """)
    }

    public static var browserTopic: HelpTopic {
        HelpTopic("truapi-browser", abstract: "Products in a browser: the bridge's /bootstrap.js and /host pages.", body: """
            Products built on @parity/truapi 0.9 and earlier reach a host only through a webview shim
            (window.__HOST_API_PORT__) or the iframe protocol (truapi-ready / truapi-init). 'omni truapi bridge'
            serves both on its own port, next to the WebSocket, behind the same token:

              GET /bootstrap.js?t=TOKEN   the iOS bootstrap's equivalent, as text/javascript
              GET /host?t=TOKEN&url=URL   a page that embeds the product page URL (percent-encoded, http or https)
                                          in an iframe; &opaque=1 sandboxes it without its own origin

            The token. Every URL carries it as ?t=, checked as the WebSocket checks it: without it, or with another,
            the answer is HTTP 401 "invalid token" (logged as reject_unauthorized). A page or script is served only
            to a request that had the token, and the token in it is the one the request carried; responses are
            Cache-Control: no-store. The ready line gives bootstrap_url (and host_url with --open); scripts that
            start the bridge read them from there or from --ready-file.

            /bootstrap.js. Put <script src="BOOTSTRAP_URL"></script> before the product's own scripts (no async or
            defer). It sets window.__truapi_localhost = {url, token} (url = ws://HOST:PORT/?t=TOKEN, for the host the
            browser used to fetch the script), window.__HOST_WEBVIEW_MARK__ = true and window.__HOST_API_PORT__, a
            MessagePort look-alike: postMessage(Uint8Array) sends one binary frame, frames arrive as
            {data: Uint8Array} on onmessage and 'message' listeners once started (start(), or setting onmessage),
            frames posted before the socket opens are queued, and onmessageerror fires once when the socket fails or
            closes. Then it dispatches truapi-native-ready on window. Loaded twice, the first port stays.
            --print-bootstrap prints the same script without starting the bridge (for a browser you drive, e.g.
            Page.addScriptToEvaluateOnNewDocument): give the port in --listen and a token with --token @FILE or none.

            /host. The page waits for a truapi-ready message from its product frame, answers it with
            {type: "truapi-init"} and a new MessagePort, and relays that port to a new WebSocket to the bridge (a
            product that loads again gets a new port and a new connection, closing the old). It answers only the
            product frame's window, and only from the product's origin or the opaque origin "null" (which Firefox
            and sandboxes without allow-same-origin report; the answer then targets "*", the window having been
            checked). Other messages are ignored and counted (window.__omniTruapiHost). The frame gets the host's
            origin as its referrer, never the query with the token, so products resolve the host origin from
            document.referrer. The page's Content-Security-Policy allows its own script and style by hash,
            connections to its own origin and frames of the product's origin only; the page cannot be framed. A
            product on the bridge's own origin is refused (400). With --allow-origin, the page's socket (Origin =
            the bridge's own loopback address) is still admitted. When the bridge closes a connection (it stopped),
            the page closes that MessagePort, so the product's end gets a 'close' event, and says so in its status.

            Legacy products (Nova/dot.li iframe hosts) post raw Uint8Array frames to their parent window instead of
            using a port: the page relays those too, under the same window and origin rules, over one more
            connection, and posts the answers to the product frame's window as Uint8Array.

            --open URL starts the host page for URL with --opener, or xdg-open, once the bridge listens. The opener
            gets the path of a launcher file, not the URL: a page readable only by you (mode 0600, in
            $XDG_RUNTIME_DIR/omni/truapi, else ~/.local/state/omni/run/truapi) that replaces itself with the host
            page, since a command line is visible to every user of the machine. The file is removed once the host
            page is served, when the opener fails, or when the bridge stops. The event host_page_open says whether
            the opener ran (never with the URL). Without an opener it says so on stderr: open host_url from the
            ready line.
            """)
    }
}
