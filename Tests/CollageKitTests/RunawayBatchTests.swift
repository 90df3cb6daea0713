import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit

@Suite struct RunawayBatchTests {
    /// A list missing its blank lines (`find . -name '*.jpg' | collage batch -`)
    /// is one "collage" of every photo. It is refused for its size before any
    /// file is read, instead of reading thousands of photos first.
    @Test func aHugeGroupIsRefusedWithoutReadingItsFiles() throws {
        final class CountingInspector: PhotoInspecting, Sendable {
            let calls = Locked(0)
            func inspect(_ photo: Photo) throws -> PhotoInfo {
                calls.withLock { $0 += 1 }
                return FakeInspector.info
            }
        }
        let inspector = CountingInspector()
        let viewModel = try CollageViewModel(store: InMemorySelectionStore(), inspector: inspector,
                                             renderer: FakeRenderer(), writer: FakeWriter())
        let pick = (0..<10_000).map { photo("p\($0).jpg") }
        let event = viewModel.add(pick)
        #expect(event == .refused(.full(count: 0, adding: 10_000)))
        #expect(inspector.calls.current == 0)
        #expect(viewModel.add(Array(pick.prefix(6))).isSuccess)
        #expect(inspector.calls.current == 6)
    }
}
