import Testing
@testable import KVStore

@Suite struct CRC32Tests {
    @Test func matchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }

    @Test func continuingOverPiecesEqualsTheWhole() {
        let whole = Array("123456789".utf8)
        let first = whole[..<4].withUnsafeBytes { CRC32.checksum($0) }
        let continued = whole[4...].withUnsafeBytes { CRC32.checksum($0, continuing: first) }
        #expect(continued == CRC32.checksum(whole))
    }
}
