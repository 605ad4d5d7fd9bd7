// omni-bench NAME [ITERATIONS]: runs one in-process benchmark and prints one JSON line
// {"name":…,"iterations":N,"seconds_per_op":…}. `make bench` pairs each with its peer and prints ratios.
#if canImport(Glibc)
import Glibc
#endif

let benchmarks: [String: Benchmark] = Dictionary(uniqueKeysWithValues: allBenchmarks.map { ($0.name, $0) })

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let benchmark = benchmarks[name] else {
    fputs("usage: omni-bench NAME [ITERATIONS]; names: \(benchmarks.keys.sorted().joined(separator: ", "))\n", stderr)
    exit(2)
}
let iterations = arguments.count > 1 ? Int(arguments[1]) ?? benchmark.defaultIterations : benchmark.defaultIterations
print(benchmark.run(iterations: iterations))
