#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Telling loopback addresses (127.0.0.0/8, ::1, and 127.x mapped into IPv6) from others: only
/// there may a server speak plain TCP without authentication, and a token travel unencrypted.
enum Loopback {
    /// Whether `host` resolves, and only to loopback addresses (`0.0.0.0`, `::` and names that do
    /// not resolve are not).
    static func isLoopback(host: String) -> Bool {
        var list: UnsafeMutablePointer<addrinfo>?
        guard lookUpStreamAddresses(host, port: nil, into: &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(list) }
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            guard let socketAddress = address.pointee.ai_addr, isLoopback(socketAddress) else { return false }
            candidate = address.pointee.ai_next
        }
        return true
    }

    /// Whether the socket address at `address` is a loopback address.
    static func isLoopback(_ address: UnsafePointer<sockaddr>) -> Bool {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt32(bigEndian: $0.pointee.sin_addr.s_addr) >> 24 == 127
            }
        case AF_INET6:
            let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
            let mappedIPv4 = bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            return bytes == [UInt8](repeating: 0, count: 15) + [1] || (mappedIPv4 && bytes[12] == 127)
        default:
            return false
        }
    }

    /// Whether the peer of the connected socket `descriptor` is on a loopback address.
    static func isLoopbackPeer(_ descriptor: Int32) -> Bool {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                getpeername(descriptor, address, &length) == 0 && isLoopback(address)
            }
        }
    }
}

/// `getaddrinfo` for TCP addresses of `host` (any family) and `port`: the list goes into `list`
/// (free it with `freeaddrinfo`).
/// - Returns: `getaddrinfo`'s status (0: resolved).
func lookUpStreamAddresses(_ host: String, port: String?, into list: inout UnsafeMutablePointer<addrinfo>?) -> Int32 {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Glibc)
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
    hints.ai_socktype = SOCK_STREAM
    #endif
    return getaddrinfo(host, port, &hints, &list)
}
