import CollageKit

/// Each printed cell's colour: the background for a space, else the
/// foreground (in a uniform area libchafa gives both the same colour),
/// the other way round in reverse video (SGR 7, which libchafa uses). For
/// libchafa's output and for tmux's `capture-pane -e`.
///
/// With `width`, a line that ends early is filled to it with the background
/// in force at its end: what the terminal shows after an erase to the end of
/// the line, whose cells tmux's capture-pane may leave out.
public func cellColours(_ line: String, width: Int? = nil) -> [RGBColor] {
    var colours: [RGBColor] = []
    let black = RGBColor(red: 0, green: 0, blue: 0)
    var foreground = black, background = black
    var inverse = false
    var scalars = Array(line.unicodeScalars)[...]
    while let scalar = scalars.first {
        if scalar == "\u{1B}" {
            let end = scalars.firstIndex { (0x40...0x7E).contains($0.value) && $0 != "[" } ?? scalars.endIndex
            let body = String(String.UnicodeScalarView(scalars[scalars.index(after: scalars.startIndex)..<end]))
            let numbers = body.dropFirst().split(separator: ";").compactMap { Int($0) }
            var at = 0
            while at < numbers.count {
                if numbers[at] == 38 || numbers[at] == 48, at + 4 < numbers.count, numbers[at + 1] == 2 {
                    let colour = RGBColor(red: UInt8(numbers[at + 2]), green: UInt8(numbers[at + 3]), blue: UInt8(numbers[at + 4]))
                    if numbers[at] == 38 { foreground = colour } else { background = colour }
                    at += 5
                } else {
                    // Defaults (reset, 39, 49) read as black, the usual terminal background.
                    switch numbers[at] {
                    case 0: inverse = false; foreground = black; background = black
                    case 7: inverse = true
                    case 27: inverse = false
                    case 39: foreground = black
                    case 49: background = black
                    default: break
                    }
                    at += 1
                }
            }
            scalars = scalars[min(scalars.endIndex, scalars.index(after: end))...]
        } else {
            colours.append((scalar == " ") != inverse ? background : foreground)
            scalars = scalars.dropFirst()
        }
    }
    if let width, colours.count < width {
        colours += Array(repeating: inverse ? foreground : background, count: width - colours.count)
    }
    return colours
}
