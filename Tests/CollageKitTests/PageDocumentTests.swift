import CollageTestSupport
import Foundation
import Testing
@testable import CollageKit

/// A document of many pages through the page writer (`PageDocument` over
/// `ci_document_*`), as issue #43's photo book will write it: every page
/// there, each its own size, and memory that does not grow with the pages.
@Suite struct PageDocumentTests {
    /// Set in the child this suite starts (`peak(pages:)`): write that many
    /// pages to the file named by `childOutput` and say the peak.
    static let childPages = "COLLAGE_TEST_PAGE_DOCUMENT_PAGES"
    static let childOutput = "COLLAGE_TEST_PAGE_DOCUMENT_OUTPUT"

    /// Page `index` of a document: one photo of noise (so that its JPEG is
    /// large, about a megabyte: pages held in memory would show) filling a
    /// 992x1403 canvas (A4 at 120 dpi), turned to landscape on odd pages,
    /// with its title.
    static func page(_ index: Int) throws -> CollagePage {
        let (width, height) = index % 2 == 0 ? (992, 1403) : (1403, 992)
        let options = try CollageRenderOptions(size: RequestedSize(try CanvasSize(width: width, height: height)), layout: .grid,
                                               gap: 0, margin: 0, title: try CollageTitle("Page \(index + 1)"))
        let plan = try CollageLayout.plan([PhotoShape(width: width, height: height)], LayoutRequest(options))
        var image = RGBImage(width: width, height: height, filledWith: .white)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(index + 1)
        for offset in image.pixels.indices {
            state = state &* 6364136223846793005 &+ 1442695040888963407  // a linear congruential generator
            image.pixels[offset] = UInt8(truncatingIfNeeded: state >> 56)
        }
        let collage = RenderedCollage(image: image, plan: plan, shown: plan.cells.map { _ in PhotoRegion(x: 0, y: 0, width: 1, height: 1) },
                                      captions: [nil])
        return CollagePage(collage, options: options)
    }

    /// The options every page is written with: 120 dpi, so a page's size is its canvas's.
    static let options = try! SaveOptions(quality: 90, resolution: PrintResolution(parsing: "120"))

