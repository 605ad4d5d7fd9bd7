extension CandidTypeEnvironment {
    /// The first name that `types` use (at any depth, in reading order) and this environment does not define, or
    /// nil when every name resolves. For types parsed on their own, before anything else would report the name
    /// without saying which input it came from.
    public func firstUndefinedName(in types: [CandidType]) -> String? {
        // An explicit stack: types built in code have no parser depth limit behind them.
        var pending = Array(types.reversed())
        while let type = pending.popLast() {
            switch type {
            case .named(let name):
                if self[name] == nil { return name }
            case .opt(let inner), .vec(let inner):
                pending.append(inner)
            case .record(let fields), .variant(let fields):
                pending += fields.reversed().map(\.type)
            case .function(let function):
                pending += (function.argumentTypes + function.resultTypes).reversed()
            case .service(let service):
                pending += service.methods.reversed().map(\.type)
            default:
                break
            }
        }
        return nil
    }
}
