/// A QR code (ISO/IEC 18004) in byte mode with error-correction level L, for handing a wallet URI over.
/// Versions 1–40; the mask is the one with the lowest penalty score.
public struct ConnectQRCode: Sendable {
    public let size: Int
    /// The data mask (0…7) chosen, the one with the lowest penalty.
    public private(set) var mask = 0
    /// modules[y][x], true = dark.
    public private(set) var modules: [[Bool]]
    private var isFunction: [[Bool]]

    /// Error-correction codewords per block and block counts for level L, versions 1…40.
    private static let eccPerBlock = [7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
                                      28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30]
    private static let blockCount = [1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
                                     8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25]

    /// The code for `bytes`, or nil when they exceed version 40's capacity.
    public init?(bytes: [UInt8]) {
        var chosen: Int?
        for version in 1...40 {
            let countBits = version <= 9 ? 8 : 16
            if 4 + countBits + bytes.count * 8 <= Self.dataCodewords(version) * 8 {
                chosen = version
                break
            }
        }
        guard let version = chosen else { return nil }
        size = version * 4 + 17
        modules = Array(repeating: Array(repeating: false, count: size), count: size)
        isFunction = modules
        drawFunctionPatterns(version: version)
        place(Self.codewords(bytes, version: version))
        var best = (mask: 0, penalty: Int.max)
        for mask in 0..<8 {
            apply(mask: mask)
            drawFormatBits(mask: mask)
            let penalty = self.penalty()
            if penalty < best.penalty { best = (mask, penalty) }
            apply(mask: mask)
        }
        apply(mask: best.mask)
        drawFormatBits(mask: best.mask)
        mask = best.mask
    }

    // MARK: - Data

