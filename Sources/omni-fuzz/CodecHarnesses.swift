import OmniCodec

let codecHarnesses: [Harness] = [cborHarness]

let cborHarness = Harness("cbor", "CBOR.decode (default, lenient, canonical options); decode → encode → decode is the same value") { bytes in
    guard let value = try? CBOR.decode(bytes) else { return }
    guard let encoded = try? value.encoded() else { FuzzCheck.fail("a decoded CBOR value does not encode") }
    guard let again = try? CBOR.decode(encoded) else { FuzzCheck.fail("re-encoded CBOR does not decode") }
    FuzzCheck.require(again == value, "CBOR round trip changed the value")
}
