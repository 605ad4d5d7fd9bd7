import Foundation
import Testing
import OmniTestSupport

@Test func vectorsDirectoryExists() throws {
    #expect(FileManager.default.fileExists(atPath: Vectors.directory.path))
}