    private static func rawDataModules(_ version: Int) -> Int {
        var result = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignments = version / 7 + 2
            result -= (25 * alignments - 10) * alignments - 55
            if version >= 7 { result -= 36 }
        }
        return result
    }

    private static func dataCodewords(_ version: Int) -> Int {
        rawDataModules(version) / 8 - eccPerBlock[version - 1] * blockCount[version - 1]
    }

    /// Segment bits, terminator and padding, split into blocks with Reed–Solomon codewords, interleaved.
    private static func codewords(_ bytes: [UInt8], version: Int) -> [UInt8] {
        let capacity = dataCodewords(version)
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) { for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) } }
        append(0b0100, 4)
        append(bytes.count, version <= 9 ? 8 : 16)
        for byte in bytes { append(Int(byte), 8) }
        append(0, min(4, capacity * 8 - bits.count))
        append(0, (8 - bits.count % 8) % 8)
        var data: [UInt8] = stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while data.count < capacity {
            data.append(pad)
            pad ^= 0xEC ^ 0x11
        }

        let blocks = blockCount[version - 1]
        let eccLength = eccPerBlock[version - 1]
        let rawCodewords = rawDataModules(version) / 8
        let shortBlocks = blocks - rawCodewords % blocks
        let shortBlockLength = rawCodewords / blocks
        let divisor = reedSolomonDivisor(degree: eccLength)
        var allBlocks: [[UInt8]] = []
        var offset = 0
        for index in 0..<blocks {
            let length = shortBlockLength - eccLength + (index < shortBlocks ? 0 : 1)
            var block = Array(data[offset..<offset + length])
            offset += length
            let ecc = reedSolomonRemainder(block, divisor: divisor)
            if index < shortBlocks { block.append(0) }
            allBlocks.append(block + ecc)
        }
        var result: [UInt8] = []
        for column in 0..<allBlocks[0].count {
            for (index, block) in allBlocks.enumerated() where column != shortBlockLength - eccLength || index >= shortBlocks {
                result.append(block[column])
            }
        }
        return result
    }

    private static func reedSolomonDivisor(degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for index in 0..<degree {
                result[index] = multiply(result[index], root)
                if index + 1 < degree { result[index] ^= result[index + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    private static func reedSolomonRemainder(_ data: [UInt8], divisor: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: divisor.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for index in result.indices { result[index] ^= multiply(divisor[index], factor) }
        }
        return result
    }

    /// Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1.
    private static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var z = 0
        for shift in stride(from: 7, through: 0, by: -1) {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= Int((y >> UInt8(shift)) & 1) * Int(x)
        }
        return UInt8(z & 0xff)
    }

    // MARK: - Layout

    private mutating func set(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y][x] = dark
        isFunction[y][x] = true
    }

    private mutating func drawFunctionPatterns(version: Int) {
        for index in 0..<size {
            set(6, index, index % 2 == 0)
            set(index, 6, index % 2 == 0)
        }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(x + dx) && (0..<size).contains(y + dy) {
                    let distance = max(abs(dx), abs(dy))
                    set(x + dx, y + dy, distance != 2 && distance != 4)
                }
            }
        }
        let positions = alignmentPositions(version)
        for (i, x) in positions.enumerated() {
            for (j, y) in positions.enumerated() {
                let corner = (i == 0 && j == 0) || (i == 0 && j == positions.count - 1) || (i == positions.count - 1 && j == 0)
                if corner { continue }
                for dy in -2...2 { for dx in -2...2 { set(x + dx, y + dy, max(abs(dx), abs(dy)) != 1) } }
            }
        }
        drawFormatBits(mask: 0)
        if version >= 7 {
            var remainder = version
            for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
            let bits = version << 12 | remainder
            for index in 0..<18 {
                let dark = (bits >> index) & 1 == 1
                let a = size - 11 + index % 3
                let b = index / 3
                set(a, b, dark)
                set(b, a, dark)
            }
        }
    }

    private func alignmentPositions(_ version: Int) -> [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        var result = [6]
        var position = size - 7
        var tail: [Int] = []
        for _ in 1..<count {
            tail.append(position)
            position -= step
        }
        result += tail.reversed()
        return result
    }

    private mutating func drawFormatBits(mask: Int) {
        let data = 1 << 3 | mask  // level L = 01
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { set(8, index, bit(index)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for index in 9..<15 { set(14 - index, 8, bit(index)) }
        for index in 0..<8 { set(size - 1 - index, 8, bit(index)) }
        for index in 8..<15 { set(8, size - 15 + index, bit(index)) }
        set(8, size - 8, true)
    }

    private mutating func place(_ data: [UInt8]) {
        var bitIndex = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for offset in 0..<2 {
                    let x = right - offset
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    if !isFunction[y][x], bitIndex < data.count * 8 {
                        modules[y][x] = (data[bitIndex >> 3] >> UInt8(7 - bitIndex & 7)) & 1 == 1
                        bitIndex += 1
                    }
                }
            }
            right -= 2
        }
    }

    private mutating func apply(mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y][x] {
                let invert: Bool
                switch mask {
                case 0: invert = (x + y) % 2 == 0
                case 1: invert = y % 2 == 0
                case 2: invert = x % 3 == 0
                case 3: invert = (x + y) % 3 == 0
                case 4: invert = (x / 3 + y / 2) % 2 == 0
                case 5: invert = x * y % 2 + x * y % 3 == 0
                case 6: invert = (x * y % 2 + x * y % 3) % 2 == 0
                default: invert = ((x + y) % 2 + x * y % 3) % 2 == 0
                }
                if invert { modules[y][x].toggle() }
            }
        }
    }

    /// The standard penalty: runs of five or more, 2×2 blocks, finder-like 1:1:3:1:1 patterns, dark/light balance.
    private func penalty() -> Int {
        var score = 0
        let finderLike: [Bool] = [true, false, true, true, true, false, true]
        for line in 0..<size {
            for horizontal in [true, false] {
                let cells = (0..<size).map { horizontal ? modules[line][$0] : modules[$0][line] }
                var run = 1
                for index in 1..<size {
                    if cells[index] == cells[index - 1] {
                        run += 1
                        if run == 5 { score += 3 } else if run > 5 { score += 1 }
                    } else {
                        run = 1
                    }
                }
                // Outside the symbol is the light quiet zone, so a pattern at the edge has its light area there.
                // A counted pattern is not counted again through its own last modules.
                var start = 0
                while start <= size - 7 {
                    guard Array(cells[start..<start + 7]) == finderLike else {
                        start += 1
                        continue
                    }
                    let before = !cells[max(0, start - 4)..<start].contains(true)
                    let after = !cells[(start + 7)..<min(size, start + 11)].contains(true)
                    if before || after {
                        score += 40
                        start += 7
                    } else {
                        start += 4
                    }
                }
            }
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let color = modules[y][x]
                if modules[y][x + 1] == color, modules[y + 1][x] == color, modules[y + 1][x + 1] == color { score += 3 }
            }
        }
        let dark = modules.reduce(0) { $0 + $1.filter { $0 }.count }
        let total = size * size
        // 10 points for each whole 5 % the dark share is away from 50 %.
        score += abs(dark * 20 - total * 10) / total * 10
        return score
    }
}
