#!/usr/bin/env python3
"""Key-to-frame latency of `collage pick` in a folder of 10,000 photos.

    scripts/bench/keys.py COLLAGE PHOTO WORKDIR [KEYS]

Makes WORKDIR/tenthousand/ with 10,000 hard links to PHOTO (a 12-megapixel
bench photo: every highlighted photo's preview is a real shrink-on-load
decode), runs the real binary in a pseudo-terminal of 100 x 30 cells, and
presses Down (j) KEYS times (default 400), one every 40 ms: faster than key
repeat, so previews are always loading and are cancelled as the highlight
moves on. A key is answered when the frame that shows its result has been
written: the list's counter "N/10000" with the new position. Prints the
median, 95th and 99th percentile and the worst, in milliseconds.
"""
import fcntl
import os
import pty
import re
import select
import struct
import sys
import tempfile
import termios
import time


def make_folder(photo, workdir, count=10_000):
    folder = os.path.join(workdir, "tenthousand")
    os.makedirs(folder, exist_ok=True)
    for index in range(count):
        name = os.path.join(folder, f"photo-{index:05d}.jpg")
        if not os.path.exists(name):
            os.link(photo, name)
    return folder


def main():
    collage, photo, workdir = sys.argv[1:4]
    keys = int(sys.argv[4]) if len(sys.argv) > 4 else 400
    folder = make_folder(photo, workdir)
    state = tempfile.mkdtemp(prefix="keys-state-")
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["XDG_STATE_HOME"] = state
        os.environ["TERM"] = "xterm-256color"
        os.execv(collage, [collage, "pick", folder])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))

    output = bytearray()

    def read_for(seconds):
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                try:
                    output.extend(os.read(fd, 1 << 16))
                except OSError:
                    return

    def wait_for(pattern, seconds):
        """Reads until `pattern` appears in what arrived since `start`; returns when, or None."""
        start = len(output)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if re.search(pattern, output[start:]):
                return time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if ready:
                try:
                    output.extend(os.read(fd, 1 << 16))
                except OSError:
                    return None
        return None

    # The list, complete: "1/10000".
    if wait_for(rb"(?<![0-9])1/10000", 30) is None:
        sys.exit("keys: the photos screen never listed 10,000 photos")
    read_for(0.5)
    latencies = []
    for index in range(keys):
        position = index + 2
        sent = time.monotonic()
        os.write(fd, b"j")
        answered = wait_for(rb"(?<![0-9])%d/10000" % position, 2.0)
        latencies.append(((answered or time.monotonic()) - sent) * 1000 if answered else 2000.0)
        pause = 0.040 - (time.monotonic() - sent)
        if pause > 0:
            read_for(pause)
    os.write(fd, b"q")
    read_for(0.3)
    os.write(fd, b"q")
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass

    latencies.sort()
    def percentile(p):
        return latencies[min(len(latencies) - 1, int(round(p / 100 * (len(latencies) - 1))))]
    missed = sum(1 for value in latencies if value >= 2000)
    print(f"keys: {keys} Down keys, one every 40 ms, in a folder of 10,000 12-megapixel photos (100 x 30 cells)")
    print(f"keys: key to frame median {percentile(50):.1f} ms, p95 {percentile(95):.1f} ms, "
          f"p99 {percentile(99):.1f} ms, worst {latencies[-1]:.1f} ms, unanswered {missed}")


if __name__ == "__main__":
    main()
