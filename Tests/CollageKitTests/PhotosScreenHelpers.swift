import Dispatch
import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// A photos screen whose background scan is finished before it returns.
@MainActor
func makePhotosScreen(_ browser: FakeBrowser, at directory: String, collage: CollageViewModel,
                      previews: PreviewProviding? = nil, suggester: PhotoSuggesting? = nil) async -> (PhotosViewModel, DispatchQueue) {
    let scan = DispatchQueue(label: "test.scan")
    let screen = PhotosViewModel(directory: Photo(path: directory), collageState: collage.state, collageEvents: collage.events,
                                 browser: browser, previews: previews, suggester: suggester, resources: collage.resources,
                                 scanQueue: scan)
    collage.bind(picks: screen.selectedPhotos)
    await settle(scan)
    return (screen, scan)
}

@MainActor func names(_ screen: PhotosViewModel) -> [String] { screen.currentState.entries.map(\.name) }
