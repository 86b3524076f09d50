import Foundation
import Testing
@testable import kvstore

/// `load`'s reader: lines in chunks, and going back to a mark when a write starts over.
@Suite struct LineReaderTests {
    @Test func goesBackToAMarkAcrossChunks() throws {
        let dir = try TestDirectory()
        // Lines long enough that the input spans several 1 MiB chunks.
        let lines = (0..<40).map { String(repeating: Character(UnicodeScalar(UInt8(65 + $0 % 26))), count: 100_000 + $0) }
        let reader = try LineReader(path: try dir.write(lines.joined(separator: "\n"), to: "in.txt"))
        #expect(reader.countLines() == 40)
        var read: [String] = []
        while read.count < 25, let line = try reader.nextLine() { read.append(String(decoding: line, as: UTF8.self)) }
        let mark = reader.mark
        #expect(mark.lineNumber == 25)
        while let line = try reader.nextLine() { read.append(String(decoding: line, as: UTF8.self)) }
        #expect(read == lines)
        reader.seek(to: mark)
        var again: [String] = []
        while let line = try reader.nextLine() { again.append(String(decoding: line, as: UTF8.self)) }
        #expect(again == Array(lines[25...]))
        #expect(reader.lineNumber == 40)
    }
}
