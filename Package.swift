// swift-tools-version:6.0
import PackageDescription
import Foundation

/// Pango's include paths for the one target that imports its headers
/// (CollageImagingTests, checking text_api.h). Asked of pkg-config here
/// rather than through `pkgConfig:` because pangocairo's .pc chain (through
/// gio-2.0) adds `-pthread`, a flag SwiftPM refuses with a warning on every
/// build (issue #42); only the -I paths are needed to read the headers.
/// Empty when pkg-config or Pango is missing: the tests' build then names the
/// missing header, and `make test` installs libpango1.0-dev first.
func pangoIncludePaths() -> [String] {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["pkg-config", "--cflags-only-I", "pangocairo"]
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return [] }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return [] }
    return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
}

// Every dependency is pinned to an exact version: the machines that build this
// project (developers' and CI's) carry exactly these copies and no others.
let package = Package(
    name: "collage",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "collage", targets: ["collage"]),
        .library(name: "CollageKit", targets: ["CollageKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
    ],
    targets: [
        // System libraries from Debian (libjpeg-dev, libpng-dev, libexif-dev), found by pkg-config;
        // their shims (a module map and a header each) are in Sources/SystemLibraries.
        .systemLibrary(
            name: "CJPEG", path: "Sources/SystemLibraries/CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(
            name: "CPNG", path: "Sources/SystemLibraries/CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CEXIF", path: "Sources/SystemLibraries/CEXIF", pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"])]),
        // HEIC, HEIF and AVIF: libheif (with libde265 and dav1d/aom) and
        // libde265 itself are not linked but loaded on the first HEIF
        // (heif_api.c: linked, their start-up cost every command 3 to 8 ms);
        // only their headers are needed to build (libheif-dev, libde265-dev,
        // checked by scripts/install-deps.sh with pkg-config).
        // Colour management: embedded profiles and nclx to sRGB (liblcms2-dev).
        .systemLibrary(
            name: "CLCMS2", path: "Sources/SystemLibraries/CLCMS2", pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"])]),
        // WebP in and out (libwebp-dev: libwebp, libwebpdemux).
        .systemLibrary(
            name: "CWEBP", path: "Sources/SystemLibraries/CWEBP", pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"])]),
        // GIF in (libgif-dev) and JPEG XL in (libjxl-dev; its decoder only,
        // one thread a photo: the engine already draws photos in parallel).
        .systemLibrary(
            name: "CGIF", path: "Sources/SystemLibraries/CGIF", pkgConfig: "libgif",
            providers: [.apt(["libgif-dev"])]),
        // No pkgConfig for libjxl: its .pc file's -DHWY_SHARED_DEFINE and
        // -pthread are flags SwiftPM prohibits (a warning on every build);
        // its header and library are on the default paths. CollageImaging
        // reads its header only and loads it on first use (jxl_api.c: its
        // libhwy costs every process 2.7 ms at start-up); the tests link it.
        .systemLibrary(
            name: "CJXL", path: "Sources/SystemLibraries/CJXL",
            providers: [.apt(["libjxl-dev"])]),
        // WebP's container chunks (the colour profile and date a saved collage carries).
        .systemLibrary(
            name: "CWEBPMux", path: "Sources/SystemLibraries/CWEBPMux", pkgConfig: "libwebpmux",
            providers: [.apt(["libwebp-dev"])]),
        // TIFF in (libtiff-dev: libtiff 4.5, for its per-handle error handlers).
        .systemLibrary(
            name: "CTIFF", path: "Sources/SystemLibraries/CTIFF", pkgConfig: "libtiff-4",
            providers: [.apt(["libtiff-dev"])]),
        // Camera RAW in (libraw-dev): libraw_r, the thread-safe build, C++
        // underneath (its module map links libstdc++ and OpenMP's runtime).
        // No pkgConfig: libraw_r.pc's only compiler flag, -fopenmp, is one
        // SwiftPM refuses with a warning on every build (issue #42), and its
        // -I is not needed (shim.h includes <libraw/libraw.h>, whose headers
        // include each other from their own folder); the module map links
        // what its Libs name (lcms2 comes with CLCMS2).
        .systemLibrary(
            name: "CRaw", path: "Sources/SystemLibraries/CRaw",
            providers: [.apt(["libraw-dev"])]),
        // Text (titles): Pango over Cairo, with HarfBuzz shaping and
        // fontconfig's font fallback (libpango1.0-dev, libcairo2-dev). Not
        // linked into collage: text_api.c loads them on the first text. The
        // tests use the headers to check text_api.h's declarations. No
        // pkgConfig: see pangoIncludePaths() above.
        .systemLibrary(
            name: "CPangoCairo", path: "Sources/SystemLibraries/CPangoCairo",
            providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        // fontconfig itself, asked whether any font is installed at all.
        .systemLibrary(
            name: "CFontconfig", path: "Sources/SystemLibraries/CFontconfig", pkgConfig: "fontconfig",
            providers: [.apt(["libfontconfig-dev"])]),
        // libchafa draws pictures in terminals (its .pc file needs libglib2.0-dev).
        .systemLibrary(
            name: "CChafa", path: "Sources/SystemLibraries/CChafa", pkgConfig: "chafa",
            providers: [.apt(["libchafa-dev", "libglib2.0-dev"])]),

        // The measures cache of `collage suggest` and `book` (libsqlite3-dev):
        // one row a photo, written as photos are measured, by concurrent runs
        // alike (MeasuresCache).
        .systemLibrary(
            name: "CSQLite", path: "Sources/SystemLibraries/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),

        // Faces, for placing crops: dlib's HOG face detector behind a C
        // interface. Only dlib's headers are needed (libdlib-dev; its model
        // is compiled in, see scripts/faces/make-model.sh), no library.
        // Faces in profile and small faces: two of OpenCV's cascades,
        // compiled in too (see scripts/faces/make-cascade-models.py) and
        // evaluated by cascades.cpp; OpenCV itself is not linked.
        .target(
            name: "CollageFaces",
            exclude: [
                "frontal_face_model.inc", "frontal_face_separable.inc", "LICENSE-dlib-model.txt",
                "profile_face_model.inc", "LICENSE-opencv-profile-model.txt",
                "small_face_model.inc", "LICENSE-opencv-small-face-model.txt",
            ],
            cxxSettings: [.unsafeFlags(["-O2", "-Wno-deprecated-declarations"])]),

        // Where photos were taken, offline: the nearest populated place to a
        // GPS position, from GeoNames' places (CC BY 4.0) in a table the binary
        // carries (places.bin, embedded by places.c; scripts/places/make-places.py).
        .target(
            name: "CollagePlaces",
            exclude: ["places.bin", "LICENSE-geonames.txt"],
            cSettings: [.unsafeFlags(["-O2", "-Wall", "-Wextra"])]),

        // The pixel work: decode (with shrink-on-load), orient, scale, tile, encode.
        .target(
            name: "CollageImaging",
            dependencies: ["CJPEG", "CPNG", "CEXIF", "CLCMS2", "CWEBP", "CWEBPMux", "CTIFF", "CRaw", "CGIF", "CJXL", "CollageFaces"],
            cSettings: [.unsafeFlags(["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"])],
            // libraw_r and what it is built on, as its .pc file's Libs name
            // them (CRaw has no pkgConfig: see there).
            linkerSettings: [.linkedLibrary("raw_r"), .linkedLibrary("stdc++"),
                             .linkedLibrary("gomp")]),

        // The few Linux file calls Swift does not import (O_TMPFILE, linkat).
        .target(name: "CollageSystem"),

        // Models, view models and services: everything but the views.
        .target(
            name: "CollageKit",
            dependencies: [
                "CollageImaging",
                "CollagePlaces",
                "CollageSystem",
                "CSQLite",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
                .product(name: "OpenCombineDispatch", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ]),

        // The terminal views: raw terminal I/O, keys, screen frames, pictures
        // through libchafa, and the two screens of `collage pick`.
        .target(
            name: "CollageTerminal",
            dependencies: ["CollageKit", "CChafa"]),

        // The views: command-line commands.
        .executableTarget(
            name: "collage",
            dependencies: [
                "CollageKit",
                "CollageTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // What more than one test target uses: fakes of the services and of
        // the terminal, and generators of hostile files.
        .target(
            name: "CollageTestSupport",
            dependencies: [
                "CollageKit", "CollageTerminal",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            path: "Tests/CollageTestSupport"),

        // Unit tests, by layer: no binary is run.
        // lcms2 makes the tagged test photos (ColourTests), libjxl's encoder
        // the oriented JPEG XL ones (JPEGXLTests): the engine's reading of
        // them is what is checked. CollageFaces' searches are tested directly
        // (ProfileFaceTests).
        .testTarget(
            name: "CollageImagingTests",
            dependencies: ["CollageImaging", "CollageFaces", "CollageTestSupport", "CLCMS2", "CPangoCairo", "CFontconfig", "CJXL"],
            swiftSettings: [.unsafeFlags(pangoIncludePaths().flatMap { ["-Xcc", $0] })]),
        .testTarget(
            name: "CollageTerminalTests",
            dependencies: [
                "CollageTerminal", "CollageKit", "CollageTestSupport",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ]),
        .testTarget(
            name: "CollageKitTests",
            dependencies: [
                "CollageKit", "CollageTestSupport",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ]),
        // End to end: the built `collage` binary, run in a temporary
        // XDG_STATE_HOME (and in tmux for the full-screen screens).
        .testTarget(
            name: "CollageEndToEndTests",
            dependencies: ["collage", "CollageKit", "CollageImaging", "CollageTestSupport"]),
    ],
    // Every target, so the compiler checks data races everywhere (issue
    // #42): the screens' view models, the coordinator, the terminal and its
    // views are on the main actor, and what their queues find comes back
    // through `deliverOnMain`.
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx14
)
