#!/usr/bin/env bash
# Coverage-guided fuzzing of arena's parsers (fuzz/*_fuzzer.cpp) with libFuzzer, ASan and UBSan.
#
#   scripts/fuzz.sh [TARGET[,TARGET...]|all] [SECONDS]      default: all targets, 60 seconds each
#
# Installs clang-19 and libclang-rt-19-dev when missing (Debian; root or sudo), configures a
# separate build (build-fuzz/, -DARENA_FUZZ=ON, ccache) that compiles only the fuzz targets and
# the libraries they link, seeds each corpus from fuzz/corpus/ and ../shared/testdata
# (fuzz/make_seeds.py), and runs each target for SECONDS with a memory bound (-rss_limit_mb,
# -malloc_limit_mb), a per-input time limit and, where fuzz/dict/<target>.dict exists, that
# dictionary of the format's words. The growing corpus stays in build-fuzz/corpus/.
# A crash (or leak, timeout, out-of-memory) is saved as build-fuzz/crashes/<target>-<kind>-<sha>
# with a .sh file beside it holding the command that reproduces it; the script then exits 1.
# A summary line per target gives executions, coverage (edges) and features.
# Environment: ARENA_FUZZ_BUILD (build folder), ARENA_FUZZ_JOBS (build parallelism, default nproc),
# ARENA_FUZZ_MALLOC_CONTEXT (ASan's malloc_context_size while fuzzing, default 0: recording each
# allocation's stack was ~10% of the time; the saved reproducer runs with ASan's full default),
# ARENA_TESTDATA (test data folder), ARENA_FUZZ_RSS_MB (default 2048), ARENA_FUZZ_MALLOC_MB (512),
# ARENA_FUZZ_RUNS (stop a target after this many executions, or SECONDS, whichever comes first:
# the long runs of docs/reliability.md use ARENA_FUZZ_RUNS=1000000 with a generous SECONDS),
# ARENA_FUZZ_PARALLEL (targets run at a time, default 1; each summary is printed when its target
# ends, so the order of the lines can differ from the order of the targets).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
target=${1:-all}
seconds=${2:-60}
build=${ARENA_FUZZ_BUILD:-$root/build-fuzz}
rss_mb=${ARENA_FUZZ_RSS_MB:-2048}
malloc_mb=${ARENA_FUZZ_MALLOC_MB:-512}
source scripts/testdata.sh
arena_find_testdata "$root"

all_targets=(chess_fen_fuzzer janggi_fen_fuzzer epd_fuzzer move_fuzzer pgn_fuzzer gguf_fuzzer
  model_config_fuzzer tokenizer_fuzzer chat_template_fuzzer cli_values_fuzzer config_fuzzer
  uci_output_fuzzer openai_json_fuzzer http_ws_fuzzer)
if [[ $target == all ]]; then
  targets=("${all_targets[@]}")
else
  IFS=, read -r -a targets <<<"$target"
  for t in "${targets[@]}"; do
    if [[ " ${all_targets[*]} " != *" $t "* ]]; then
      echo "fuzz.sh: unknown target '$t' (known: all ${all_targets[*]})" >&2
      exit 2
    fi
  done
fi

# The fuzz toolchain: only this script needs it, so scripts/deps.sh does not install it.
if ! command -v clang++-19 >/dev/null || [[ ! -d /usr/lib/llvm-19/lib/clang/19/lib/linux ]]; then
  echo "fuzz.sh: installing clang-19 and libclang-rt-19-dev" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends clang-19 libclang-rt-19-dev >/dev/null
fi
bash scripts/deps.sh

export CCACHE_DIR=${CCACHE_DIR:-/var/cache/arena-ccache} CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=true
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
start=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1" \
  -DCMAKE_CXX_COMPILER=clang++-19 -DARENA_FUZZ=ON -DARENA_CUDA=OFF -DARENA_BUILD_TESTS=OFF \
  -DARENA_WERROR=OFF "${launcher[@]}" >/dev/null
ninja -C "$build" -j "${ARENA_FUZZ_JOBS:-$(nproc)}" "${targets[@]}"
echo "fuzz.sh: build took $(($(date +%s) - start)) s" >&2

