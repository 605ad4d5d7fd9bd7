import OmniCodec
import OmniCrypto

// The JSON verdicts `omni attest` prints (snake_case keys, bytes as lowercase hex, key ids also in base64 because
// that is how apps send them). Fields not learned before the deciding check are null.

extension AttestationVerdict {
    public var json: JSONValue {
        var object = JSONObject()
        object["type"] = "attestation"
        object["valid"] = .bool(isValid)
        object["reason"] = .string(reason.rawValue)
        object["message"] = .string(message)
        object["key_id"] = .string(AttestBase64.encode(keyID))
        object["key_id_hex"] = .string(Hex.encode(keyID))
        object["app_id"] = .string(appID)
        object["environment"] = environment.map { .string($0.rawValue) } ?? .null
        let aaguid = authenticatorData?.attestedCredential?.aaguid
        object["aaguid"] = aaguid.map { .string(Self.aaguidText($0)) } ?? .null
        object["aaguid_hex"] = aaguid.map { .string(Hex.encode($0)) } ?? .null
        object["counter"] = authenticatorData.map { .int($0.signCount) } ?? .null
        object["flags"] = authenticatorData.map { .int($0.flags) } ?? .null
        object["public_key"] = publicKey.map(AttestPublicKey.json) ?? .null
        object["certificate"] = credentialCertificate.map(Self.certificateJSON) ?? .null
        object["extensions"] = ExtensionJSON.value(authenticatorData?.extensions)
        object["receipt"] = receipt?.json ?? .null
        object["verified_at"] = .string(AttestTime.format(time))
        return .object(object)
    }

    /// "appattest" / "appattestdevelop" when printable (trailing zero bytes dropped), otherwise hex.
    static func aaguidText(_ aaguid: [UInt8]) -> String {
        let trimmed = aaguid.reversed().drop(while: { $0 == 0 }).reversed()
        if !trimmed.isEmpty, trimmed.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(decoding: trimmed, as: UTF8.self) }
        return Hex.encode(aaguid)
    }

    static func certificateJSON(_ certificate: Certificate) -> JSONValue {
        .object(["subject": .string(certificate.subject), "issuer": .string(certificate.issuer),
                 "serial": .string(Hex.encode(certificate.serialNumber)),
                 "not_before": .string(AttestTime.format(certificate.notBefore)),
                 "not_after": .string(AttestTime.format(certificate.notAfter))])
    }
}

extension AssertionVerdict {
    public var json: JSONValue {
        var object = JSONObject()
        object["type"] = "assertion"
        object["valid"] = .bool(isValid)
        object["reason"] = .string(reason.rawValue)
        object["message"] = .string(message)
        object["key_id"] = .string(AttestBase64.encode(keyID))
        object["key_id_hex"] = .string(Hex.encode(keyID))
        object["app_id"] = .string(appID)
        object["counter"] = counter.map { .int($0) } ?? .null
        object["previous_counter"] = .int(previousCounter)
        object["flags"] = authenticatorData.map { .int($0.flags) } ?? .null
        object["public_key"] = AttestPublicKey.json(publicKey)
        object["extensions"] = ExtensionJSON.value(authenticatorData?.extensions)
        return .object(object)
    }
}

extension ReceiptAppraisal {
    public var json: JSONValue {
        var object = JSONObject()
        object["valid"] = .bool(isValid)
        object["problems"] = .array(problems.map { .string($0) })
        object["byte_count"] = .int(byteCount)
        object["signature_valid"] = .bool(signatureValid)
        object["chain_valid"] = .bool(chainValid)
        object["signer_chain"] = .array(signerChain.map { .string($0) })
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        object["type"] = text(receipt?.receiptType)
        object["app_id"] = text(receipt?.appID)
        object["environment"] = text(receipt?.environment)
        object["creation_time"] = text(receipt?.creationTime)
        object["not_before"] = text(receipt?.notBefore)
        object["expiration_time"] = text(receipt?.expirationTime)
        object["risk_metric"] = receipt?.riskMetric.map { .int($0) } ?? .null
        object["client_hash"] = receipt?.clientHash.map { .string(Hex.encode($0)) } ?? .null
        object["token"] = text(receipt?.token)
        object["attested_key_id"] = attestedKeyID.map { .string(AttestBase64.encode($0)) } ?? .null
        object["age_seconds"] = ageSeconds.map { .int($0) } ?? .null
        return .object(object)
    }
}
