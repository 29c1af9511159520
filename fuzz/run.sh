#!/usr/bin/env bash
# Runs a fuzz target for a given time: fuzz/run.sh TARGET SECONDS, or fuzz/run.sh all SECONDS
# (each target SECONDS in turn). TARGET: prepare_module, link_program, evaluate (cargo fuzz,
# nightly, AddressSanitizer, debug assertions), work_bound (cargo fuzz: the evaluate target's
# inputs, and components of their entry initialized and dispatched, with the children their
# outputs render started under them, asserting only that the evaluator's work stays within a
# fixed multiple of the operations charged plus the input size and free copies; seeded from the
# evaluate corpus), stored_instance
# (cargo fuzz: damaged stored component instances; its seeds are written by the target itself),
# assemble (cargo fuzz: explain texts, seeded with the corpus's and the repository's own),
# boundary (atheris, fuzz/boundary.py), or differential (nx-ir-core against the NX reference
# runtime, oracle/fuzz; differential-5 and differential-6 run it from one schema's seeds only).
# The differential target is built here with the flags cargo fuzz builds with, since its
# reference crates need --ignore-rust-version, which cargo fuzz cannot pass.
#
# Seeds come from the conformance corpus (fuzz/seed.py) when a target's corpus is empty; the
# kept crashing inputs (rust/nx-ir-core/tests/regressions/TARGET) are replayed first. A crash,
# panic, timeout (10 s), out-of-memory (2 GiB) or sanitizer report stops the run with its input
# under fuzz/artifacts/TARGET and a non-zero exit. Extra libFuzzer flags go in FUZZ_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    echo "usage: fuzz/run.sh {prepare_module|link_program|evaluate|work_bound|stored_instance|assemble|boundary|differential[-5|-6]|all} SECONDS" >&2
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
    if [[ $name == work_bound ]]; then
        # The evaluate target's inputs: the same decoding, another assertion.
        if [[ -z "$(ls -A fuzz/corpus/work_bound 2>/dev/null)" ]]; then
            seed evaluate
            mkdir -p fuzz/corpus/work_bound
            cp fuzz/corpus/evaluate/* fuzz/corpus/work_bound/ 2>/dev/null || true
        fi
        return
    fi
    if [[ -z "$(ls -A "fuzz/corpus/$name" 2>/dev/null)" ]]; then
        python3 fuzz/seed.py fuzz/corpus >&2 || echo "no seeds: fuzzing $name from an empty corpus" >&2
    fi
    # Without the conformance corpus a target may get no seed at all: libFuzzer still needs the folder.
    mkdir -p "fuzz/corpus/$name"
}

nightly() {
    if ! cargo +nightly --version >/dev/null 2>&1; then
        echo "== installing the nightly toolchain ==" >&2
        rustup toolchain install nightly --profile minimal
    fi
}

cargo_target() {
    local name=$1
    nightly
    if ! command -v cargo-fuzz >/dev/null; then
        echo "== installing cargo-fuzz ==" >&2
        cargo install --quiet --locked cargo-fuzz
    fi
    seed "$name"
    local dirs=("fuzz/corpus/$name")
    [[ -d "rust/nx-ir-core/tests/regressions/$name" ]] && dirs+=("rust/nx-ir-core/tests/regressions/$name")
    mkdir -p "fuzz/artifacts/$name"
    local own=()
    # Evaluation inputs and texts stay small (fuzz/seed.py leaves the large-catalog program out).
    [[ $name == evaluate || $name == work_bound || $name == assemble ]] && own=(-max_len=32768)
    echo "== $name for ${seconds}s ==" >&2
    (cd fuzz && cargo +nightly fuzz run "$name" "${dirs[@]/#/../}" -- "${common[@]}" "${own[@]}" "${extra[@]}")
}

# The differential target (oracle/fuzz): built as `cargo fuzz build` builds a target (release
# with debug info, debug assertions, AddressSanitizer, libFuzzer's coverage instrumentation),
# plus --ignore-rust-version; then run as `cargo fuzz run` runs one. Its seeds are the evaluate
# target's inputs, schema 5 under fuzz/corpus/differential-5 and schema 6 (the corpus assembled
# as schema 6, the schema 6 samples and a prelude user) under fuzz/corpus/differential-6.
differential() {
    local name=$1
    nightly
    if [[ -z "$(ls -A fuzz/corpus/differential-5 2>/dev/null)" ]]; then
        python3 fuzz/seed.py fuzz/corpus >&2 || echo "no seeds: fuzzing $name from an empty corpus" >&2
    fi
    local dirs
    case $name in
        differential) dirs=(fuzz/corpus/differential fuzz/corpus/differential-5 fuzz/corpus/differential-6) ;;
        *) dirs=("fuzz/corpus/$name") ;;
    esac
    [[ -d oracle/tests/regressions/differential ]] && dirs+=(oracle/tests/regressions/differential)
    mkdir -p "${dirs[@]}" "fuzz/artifacts/$name"
    local triple
    triple=$(rustc +nightly -vV | sed -n 's/^host: //p')
    local flags=(
        -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4
        -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table
        -Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-simplifycfg-branch-fold-threshold=0
        --cfg fuzzing -Clink-dead-code -Zsanitizer=address -Cdebug-assertions -Ccodegen-units=1
    )
    [[ $triple == *-linux-* ]] && flags+=(-Cllvm-args=-sanitizer-coverage-stack-depth)
    echo "== building the differential target ==" >&2
    RUSTFLAGS="${flags[*]} ${RUSTFLAGS:-}" cargo +nightly build --manifest-path oracle/fuzz/Cargo.toml \
        --target "$triple" --release --config profile.release.debug=true --ignore-rust-version --bin differential
    echo "== $name for ${seconds}s ==" >&2
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_odr_violation=0" \
        "oracle/fuzz/target/$triple/release/differential" -artifact_prefix="fuzz/artifacts/$name/" \
        "${dirs[@]}" "${common[@]}" -max_len=32768 "${extra[@]}"
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
        prepare_module | link_program | evaluate | work_bound | stored_instance | assemble) cargo_target "$1" ;;
        boundary) boundary ;;
        differential | differential-5 | differential-6) differential "$1" ;;
        *) usage ;;
    esac
}

if [[ $target == all ]]; then
    for name in prepare_module link_program evaluate work_bound stored_instance assemble boundary differential; do
        run "$name"
    done
else
    run "$target"
fi
