#!/usr/bin/env bash
# Installs or removes collage: the binary, its manual page and its bash, zsh
# and fish completions, in the standard places under a prefix.
#
#   scripts/install.sh install ROOT BINARY    # ROOT = $(DESTDIR)$(PREFIX)
#   scripts/install.sh uninstall ROOT
#
# The manual page is generated from the command definitions by
# swift-argument-parser's generate-manual tool (built once, in .build/tools),
# and the completions by the binary itself, so neither can drift from
# --help. uninstall removes exactly the files install puts there.
set -euo pipefail
cd "$(dirname "$0")/.."

files=(bin/collage share/man/man1/collage.1 share/bash-completion/completions/collage
       share/zsh/site-functions/_collage share/fish/vendor_completions.d/collage.fish)

action=${1:-}
root=${2:-}
[ -n "$root" ] || { echo "usage: scripts/install.sh install|uninstall ROOT [BINARY]" >&2; exit 64; }

case "$action" in
install)
  binary=${3:-}
  [ -x "$binary" ] || { echo "install: no collage binary at '$binary' (run make build)" >&2; exit 1; }
  swift=${SWIFT:-swift}
  tools=.build/tools
  if [ ! -x "$tools/release/generate-manual" ]; then
    echo "install: building generate-manual (swift-argument-parser's, once)..." >&2
    "$swift" build -c release --product generate-manual --build-path "$tools" >&2
  fi
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  "$tools/release/generate-manual" "$binary" --output-directory "$work" 2>/dev/null
  # generate-manual leaves out the defaults --help shows (added from the
  # binary's own description of its options), keeps blank lines groff warns
  # of and heads the page "BSD": scripts/man-page.py finishes it.
  if command -v python3 >/dev/null 2>&1; then
    "$binary" --experimental-dump-help > "$work/options.json"
    version=$("$binary" --version | cut -d' ' -f1)
    python3 scripts/man-page.py "$work/collage.1" "$work/options.json" "$version"
  else
    echo "install: python3 is missing, so the manual page does not say the options' defaults (and man warns of its blank lines)" >&2
  fi
  install -D -m 0755 "$binary" "$root/bin/collage"
  install -D -m 0644 "$work/collage.1" "$root/share/man/man1/collage.1"
  "$binary" --generate-completion-script bash > "$work/bash"
  "$binary" --generate-completion-script zsh > "$work/zsh"
  "$binary" --generate-completion-script fish > "$work/fish"
  install -D -m 0644 "$work/bash" "$root/share/bash-completion/completions/collage"
  install -D -m 0644 "$work/zsh" "$root/share/zsh/site-functions/_collage"
  install -D -m 0644 "$work/fish" "$root/share/fish/vendor_completions.d/collage.fish"
  echo "Installed collage in $root" >&2
  ;;
uninstall)
  for file in "${files[@]}"; do
    rm -f "$root/$file"
    # The folders install made, once empty (never ROOT itself or above).
    folder=$(dirname "$file")
    while [ "$folder" != . ] && rmdir "$root/$folder" 2>/dev/null; do folder=$(dirname "$folder"); done
  done
  echo "Removed collage from $root" >&2
  ;;
*)
  echo "usage: scripts/install.sh install|uninstall ROOT [BINARY]" >&2
  exit 64
  ;;
esac
