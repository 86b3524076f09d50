import Foundation
import Testing
import KVStore

@Suite("fetch: sort keys as text")
struct FetchSortKeyTests {
    @Test("sort keys parse their options in any order and print back", arguments: [
        ("published", "published", true, KeyPathSort.StringOrder.unicodeScalars),
        ("published:desc", "published:desc", false, .unicodeScalars),
        ("published:ASC", "published", true, .unicodeScalars),
        ("title:c", "title:c", true, .folded(.caseInsensitive)),
        ("title:d:desc", "title:desc:d", false, .folded(.diacriticInsensitive)),
        ("customer.name:cd", "customer.name:cd", true, .folded([.caseInsensitive, .diacriticInsensitive])),
        ("title:desc:localized", "title:desc:localized", false, .localized(.current)),
        ("lines.@sum.amount:desc", "lines.@sum.amount:desc", false, .unicodeScalars),
    ])
    func parsing(text: String, printed: String, ascending: Bool, strings: KeyPathSort.StringOrder) throws {
        let sort = try KeyPathSort(parsing: text)
        #expect(sort.ascending == ascending)
        #expect(sort.strings == strings)
        #expect(sort.description == printed)
        #expect(try KeyPathSort(parsing: sort.description) == sort)
    }

    @Test("a bad sort key is one line naming the text and the problem", arguments: [
        ("", "invalid sort key '': the key path is empty"),
        (":desc", "invalid sort key ':desc': the key path is empty"),
        ("name:dsc", "invalid sort key 'name:dsc': unknown option 'dsc'; the options are asc, desc, c, d, cd and localized"),
        ("name:asc:desc", "invalid sort key 'name:asc:desc': both 'asc' and 'desc'; give one direction"),
        ("name:c:localized", "invalid sort key 'name:c:localized': both 'c' and 'localized'; give one string order"),
        ("name:", "invalid sort key 'name:': an empty option; options follow single colons"),
        ("a..b", "invalid sort key 'a..b': invalid key path 'a..b'"),
        ("tags.@first", "invalid sort key 'tags.@first': unknown collection operator '@first'"),
        ("x\n:bad", #"invalid sort key 'x\n:bad': unknown option 'bad'"#),
    ])
    func badSortKeys(text: String, message: String) {
        let error = #expect(throws: RecordQueryError.self) { try KeyPathSort(parsing: text) }
        #expect(error?.code == .invalidSort)
        #expect(error?.message.hasPrefix(message) == true, "\(String(describing: error))")
        #expect(error?.message.contains("\n") == false)
    }
}
