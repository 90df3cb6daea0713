# Quick start: `make demo` composes a collage of SampleImages/ (and two photo books), `make test`
# runs every test. Both first install missing Debian packages.
SWIFT ?= swift

.PHONY: all deps build demo test clean

all: build

deps:
	@scripts/install-deps.sh

# Linked against the Swift runtime statically: it starts in half the time
# (3.7 instead of 7.8 ms) and peaks 5 MiB lower on W6, and it is the binary
# `make bench` measures (docs/performance.md); see scripts/build-release.sh.
build: deps
	SWIFT=$(SWIFT) scripts/build-release.sh

demo: build
	@scripts/demo.sh

# The text tests also draw Japanese, Arabic and emoji: their Noto fonts.
test:
	@scripts/install-deps.sh --test-fonts
	SWIFT=$(SWIFT) scripts/test.sh

# Reliability (docs/reliability.md): libFuzzer harnesses in Fuzz/, each run for
# FUZZ_SECONDS; the test suite under ASan + LSan + UBSan in .build/sanitized.
FUZZ_SECONDS ?= 60

.PHONY: fuzz test-sanitized

fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh all

test-sanitized: deps
	scripts/test-sanitized.sh

# Performance (docs/performance.md): collage against vips, ImageMagick and
# Pillow on the W6 and Batch workloads; builds release, installs the other
# tools from Debian, makes the photos, prints medians. Not part of `make test`.
.PHONY: bench

bench:
	SWIFT=$(SWIFT) scripts/bench/bench.sh

# Install: the release binary, its manual page (generated from the command
# definitions) and bash, zsh and fish completions, under $(DESTDIR)$(PREFIX).
# BINARY=path installs that binary instead of building one.
PREFIX ?= /usr/local
.PHONY: install uninstall

install: $(if $(BINARY),,build)
	SWIFT=$(SWIFT) scripts/install.sh install "$(DESTDIR)$(PREFIX)" "$(or $(BINARY),$$(scripts/build-release.sh --show-bin-path)/collage)"

uninstall:
	scripts/install.sh uninstall "$(DESTDIR)$(PREFIX)"

clean:
	rm -rf .build demo-output
