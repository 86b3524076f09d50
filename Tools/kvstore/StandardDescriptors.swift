#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps standard input, output and error taken when the tool starts with one closed
/// (`kvstore promote R >&-`). A closed one is the lowest free descriptor, so a store file opened
/// next took its number: LMDB's `lock.mdb` became descriptor 1, and the command's output went
/// into the lock file (or its error messages into `data.mdb`). Each closed one becomes
/// `/dev/null` opened the other way round (read-only for output, write-only for input), so that
/// using it still fails with `EBADF`, as on a closed descriptor, and the command says so.
enum StandardDescriptors {
    static func occupyClosed() {
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", descriptor == 0 ? O_WRONLY : O_RDONLY)
            // `open` returns the lowest free descriptor, which is this one; another means a
            // lower one was taken meanwhile, and the spare is not needed.
            if opened >= 0 && opened != descriptor { _ = close(opened) }
        }
    }
}
