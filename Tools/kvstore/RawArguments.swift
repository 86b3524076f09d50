#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The command line as the process received it: bytes, before ArgumentParser decodes them.
/// Decoding replaces invalid UTF-8 with U+FFFD, so `a\xFFb` and `a\xFEb` would name one record:
/// an argument that is not UTF-8 text is refused instead.
enum RawArguments {
    /// The first argument after the program's name that is not valid UTF-8, as one line for
    /// ``StandardError/report(_:)``: which argument it is (1 for the first after `kvstore`), and its
    /// text with each invalid byte written `\xFF`. Nil when all are valid.
    static func firstInvalid(in arguments: [[UInt8]]) -> String? {
        for (index, bytes) in arguments.enumerated() where String(validating: bytes, as: UTF8.self) == nil {
            return "argument \(index + 1) is not valid UTF-8: '\(shown(bytes))'; arguments must be UTF-8 text"
        }
        return nil
    }

    /// The process's arguments after its name, as bytes.
    static func current() -> [[UInt8]] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeBufferPointer(start: argument, count: strlen(argument))).map { UInt8(bitPattern: $0) }
        }
    }

    /// `bytes` as text, each byte that is not part of valid UTF-8 written `\xFF`.
    static func shown(_ bytes: [UInt8]) -> String {
        var text = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                text.unicodeScalars.append(Unicode.UTF8.decode(encoded))
                offset += encoded.count
            case .error(let length):
                for byte in bytes[offset..<offset + length] { text += "\\x" + hex(byte) }
                offset += length
            case .emptyInput:
                return text
            }
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
