import Foundation
import Testing
import CollageTestSupport
@testable import CollageKit

@Suite struct PhotoWriterTests {
    struct BytesEncoder: ImageEncoding {
        var bytes: [UInt8]
        func encode(_ image: RGBImage, as format: ImageFormat, options: SaveOptions) throws -> [UInt8] { bytes }
        func encode(_ page: CollagePage, options: SaveOptions) throws -> [UInt8] { bytes }
    }

    let image = CollageOutput.image(RGBImage(width: 2, height: 2, filledWith: .white))

    @Test func writesTheFileAndNothingElse() throws {
        let directory = try temporaryDirectory()
        let target = directory.appendingPathComponent("out.jpg")
        let writer = PhotoWriter(encoder: BytesEncoder(bytes: [1, 2, 3]))
        try writer.save(image, to: target, format: .jpeg, options: .defaults, overwrite: false).waitForCompletion().get()
        #expect(try Data(contentsOf: target) == Data([1, 2, 3]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.jpg"])
    }

    @Test func neverReplacesAFileWithoutOverwrite() throws {
        let directory = try temporaryDirectory()
        let target = directory.appendingPathComponent("out.png")
        try Data([9]).write(to: target)
        let writer = PhotoWriter(encoder: BytesEncoder(bytes: [1, 2, 3]))
        let result = writer.save(image, to: target, format: .png, options: .defaults, overwrite: false).waitForCompletion()
        #expect(throws: FileWriteError.exists(path: target.path)) { try result.get() }
        #expect(try Data(contentsOf: target) == Data([9]))
        try writer.save(image, to: target, format: .png, options: .defaults, overwrite: true).waitForCompletion().get()
        #expect(try Data(contentsOf: target) == Data([1, 2, 3]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.png"])
    }

    @Test func aMissingFolderIsAClearError() throws {
        let target = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/out.jpg")
        let result = PhotoWriter(encoder: BytesEncoder(bytes: [1])).save(image, to: target, format: .jpeg, options: .defaults, overwrite: false)
            .waitForCompletion()
        #expect(throws: FileWriteError.io(path: target.path, reason: "No such file or directory")) { try result.get() }
    }

    @Test func filesHonourTheUmask() throws {
        let directory = try temporaryDirectory()
        let target = directory.appendingPathComponent("out.jpg")
        try PhotoWriter(encoder: BytesEncoder(bytes: [1])).save(image, to: target, format: .jpeg, options: .defaults, overwrite: false)
            .waitForCompletion().get()
        let mode = try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int ?? 0
        #expect(mode & 0o002 == 0, "never world-writable")
        #expect(mode & 0o600 == 0o600)
    }
}
