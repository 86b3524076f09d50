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

extension LineReaderTests {
    /// Writes `lines` (each `count` copies of `byte`, or a given line), each ended by a line break,
    /// to `name` in `dir`. - Returns: the path.
    private static func file(_ dir: TestDirectory, _ name: String, lines: [(byte: UInt8, count: Int)]) throws -> String {
        let path = dir.path(name)
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        for line in lines { try handle.write(contentsOf: Data(repeating: line.byte, count: line.count) + [10]) }
        try handle.close()
        return path
    }

    /// A line of the limit is read; one byte more is an error naming the line and the limit,
    /// before the line is held whole.
    @Test func aLineLongerThanTheLimitIsAnErrorNamingIt() throws {
        let dir = try TestDirectory()
        let limit = 3 << 20  // the real limit in the load tests: lines of several chunks here
        let path = try Self.file(dir, "long.txt", lines: [(65, 10), (66, limit), (67, limit + 1), (68, 10)])
        let reader = try LineReader(path: path, lineLimit: limit)
        #expect(try reader.nextLine()?.count == 10)
        #expect(try reader.nextLine()?.count == limit)
        #expect(throws: CommandError.self) { try reader.nextLine() }
        do { _ = try reader.nextLine() } catch {
            #expect(error.description == "line 3: longer than 3 MiB (3145728 bytes), the longest line load reads")
        }
    }

    /// Reading one long line takes about as long as reading as many bytes in short lines: each
    /// byte is searched for a line break once and copied a bounded number of times (a 128 MiB
    /// line took 8 s, a 1 GiB one 8 minutes, as each chunk searched and copied the line so far).
    ///
    /// Timed in the reading thread's CPU time, the best of three rounds each: time the thread
    /// waited for a core on a loaded machine is not counted, and a round slowed by the cache or
    /// the page cache is not the one compared (a quadratic read is slower in every round).
    @Test func oneLongLineReadsInLinearTime() throws {
        let dir = try TestDirectory()
        let size = 32 << 20
        let long = try Self.file(dir, "long.txt", lines: [(65, size)])
        let short = try Self.file(dir, "short.txt", lines: Array(repeating: (66, 1023), count: size >> 10))
        func readingTime(_ path: String) throws -> Duration {
            let reader = try LineReader(path: path)
            let start = threadCPUTime()
            while try reader.nextLine() != nil {}
            return threadCPUTime() - start
        }
        _ = try readingTime(short)  // the page cache warmed alike
        var (longTime, shortTime) = (Duration.seconds(1000), Duration.seconds(1000))
        for _ in 0..<3 {
            longTime = min(longTime, try readingTime(long))
            shortTime = min(shortTime, try readingTime(short))
        }
        #expect(longTime < shortTime * 3 + .milliseconds(300), "one line: \(longTime), short lines: \(shortTime)")
    }

    /// The CPU time the calling thread has used.
    private func threadCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
