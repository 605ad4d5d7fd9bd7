/// A Wadler-style pretty-printing document: groups print on one line when they fit the width and break their
/// line points otherwise. This is the layout `didc` uses (width 80, indent 2).
indirect enum PrettyDocument {
    case text(String)
    /// A space when flat, a newline when broken.
    case line
    /// Nothing when flat, a newline when broken.
    case softLine
    case concat([PrettyDocument])
    case nest(Int, PrettyDocument)
    case group(PrettyDocument)
    /// `broken` when the enclosing group breaks, `flat` when it fits.
    case flatAlternative(broken: PrettyDocument, flat: PrettyDocument)
    /// A document built when the renderer reaches it, and dropped once rendered: a value's document is built
    /// child by child, so printing a large value holds the pending part of its document, never all of it (a
    /// 143-byte message decodes to 327 677 values whose whole document took 200 MiB). Never empty: it stands for a
    /// value, which always prints something.
    case lazy(() -> PrettyDocument)

    static let empty = PrettyDocument.concat([])

    static func + (lhs: PrettyDocument, rhs: PrettyDocument) -> PrettyDocument { .concat([lhs, rhs]) }

    var isEmpty: Bool {
        switch self {
        case .text(let text): return text.isEmpty
        case .concat(let parts): return parts.allSatisfy(\.isEmpty)
        case .nest(_, let inner), .group(let inner): return inner.isEmpty
        case .flatAlternative(let broken, let flat): return broken.isEmpty && flat.isEmpty
        case .line, .softLine, .lazy: return false
        }
    }

    /// `left` + items + `right`, breaking after `left` and before `right` (indented) when too long.
    static func enclose(_ left: String, _ inner: PrettyDocument, _ right: String, spaced: Bool) -> PrettyDocument {
        if inner.isEmpty { return .text(left + right) }
        let breakPoint: PrettyDocument = spaced ? .line : .softLine
        return .group(.nest(2, .text(left) + breakPoint + inner) + breakPoint + .text(right))
    }

    /// Items separated by `separator` and a line; when broken every item (the last too) ends with it.
    static func separated(_ items: [PrettyDocument], by separator: String) -> PrettyDocument {
        guard !items.isEmpty else { return .empty }
        var parts: [PrettyDocument] = []
        for (index, item) in items.enumerated() {
            if index > 0 { parts.append(.text(separator)); parts.append(.line) }
            parts.append(item)
        }
        let single = PrettyDocument.concat(parts)
        return .flatAlternative(broken: single + .text(separator), flat: single)
    }

    /// Renders at `width` columns; `nil` renders everything on one line.
    func render(width: Int?) -> String {
        var output = ""
        var column = 0
        var stack: [(indent: Int, flat: Bool, document: PrettyDocument)] = [(0, width == nil, self)]
        while let (indent, flat, document) = stack.popLast() {
            switch document {
            case .text(let text):
                output += text
                column += text.unicodeScalars.count
            case .line, .softLine:
                if flat {
                    if case .line = document { output += " "; column += 1 }
                } else {
                    output += "\n" + String(repeating: " ", count: indent)
                    column = indent
                }
            case .concat(let parts):
                for part in parts.reversed() { stack.append((indent, flat, part)) }
            case .nest(let amount, let inner):
                stack.append((indent + amount, flat, inner))
            case .group(let inner):
                if flat {
                    stack.append((indent, true, inner))
                } else {
                    let fits = PrettyDocument.fits((width ?? Int.max) - column, [(indent, true, inner)], rest: stack)
                    stack.append((indent, fits, inner))
                }
            case .flatAlternative(let broken, let flatDocument):
                stack.append((indent, flat, flat ? flatDocument : broken))
            case .lazy(let build):
                stack.append((indent, flat, build()))
            }
        }
        return output
    }

    /// Whether the pending items fit in `remaining` columns up to the next line break of the broken rest.
    private static func fits(_ remaining: Int, _ items: [(indent: Int, flat: Bool, document: PrettyDocument)],
                             rest: [(indent: Int, flat: Bool, document: PrettyDocument)]) -> Bool {
        var remaining = remaining
        var work = items
        var restIndex = rest.count
        while true {
            guard remaining >= 0 else { return false }
            let item: (indent: Int, flat: Bool, document: PrettyDocument)
            if let next = work.popLast() {
                item = next
            } else if restIndex > 0 {
                restIndex -= 1
                item = rest[restIndex]
            } else {
                return true
            }
            switch item.document {
            case .text(let text): remaining -= text.unicodeScalars.count
            case .line: if item.flat { remaining -= 1 } else { return true }
            case .softLine: if !item.flat { return true }
            case .concat(let parts): for part in parts.reversed() { work.append((item.indent, item.flat, part)) }
            case .nest(let amount, let inner): work.append((item.indent + amount, item.flat, inner))
            case .group(let inner): work.append((item.indent, item.flat, inner))
            case .flatAlternative(let broken, let flat): work.append((item.indent, item.flat, item.flat ? flat : broken))
            case .lazy(let build): work.append((item.indent, item.flat, build()))
            }
        }
    }
}
