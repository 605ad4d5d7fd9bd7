/// The error `body` throws, or nil when it returns: for looking at a typed error (`throws(CodecError)`) in a test.
public func caughtError<E: Error>(_ body: () throws(E) -> Void) -> E? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}