    /// Writes `count` pages into a PDF at `file`, page by page, straight to the file.
    static func write(pages count: Int, to file: URL) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let document = try PageDocument(options: options, title: "A book", writingTo: handle.fileDescriptor)
        for index in 0..<count { try document.add(try page(index)) }
        try document.close()
    }

    /// The process's peak resident memory in KiB (Linux's VmHWM).
    static func peakKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(separator: " ")[1]))
    }

    /// The peak of a child process (this test binary, running only this
    /// suite's test below) that writes `count` pages into `file`: measured
    /// apart from the tests running in parallel in this process.
    static func peak(pages count: Int, file: URL) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--testing-library", "swift-testing", "--filter", "PageDocumentTests.memoryDoesNotGrowWithThePages"]
        var environment = ProcessInfo.processInfo.environment
        environment[childPages] = "\(count)"
        environment[childOutput] = file.path
        // Under AddressSanitizer (make test-sanitized) freed memory waits in
        // a quarantine, resident, which would grow with the pages: none here.
        environment["ASAN_OPTIONS"] = [environment["ASAN_OPTIONS"], "quarantine_size_mb=0:thread_local_quarantine_size_kb=0"]
            .compactMap { $0 }.joined(separator: ":")
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "the child writing \(count) pages failed: \(output)")
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("page-document-peak ") }, "\(output)")
        return try #require(Int(line.split(separator: " ")[1]))
    }

    /// `pdfinfo` of the file with each page's size (poppler-utils, which make test installs).
    static func pdfinfo(_ file: URL, pages: Int) throws -> String {
        let path = "/usr/bin/pdfinfo"
        try #require(FileManager.default.isExecutableFile(atPath: path), "pdfinfo (Debian poppler-utils) is missing: make test installs it")
        let run = try ToolRun(path, ["-f", "1", "-l", "\(pages)", file.path])
        try #require(run.status == 0, "pdfinfo failed on \(file.path)")
        return run.text
    }

    /// 20 pages, written one at a time straight to the file, are all there,
    /// each at its own size; and writing them peaks no higher than writing
    /// 2 (pages held until the end would add about a megabyte each).
    @Test func memoryDoesNotGrowWithThePages() throws {
        if let pages = ProcessInfo.processInfo.environment[Self.childPages].flatMap(Int.init),
           let output = ProcessInfo.processInfo.environment[Self.childOutput] {
            // The child: write, say the peak, and leave before anything else runs.
            try Self.write(pages: pages, to: URL(fileURLWithPath: output))
            print("page-document-peak \(try Self.peakKiB())")
            fflush(nil)  // every stream: standard output, without naming the C global
            exit(0)
        }
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let two = try Self.peak(pages: 2, file: folder.appendingPathComponent("two.pdf"))
        let twenty = try Self.peak(pages: 20, file: folder.appendingPathComponent("twenty.pdf"))
        let info = try Self.pdfinfo(folder.appendingPathComponent("twenty.pdf"), pages: 20)
        #expect(info.contains("Pages:           20"), "\(info)")
        #expect(info.contains("Title:           A book"))
        #expect(info.contains("Page    1 size:  595.2 x 841.8 pts"), "\(info)")
        #expect(info.contains("Page    2 size:  841.8 x 595.2 pts"), "\(info)")
        #expect(info.contains("Page   20 size:  841.8 x 595.2 pts"), "\(info)")
        let written = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("twenty.pdf").path)[.size] as? Int ?? 0
        #expect(written > 18 * 1_000_000, "20 pages of noise: \(written) bytes")
        // 18 more pages, about 18 MB of JPEGs: none of it kept.
        #expect(twenty - two < 6 * 1024, "2 pages peaked at \(two) KiB, 20 at \(twenty) KiB")
    }

    /// Each page's bytes go out as the page is added, not at the close.
    @Test func eachPageIsWrittenOutWhenAdded() throws {
        var written: [Int] = []
        var total = 0
        let document = try PageDocument(options: Self.options, title: nil) { bytes in
            total += bytes.count
            return true
        }
        for index in 0..<3 {
            try document.add(try Self.page(index))
            written.append(total)
        }
        try document.close()
        // Each page's JPEG (about a megabyte of noise) is out when add returns.
        #expect(written[0] > 900_000 && written[1] - written[0] > 900_000 && written[2] - written[1] > 900_000, "\(written)")
        #expect(total - written[2] < 200_000, "the close wrote \(total - written[2]) bytes")
    }

    /// What the views know of a format written comes from the writers'
    /// table: PDF is its page writer, written and never read, with the
    /// options it reads (the --quality warning for PNG asks `reads`).
    @Test func theWritersTableSaysWhatEachWriterIs() {
        #expect(ImageFormat.writable.map(\.saveTitle) == ["JPEG", "PNG", "AVIF", "WebP", "PDF"])
        #expect(ImageFormat.writable.filter(\.isPage) == [.pdf] && ImageFormat.pdf.saveExtensions == ["pdf"])
        #expect(!ImageFormat.all.contains(.pdf) && ImageFormat.all.allSatisfy { !$0.isPage })
        #expect(ImageFormat.pdf.reads == [.quality, .resolution] && ImageFormat.jpeg.reads == [.quality, .resolution])
        #expect(ImageFormat.png.reads == [.resolution] && !ImageFormat.png.hasQuality)
    }

    /// A sink that refuses the bytes fails the page, and the document stays refused.
    @Test func aFailedWriteFailsThePage() throws {
        let document = try PageDocument(options: Self.options, title: nil) { _ in false }
        #expect(throws: ImageEngineError.self) { try document.add(try Self.page(0)) }
        #expect(throws: ImageEngineError.self) { try document.add(try Self.page(1)) }
        #expect(throws: ImageEngineError.self) { try document.close() }
    }
}
