import CollageImaging
import CollageTestSupport
import Foundation
import Testing
@testable import CollageKit

/// TIFF and camera RAW (issue #22), end to end: added, listed, saved and
/// refused by the `collage` binary like any photo, known by their bytes,
/// listed in the help from the engine's table.
@Suite struct TIFFAndRAWTests {
    static let fixtures = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/formats")
    static let tiff = fixtures.appendingPathComponent("tiff/rgb8-lzw.tif").path
    static let dng = fixtures.appendingPathComponent("dng/bayer-rggb.dng").path

    @Test func aTIFFAndADNGAreAddedAndSaved() throws {
        let cli = try CLI()
        let added = try cli.run("add", Self.tiff, Self.dng)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try cli.status()["photos"] as? [String] == [Self.tiff, Self.dng])
        let saved = try cli.run("save", "-o", "out.png", "--size", "192x64")
        #expect(saved.status == 0, "\(saved.stderr)")
        let target = cli.workingDirectory.appendingPathComponent("out.png").path
        let image = try DecodedImage(target)
        #expect(image.width == 192 && image.height == 64)
        // Both cells show the same photo (the DNG is a mosaic of the TIFF's
        // pixels): the halves agree to a few levels on average.
        var total = 0
        for y in 0..<64 { for x in 0..<96 { for c in 0..<3 {
            total += abs(Int(image.rgb[(y * 192 + x) * 3 + c]) - Int(image.rgb[(y * 192 + x + 96) * 3 + c]))
        } } }
        let mean = Double(total) / Double(96 * 64 * 3)
        #expect(mean < 12, "the DNG's cell differs from the TIFF's by \(mean) on average")
    }

    @Test func aDNGNamedLikeATIFFIsStillARAW() throws {
        let cli = try CLI()
        let renamed = cli.workingDirectory.appendingPathComponent("scan.tif")
        try FileManager.default.copyItem(atPath: Self.dng, toPath: renamed.path)
        #expect(try cli.run("add", renamed.path).status == 0)
        var info = ci_photo_info()
        var error = ci_error()
        #expect(ci_probe_file(renamed.path, &info, &error) == CI_OK)
        #expect(info.format == CI_FORMAT_RAW)
    }

    @Test func aHugeHeaderAndACutFileAreRefusedAtAdd() throws {
        let cli = try CLI()
        let huge = Self.fixtures.appendingPathComponent("tiff/huge-header.tif").path
        let refused = try cli.run("add", huge)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("huge-header.tif") && refused.stderr.contains("over the limit"), "\(refused.stderr)")
        let cut = cli.workingDirectory.appendingPathComponent("cut.tif")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.tiff))
        try bytes.prefix(bytes.count / 2).write(to: cut)
        let cutOutput = try cli.run("add", cut.path)
        #expect(cutOutput.status != 0 && cutOutput.stderr.contains(cut.path), "\(cutOutput.stderr)")
        #expect(try cli.count() == 0)
    }

    /// Issue #32: `add` recorded these and `save` then refused them.
    @Test func whatSaveWouldRefuseIsRefusedAtAddAndWhatOthersOpenIsSaved() throws {
        let cli = try CLI()
        for name in ["cmyk16", "cmyk16-jpeg", "empty-strip"] {
            let path = Self.fixtures.appendingPathComponent("tiff/\(name).tif").path
            let refused = try cli.run("add", path)
            #expect(refused.status == 1 && refused.stderr.hasPrefix("collage: \(path): ")
                    && refused.stderr.filter { $0 == "\n" }.count == 1, "\(refused.stderr)")
        }
        #expect(try cli.count() == 0)
        let opened = ["tiff/palette2.tif", "tiff/lab8.tif", "gif/no-colour-table.gif", "gif/short-frame.gif"]
            .map { Self.fixtures.appendingPathComponent($0).path }
        let added = try cli.run(["add"] + opened)
        #expect(added.status == 0, "\(added.stderr)")
        let saved = try cli.run("save", "-o", "out.png", "--size", "192x128")
        // Drawn, and the GIF cut short said (issue #32: nothing silent), nothing else.
        #expect(saved.status == 0 && saved.stderr == "collage: warning: \(opened[3]): cut short: the top 46% of it could be drawn (the rest is empty)\n",
                "\(saved.stderr)")
    }

    @Test func theHelpAndTheBrowserKnowThem() throws {
        let cli = try CLI()
        let help = try cli.run("add", "--help")
        #expect(help.stdout.contains("TIFF") && help.stdout.contains("camera RAW"), "\(help.stdout)")
        let folder = try temporaryDirectory()
        try FileManager.default.copyItem(atPath: Self.tiff, toPath: folder.appendingPathComponent("a.tif").path)
        try FileManager.default.copyItem(atPath: Self.dng, toPath: folder.appendingPathComponent("b.dng").path)
        let browser = FileSystemBrowser()
        #expect(browser.isPhoto(Photo(path: folder.appendingPathComponent("a.tif").path)))
        #expect(browser.isPhoto(Photo(path: folder.appendingPathComponent("b.dng").path)))
        #expect(ImageFormat.all.contains { $0.name == "TIFF" && $0.extensions == ["tif", "tiff"] })
        #expect(ImageFormat.all.contains { $0.name == "camera RAW" && $0.extensions.contains("cr3") })
    }
}
