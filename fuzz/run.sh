#!/usr/bin/env bash
# Runs a fuzz target for a given time: fuzz/run.sh TARGET SECONDS, or fuzz/run.sh all SECONDS
# (each target SECONDS in turn). TARGET: prepare_module, link_program, evaluate (cargo fuzz,
# nightly, AddressSanitizer, debug assertions), stored_instance (cargo fuzz: damaged stored
# component instances; its seeds are written by the target itself), or boundary (atheris,
# fuzz/boundary.py).
#
# Seeds come from the conformance corpus (fuzz/seed.py) when a target's corpus is empty; the
# kept crashing inputs (rust/nx-ir-core/tests/regressions/TARGET) are replayed first. A crash,
# panic, timeout (10 s), out-of-memory (2 GiB) or sanitizer report stops the run with its input
# under fuzz/artifacts/TARGET and a non-zero exit. Extra libFuzzer flags go in FUZZ_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    echo "usage: fuzz/run.sh {prepare_module|link_program|evaluate|stored_instance|boundary|all} SECONDS" >&2
    exit 2
}
[[ $# -eq 2 && $2 =~ ^[0-9]+$ ]] || usage
target=$1
seconds=$2
common=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
read -r -a extra <<<"${FUZZ_FLAGS:-}"

seed() {
    local name=$1
    if [[ $name == stored_instance ]]; then
        # The target writes its own seeds (instances of the programs it restores into).
        mkdir -p "fuzz/corpus/$name"
        if [[ -z "$(ls -A "fuzz/corpus/$name")" ]]; then
            # One run of nothing, so the seeds are there when the corpus folder is read.
            (cd fuzz && NX_FUZZ_SEEDS="$PWD/corpus/$name" cargo +nightly fuzz run "$name" -- -runs=0 >/dev/null 2>&1) || true
        fi
        return
    fi
    if [[ -z "$(ls -A "fuzz/corpus/$name" 2>/dev/null)" ]]; then
        python3 fuzz/seed.py fuzz/corpus >&2 || echo "no seeds: fuzzing $name from an empty corpus" >&2
    fi
    # Without the conformance corpus a target may get no seed at all: libFuzzer still needs the folder.
    mkdir -p "fuzz/corpus/$name"
}

cargo_target() {
    local name=$1
    if ! cargo +nightly --version >/dev/null 2>&1; then
        echo "== installing the nightly toolchain ==" >&2
        rustup toolchain install nightly --profile minimal
    fi
    if ! command -v cargo-fuzz >/dev/null; then
        echo "== installing cargo-fuzz ==" >&2
        cargo install --quiet --locked cargo-fuzz
    fi
    seed "$name"
    local dirs=("fuzz/corpus/$name")
    [[ -d "rust/nx-ir-core/tests/regressions/$name" ]] && dirs+=("rust/nx-ir-core/tests/regressions/$name")
    mkdir -p "fuzz/artifacts/$name"
    local own=()
    # Evaluation inputs stay small (fuzz/seed.py leaves the large-catalog program out).
    [[ $name == evaluate ]] && own=(-max_len=32768)
    echo "== $name for ${seconds}s ==" >&2
    (cd fuzz && cargo +nightly fuzz run "$name" "${dirs[@]/#/../}" -- "${common[@]}" "${own[@]}" "${extra[@]}")
}

boundary() {
    if ! python3 -c "import atheris" 2>/dev/null; then
        echo "== installing atheris ==" >&2
        python3 -m pip install --quiet atheris
    fi
    mkdir -p fuzz/corpus/boundary fuzz/artifacts/boundary
    echo "== boundary for ${seconds}s ==" >&2
    # Python coverage is thin, so inputs would stay a few bytes long: let them be long at once.
    python3 fuzz/boundary.py fuzz/corpus/boundary -artifact_prefix=fuzz/artifacts/boundary/ \
        "${common[@]}" -max_len=4096 -len_control=0 "${extra[@]}"
}

run() {
    case $1 in
        prepare_module | link_program | evaluate | stored_instance) cargo_target "$1" ;;
        boundary) boundary ;;
        *) usage ;;
    esac
}

if [[ $target == all ]]; then
    for name in prepare_module link_program evaluate stored_instance boundary; do
        run "$name"
    done
else
    run "$target"
fi
