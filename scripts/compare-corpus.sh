#!/usr/bin/env bash
# Compares two builds of openapi-mcp on every document of a folder (the shared corpus by default):
# `convert` with the default options, with --inline-refs, with --format json-pretty and with
# --format yaml: output bytes and exit code.
# A tool for reworks that must not change output; not a CI step.
#
#   scripts/compare-corpus.sh REFERENCE_BINARY [NEW_BINARY] [CORPUS_DIR]
#
# NEW_BINARY defaults to target/release/openapi-mcp, CORPUS_DIR to ../shared/corpus/fetch's folder.
# NEW_ARGS (environment) adds options to the new binary's runs only, e.g.
# `NEW_ARGS="--suggest method"` to check that the old suggestions are reproduced.
# The reference's outputs are cached by its checksum under target/compare-corpus/, so comparing
# another build against the same reference runs only the new one. Prints each document that
# differs (with the options) and a count; exits 1 if any differs.
set -euo pipefail
ref=${1:?usage: compare-corpus.sh REFERENCE_BINARY [NEW_BINARY] [CORPUS_DIR]}
new=${2:-target/release/openapi-mcp}
corpus=${3:-$(../shared/corpus/fetch)}
cache="target/compare-corpus/$(sha256sum "$ref" | cut -c1-16)"
mkdir -p "$cache"
digest() { # binary, options..., file -> "exit sha"
  local bin=$1; shift
  local out rc=0
  out=$("$bin" convert "$@" 2>/dev/null | sha256sum | cut -c1-64) || rc=$?
  # pipefail: rc is the converter's exit code when it failed
  echo "$rc $out"
}
export -f digest
list=$(cd "$corpus" && find . -name '*.json' -o -name '*.yaml' | sort)
n=0; differ=0
for variant in default inline json-pretty yaml; do
  case $variant in
    default) opts=() ;;
    inline) opts=(--inline-refs) ;;
    *) opts=(--format "$variant") ;;
  esac
  refsums="$cache/$variant.txt"
  if [[ ! -s $refsums ]]; then
    while read -r f; do
      echo "$(digest "$ref" "${opts[@]}" "$corpus/$f") $f"
    done <<<"$list" >"$refsums.tmp"
    mv "$refsums.tmp" "$refsums"
  fi
  while read -r rc sum f; do
    n=$((n + 1))
    got=$(digest "$new" "${opts[@]}" ${NEW_ARGS:-} "$corpus/$f")
    if [[ "$got" != "$rc $sum" ]]; then
      differ=$((differ + 1))
      echo "differs ($variant): $f"
    fi
  done <"$refsums"
done
echo "compared $n conversions: $differ differ"
[[ $differ -eq 0 ]]
