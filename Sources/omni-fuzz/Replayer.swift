/// `omni-fuzz list | run TARGET FILE|DIR… | seed TARGET DIR`.
enum Replayer {
    static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else { return usage() }
        switch command {
        case "list":
            for harness in Harnesses.all { FuzzOutput.line(harness.name + "\t" + harness.summary) }
            return 0
        default:
            return usage()
        }
    }

    static func usage() -> Int32 {
        FuzzOutput.error("usage: omni-fuzz list | run TARGET FILE|DIR… | seed TARGET DIR [--vectors DIR]")
        return 2
    }
}
