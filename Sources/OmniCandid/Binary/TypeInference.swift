extension CandidValue {
    /// The type a value given without types is encoded at: its most specific type, in which an empty vector is
    /// `vec empty`, an absent option `opt empty`, and references get the empty function or service type.
    ///
    /// A vector's elements share the least type each of theirs fits without losing anything (`TypeJoin`): `null`
    /// and options join as an option, `nat` and `int` as `int`, variants take every case any element has, and an
    /// empty vector or absent option takes its siblings' type. Elements with no such type are refused, naming two
    /// that differ, rather than encoded at the first element's type and cut down to it (as didc does).
    public func inferredType() throws(CandidError) -> CandidType {
        switch self {
        case .null: return .null
        case .bool: return .bool
        case .nat: return .nat
        case .int: return .int
        case .nat8: return .nat8
        case .nat16: return .nat16
        case .nat32: return .nat32
        case .nat64: return .nat64
        case .int8: return .int8
        case .int16: return .int16
        case .int32: return .int32
        case .int64: return .int64
        case .float32: return .float32
        case .float64: return .float64
        case .text: return .text
        case .reserved: return .reserved
        case .principal: return .principal
        case .blob: return .blob
        case .function: return .function(CandidFunctionType([], []))
        case .service: return .service(CandidServiceType([]))
        case .opt(let payload):
            guard let payload else { return .opt(.empty) }
            do throws(CandidError) { return .opt(try payload.inferredType()) } catch { throw error.inside(.optValue) }
        case .vec(let elements):
            var types: [CandidType] = []
            types.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                do throws(CandidError) { types.append(try element.inferredType()) } catch { throw error.inside(.element(index)) }
            }
            return .vec(try TypeJoin.join(types, elements: Array(types.indices)))
        case .record(let fields):
            var types: [CandidField] = []
            types.reserveCapacity(fields.count)
            for field in fields {
                do throws(CandidError) { types.append(CandidField(field.label, try field.value.inferredType())) }
                catch { throw error.inside(.field(field.label)) }
            }
            return .record(types)
        case .variant(let field):
            do throws(CandidError) { return .variant([CandidField(field.label, try field.value.inferredType())]) }
            catch { throw error.inside(.variantCase(field.label)) }
        }
    }

    /// The inferred type of each argument (see `inferredType()`), errors located at their argument.
    public static func inferredTypes(of arguments: [CandidValue]) throws(CandidError) -> [CandidType] {
        var types: [CandidType] = []
        types.reserveCapacity(arguments.count)
        for (index, value) in arguments.enumerated() {
            do throws(CandidError) { types.append(try value.inferredType()) } catch { throw error.inside(.argument(index)) }
        }
        return types
    }
}

/// The least common type of a vector's inferred element types, where every element's value encodes at it and
/// decodes to the same data. Only the widenings Candid's subtyping allows and that keep every value are made:
/// `nat` into `int`, `null` into an option, variants into the variant with all their cases, and the placeholder
/// `empty` of an absent option or empty vector into anything. `reserved` never joins another type: a value
/// encoded at it is dropped.
enum TypeJoin {
    /// `types[i]` is inferred from element `elements[i]` of the vector; `within` names where inside the elements the
    /// types stand ("" for the elements themselves), for the error.
    static func join(_ types: [CandidType], elements: [Int], within: String = "") throws(CandidError) -> CandidType {
        let kept = types.indices.filter { types[$0] != .empty }
        guard let head = kept.first else { return .empty }
        let first = types[head]
        if kept.allSatisfy({ types[$0] == first }) { return first }

        func conflict(_ position: Int, _ reason: String = "") -> CandidError {
            let (this, that) = (describe(first), describe(types[position]))
            let (one, other) = (elements[head], elements[position])
            let place = within.isEmpty ? "vec[\(one)] is \(this) and vec[\(other)] is \(that)"
                                       : "\(within) is \(this) in vec[\(one)] and \(that) in vec[\(other)]"
            return CandidError(.typeMismatch, "the vector's elements have no common type: \(place)\(reason); give the types to encode at")
        }
        func nested(_ part: String) -> String { within.isEmpty ? part : "\(part) in \(within)" }

        switch first {
        case .nat, .int:
            if let position = kept.first(where: { types[$0] != .nat && types[$0] != .int }) { throw conflict(position) }
            return .int
        case .null, .opt:
            var payloads: [CandidType] = [], from: [Int] = []
            for position in kept {
                switch types[position] {
                case .null: continue
                case .opt(let payload): payloads.append(payload); from.append(elements[position])
                default: throw conflict(position)
                }
            }
            return .opt(try join(payloads, elements: from, within: nested("the option's value")))
        case .vec:
            var inner: [CandidType] = [], from: [Int] = []
            for position in kept {
                guard case .vec(let element) = types[position] else { throw conflict(position) }
                inner.append(element)
                from.append(elements[position])
            }
            return .vec(try join(inner, elements: from, within: nested("an inner vector's element")))
        case .record(let fields):
            let labels = fields.map(\.label.id).sorted()
            var columns = [[CandidType]](repeating: [], count: fields.count), from: [Int] = []
            let column = Dictionary(fields.enumerated().map { ($0.element.label.id, $0.offset) }, uniquingKeysWith: { first, _ in first })
            for position in kept {
                guard case .record(let other) = types[position] else { throw conflict(position) }
                guard other.count == fields.count, other.map(\.label.id).sorted() == labels else {
                    throw conflict(position, ": records in one vector need the same fields")
                }
                for field in other { columns[column[field.label.id]!].append(field.type) }
                from.append(elements[position])
            }
            var joined: [CandidField] = []
            for (index, field) in fields.enumerated() {
                joined.append(CandidField(field.label, try join(columns[index], elements: from,
                                                                within: nested("record field \(field.label.quotedDescription)"))))
            }
            return .record(joined)
        case .variant:
            // One column per case, in the order the cases first appear.
            var labels: [CandidLabel] = [], columns: [(types: [CandidType], from: [Int])] = [], column: [UInt32: Int] = [:]
            for position in kept {
                guard case .variant(let fields) = types[position] else { throw conflict(position) }
                for field in fields {
                    let index: Int
                    if let known = column[field.label.id] {
                        index = known
                    } else {
                        index = labels.count
                        column[field.label.id] = index
                        labels.append(field.label)
                        columns.append(([], []))
                    }
                    columns[index].types.append(field.type)
                    columns[index].from.append(elements[position])
                }
            }
            var joined: [CandidField] = []
            for (label, cases) in zip(labels, columns) {
                joined.append(CandidField(label, try join(cases.types, elements: cases.from,
                                                          within: nested("variant case \(label.quotedDescription)"))))
            }
            return .variant(joined)
        default:
            throw conflict(kept.first { types[$0] != first }!)
        }
    }

    private static func describe(_ type: CandidType) -> String {
        let text = Candid.print(type, style: .compact)
        return text.count <= 60 ? text : String(text.prefix(57)) + "…"
    }
}
