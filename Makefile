# Quick start: `make demo` composes a collage of SampleImages/, `make test`
# runs every test. Both first install missing Debian packages.
SWIFT ?= swift

.PHONY: all deps build demo test clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release --product collage

demo: build
	@scripts/demo.sh

test: deps
	$(SWIFT) test

clean:
	rm -rf .build demo-output
