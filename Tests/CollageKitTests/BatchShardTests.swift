import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit

@Suite struct BatchShardTests {
    @Test func parsesKOverN() throws {
        #expect(try BatchShard(parsing: "2/3") == BatchShard(index: 2, count: 3))
        #expect(try BatchShard(parsing: "1/1") == .whole)
        #expect(try BatchShard(parsing: "2/3").description == "2/3")
    }

    @Test func refusesWhatIsNoShardSayingWhatToWrite() {
        for text in ["", "2", "2/", "/3", "a/3", "2/3/4", "2:3", "1.5/3"] {
            #expect(throws: ValueError("'\(text)' is not a shard: write K/N, e.g. 2/3 for the second of three")) {
                try BatchShard(parsing: text)
            }
        }
        #expect(throws: ValueError("a shard is K/N with K from 1 to N: 0/3 has no shard 0 (e.g. 1/3 to 3/3)")) {
            try BatchShard(parsing: "0/3")
        }
        #expect(throws: ValueError("a shard is K/N with K from 1 to N: 4/3 has no shard 4 (e.g. 1/3 to 3/3)")) {
            try BatchShard(parsing: "4/3")
        }
        #expect(throws: ValueError("a shard is K/N with N at least 1, not 1/0")) { try BatchShard(parsing: "1/0") }
    }

    /// Every collage is in exactly one shard, round robin from collage 1.
    @Test func everyCollageIsInExactlyOneShard() throws {
        for count in 1...7 {
            let shards = try (1...count).map { try BatchShard(index: $0, count: count) }
            for number in 1...50 {
                let holders = shards.filter { $0.contains(number) }
                #expect(holders.count == 1)
                #expect(holders.first?.index == (number - 1) % count + 1)
            }
        }
        #expect((1...7).filter(try BatchShard(parsing: "2/3").contains) == [2, 5])
    }
}