# Seeds of this run only, so that runs of different targets can share the build at once.
seeds=$build/seeds.$$
rm -rf "$seeds"
trap 'rm -rf "$seeds"' EXIT
python3 fuzz/make_seeds.py "${ARENA_TESTDATA:-$root/../shared/testdata}" "$seeds"
mkdir -p "$build/crashes" "$build/logs"
# Stack traces need llvm-symbolizer: clang-19's when the llvm-19 package is there, else any.
symbolizer=/usr/lib/llvm-19/bin/llvm-symbolizer
[[ -x $symbolizer ]] || symbolizer=$(command -v llvm-symbolizer-19 || command -v llvm-symbolizer || echo none)
# Fuzzes one target; its summary (and a failure's log tail) goes to $build/logs/<target>.summary,
# printed when the target ends so that parallel targets never interleave their lines.
fuzz_one() {
  local t=$1 corpus log artifacts rc execs cov ft units found=0 failed=0 saved
  {
    corpus=$build/corpus/$t
    mkdir -p "$corpus" "$seeds/$t"
    log=$build/logs/$t.log
    artifacts=$build/artifacts/$t/
    rm -rf "$artifacts"
    mkdir -p "$artifacts"
    args=(-max_total_time="$seconds" -rss_limit_mb="$rss_mb" -malloc_limit_mb="$malloc_mb" -timeout=10
      -max_len=131072 -print_final_stats=1 -artifact_prefix="$artifacts")
    [[ -n ${ARENA_FUZZ_RUNS:-} ]] && args+=(-runs="$ARENA_FUZZ_RUNS")
    [[ -f fuzz/dict/$t.dict ]] && args+=(-dict="fuzz/dict/$t.dict")
    set +e
    ASAN_SYMBOLIZER_PATH=$symbolizer \
      ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:malloc_context_size=${ARENA_FUZZ_MALLOC_CONTEXT:-0} \
      UBSAN_OPTIONS=print_stacktrace=1 \
      "$build/fuzz/$t" "${args[@]}" "$corpus" "$seeds/$t" >"$log" 2>&1
    rc=$?
    set -e
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || true)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || true)
    units=$(find "$corpus" -type f | wc -l)
    found=0
    for a in "$artifacts"*; do
      [[ -f $a ]] || continue
      saved=$build/crashes/$t-$(basename "$a")
      if [[ $(basename "$a") == slow-unit-* ]]; then
        # An input slower than libFuzzer's report threshold (10 s) but within -timeout: worth a
        # look, not a failure (its time depends on the machine's load).
        cp "$a" "$saved"
        echo "fuzz.sh: $t: a slow input (see $log) saved as $saved" >&2
        continue
      fi
      found=1
      cp "$a" "$saved"
      printf '#!/usr/bin/env bash\n# Reproduces %s (see %s)\nASAN_SYMBOLIZER_PATH=%q ARENA_TESTDATA=%q %q %q\n' \
        "$saved" "$log" "$symbolizer" "${ARENA_TESTDATA:-}" "$build/fuzz/$t" "$saved" >"$saved.sh"
      chmod +x "$saved.sh"
      echo "fuzz.sh: $t: CRASH saved as $saved; reproduce with $saved.sh" >&2
    done
    if [[ $rc -ne 0 || $found -ne 0 ]]; then
      failed=1
      echo "fuzz.sh: $t exited $rc; last lines of $log:" >&2
      tail -n 30 "$log" >&2
    fi
    printf '%-22s %4ss  execs %-10s cov %-6s ft %-7s corpus %-5s %s\n' "$t" "$seconds" "${execs:-?}" \
      "${cov:-?}" "${ft:-?}" "$units" "$([[ $rc -eq 0 && $found -eq 0 ]] && echo ok || echo CRASH)"
  } >"$build/logs/$t.summary" 2>&1
  return $failed
}

# ARENA_FUZZ_PARALLEL targets at a time (default 1): each libFuzzer process is single-threaded.
parallel=${ARENA_FUZZ_PARALLEL:-1}
[[ $parallel =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: ARENA_FUZZ_PARALLEL must be a positive integer" >&2; exit 2; }
status=0
declare -A job_target=()
finish_one() {
  local pid rc=0
  wait -n -p pid "${!job_target[@]}" || rc=$?
  cat "$build/logs/${job_target[$pid]}.summary"
  [[ $rc -eq 0 ]] || status=1
  unset "job_target[$pid]"
}
for t in "${targets[@]}"; do
  while ((${#job_target[@]} >= parallel)); do finish_one; done
  fuzz_one "$t" &
  job_target[$!]=$t
done
while ((${#job_target[@]} > 0)); do finish_one; done
exit $status
