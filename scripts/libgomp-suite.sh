#!/usr/bin/env bash
# GCC's libgomp runtime tests as a conformance run: each test is built once with this
# machine's `gcc -fopenmp`, then run under the system's libgomp and under locus's
# libgomp (`locus run --policy P`) for each policy, and the outcomes are tabled.
#
# Usage: scripts/libgomp-suite.sh SRC_DIR
#
# SRC_DIR is a folder of GCC's libgomp tests laid out as in GCC's sources
# (libgomp/testsuite): `libgomp.c/` and `libgomp.c-c++-common/` (either may be
# missing; a folder holding the `.c` files directly works too), with an optional
# `include/` beside them for the headers the tests take from libgomp's own sources
# and build (`libgomp_g.h`, `config.h`). Without SRC_DIR the script says so and does
# nothing. Nothing of GCC's is copied into this repository: the tests stay in
# SRC_DIR and what is built from them goes to $SCRATCH. Take the tests from the GCC
# release whose gcc builds them (a newer test may use what this gcc lacks: it is then
# skipped, or fails under both libraries).
#
# The runs are one at a time, each test under libgomp first and then under each
# policy, so that the columns' times see the same load; on a loaded machine compare
# the totals of one run, not of two.
#
# What a test's DejaGnu directives mean here (GCC's libgomp.exp, as far as a host run
# needs; `{ target SELECTOR }` clauses are evaluated for this machine, see `selector`):
# - `dg-do run` (the default) builds and runs; `dg-do compile`, `link`, ... are not
#   runtime tests: skipped. `dg-require-effective-target`, `dg-skip-if` and a
#   `dg-do run { target ... }` that this machine does not meet skip the test, and
#   so does anything about offloading or OpenACC (this is a host-only run).
# - `dg-options` replaces the default `-O2`, `dg-additional-options` adds to it,
#   `dg-additional-sources` adds files; `-fopenmp` is always given. A test that
#   this gcc cannot build is skipped (it is not a runtime result).
# - `dg-set-target-env-var VAR "VALUE"` sets VAR for every run of the test.
# - `dg-shouldfail` (and `dg-xfail-run-if` where its target matches) expects the
#   program to fail; `dg-output` patterns are joined and must match its combined
#   stdout and stderr (a Tcl string: `\n` is a newline, `\X` is X; the regular
#   expression then read as Python's, which agrees with Tcl's on what the tests use).
# - `dg-timeout N` replaces the run's time limit.
# - Compile-time diagnostics (`dg-warning`, `dg-error`, `dg-final`, ...) are ignored.
#
# Every run has a time limit: a run past it is killed with its process group and
# is a FAIL(timeout). A FAIL names why: the exit code or signal, the output that did
# not match, or a pass that should have failed. The table gives each test's outcome
# under libgomp and each policy and its run times; then the totals (passes per column,
# the total time under each and its ratio to libgomp's) and the tests that fail under
# a locus policy but pass under libgomp, each with the last line the program printed.
# Logs are in $SCRATCH/logs; the table is also written to $SCRATCH/table.txt.
#
# Environment:
#   LOCUS      the `locus` binary (default: release/locus under $CARGO_TARGET_DIR, else
#              under the repository's target/; build it with
#              `cargo build --release -p locus-cli -p locus-omp`)
#   POLICIES   the locus policies to run (default "ws cats mts")
#   THREADS    a thread count given to every run (`--threads`, and OMP_NUM_THREADS to
#              libgomp), except to tests that set OMP_NUM_THREADS themselves (default:
#              none, each library's default)
#   LIBGOMP_SUITE_TIMEOUT  seconds per run (default 60)
#   ONLY       an extended regular expression: run only the tests whose name matches
#   SCRATCH    the folder for binaries and logs (default: a fresh one under /tmp); a
#              binary an earlier run left there is reused if built the same way
#   CC         the compiler (default gcc)
set -u

src=${1:-}
if [ -z "$src" ] || [ ! -d "$src" ]; then
    echo "libgomp-suite: no test folder at '${src}' (pass a folder of GCC's libgomp tests, laid out as libgomp/testsuite): nothing to do"
    exit 0
fi
src=$(cd "$src" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-gcc}
limit=${LIBGOMP_SUITE_TIMEOUT:-60}
policies=${POLICIES:-ws cats mts}
threads=${THREADS:-}
only=${ONLY:-}

fail() {
    echo "libgomp-suite: $*" >&2
    exit 2
}

command -v python3 >/dev/null || fail "python3 is needed to read the tests' directives"
command -v timeout >/dev/null || fail "timeout (coreutils) is needed"
command -v "$cc" >/dev/null || fail "no compiler '$cc' (set CC)"
case $limit in '' | *[!0-9]*) fail "LIBGOMP_SUITE_TIMEOUT='$limit' is not a whole number of seconds" ;; esac
[ "$limit" -gt 0 ] || fail "LIBGOMP_SUITE_TIMEOUT must be at least 1 second"
case $threads in *[!0-9]*) fail "THREADS='$threads' is not a thread count" ;; esac
[ -z "$threads" ] || [ "$threads" -gt 0 ] || fail "THREADS must be at least 1"
if [ -n "$only" ]; then
    # grep's status 2 is a broken expression; 1 (no match) is fine.
    echo | grep -Eq -- "$only" 2>/dev/null
    [ $? -ne 2 ] || fail "ONLY='$only' is not an extended regular expression"
fi
locus=${LOCUS:-}
if [ -z "$locus" ]; then
    for dir in "${CARGO_TARGET_DIR:-}" "$repo/target"; do
        if [ -n "$dir" ] && [ -x "$dir/release/locus" ]; then
            locus=$dir/release/locus
            break
        fi
    done
fi
[ -n "$locus" ] && [ -x "$locus" ] ||
    fail "no locus binary (LOCUS='${LOCUS:-}'); build it with: cargo build --release -p locus-cli -p locus-omp"
for p in $policies; do
    "$locus" run --policy "$p" -- true >/dev/null 2>&1 ||
        fail "'$locus run --policy $p -- true' fails: unknown policy or no library ($("$locus" run --policy "$p" -- true 2>&1 | head -1))"
done

scratch=${SCRATCH:-$(mktemp -d /tmp/libgomp-suite.XXXXXX)}
mkdir -p "$scratch/bin" "$scratch/logs" || fail "cannot make the scratch folder '$scratch'"
scratch=$(cd "$scratch" && pwd)

# The tests: libgomp.c/**.c and libgomp.c-c++-common/*.c, else SRC_DIR/*.c.
tests=()
for sub in libgomp.c libgomp.c-c++-common; do
    if [ -d "$src/$sub" ]; then
        while IFS= read -r f; do tests+=("${f#"$src"/}"); done < <(find "$src/$sub" -type f -name '*.c' | LC_ALL=C sort)
    fi
done
if [ ${#tests[@]} -eq 0 ]; then
    while IFS= read -r f; do tests+=("${f#"$src"/}"); done < <(find "$src" -maxdepth 1 -type f -name '*.c' | LC_ALL=C sort)
fi
[ ${#tests[@]} -gt 0 ] || {
    echo "libgomp-suite: no .c tests under '$src': nothing to do"
    exit 0
}

# Reads the directives of test $1 and writes $2 (shell assignments: skip, opts,
# sources, envs, shouldfail, dgtimeout) and $3 (the joined dg-output pattern).
directives() {
    CC=$cc python3 - "$1" "$2" "$3" <<'PY'
import fnmatch, os, re, shlex, subprocess, sys

path, env_out, re_out = sys.argv[1:4]
text = open(path, encoding="utf-8", errors="replace").read()
triple = subprocess.run([os.environ.get("CC", "gcc"), "-dumpmachine"], capture_output=True, text=True).stdout.strip()
parts = triple.split("-")
if len(parts) == 3:  # x86_64-linux-gnu: DejaGnu's triples have a vendor field
    parts.insert(1, "pc")
triples = {triple, "-".join(parts)}
try:
    flags = set(re.findall(r"^flags\s*:(.*)$", open("/proc/cpuinfo").read(), re.M)[0].split())
except (OSError, IndexError):
    flags = set()
x86 = parts[0] in ("x86_64", "i686", "i586", "i386")

# Effective targets this host has; anything not named here is taken as absent.
def effective(name):
    m = re.fullmatch(r"(\w+?)_runtime", name)
    if m and m.group(1) in ("sse2", "avx", "avx2", "avx512f", "sse4", "ssse3"):
        flag = {"sse4": "sse4_1"}.get(m.group(1), m.group(1))
        return x86 and flag in flags
    known = {
        "c": True, "c++": False, "lp64": True, "ilp32": False, "ia32": False,
        "x32": False, "tls": True, "tls_runtime": True, "tls_native": True,
        "pthread": True, "fopenmp": True, "sync_int_long": True, "sync_long_long": True,
        "sync_char_short": True, "sync_int_128": False, "sync_int_128_runtime": False,
        "native": True, "size32plus": True, "fpic": True, "shared": True, "large_double": True,
        "int128": True, "vect_simd_clones": x86, "dfp": False, "fstack_protector": True,
        "hostonly": True, "alloca": True, "cet": False, "lto": True,
    }
    if name in known:
        return known[name]
    return False  # offload_*, openacc_*, and what this table does not know

def atom(tok):
    if "-" in tok and "*" in tok or tok.count("-") >= 2:
        return any(fnmatch.fnmatchcase(t, tok) for t in triples)
    return effective(tok)

# A selector body: a Tcl list of atoms and braced groups with !, &&, ||; a plain
# list of atoms is their disjunction, as in DejaGnu's is-effective-target-list.
def tokens(s):
    return re.findall(r"\{|\}|!|&&|\|\||[^\s{}!]+", s)

def evaluate(toks):
    pos = 0
    def expr():
        nonlocal pos
        val = term()
        while pos < len(toks) and toks[pos] in ("&&", "||"):
            op = toks[pos]; pos += 1
            rhs = term()
            val = (val and rhs) if op == "&&" else (val or rhs)
        return val
    def term():
        nonlocal pos
        if toks[pos] == "!":
            pos += 1
            return not term()
        if toks[pos] == "{":
            pos += 1
            val = expr()
            while pos < len(toks) and toks[pos] != "}":
                rhs = expr()  # a list inside braces
                val = val or rhs
            pos += 1
            return val
        tok = toks[pos]; pos += 1
        return atom(tok)
    val = expr()
    while pos < len(toks):
        rhs = expr()
        val = val or rhs
    return val

def selector(sel):
    """(kind, holds) for '{ target X }' / '{ xfail X }' / '{ X }' (None: no selector)."""
    sel = sel.strip()
    if not sel:
        return None, True
    m = re.fullmatch(r"\{\s*(target|xfail|ignore)?\s*(.*?)\s*\}", sel, re.S)
    if not m:
        return None, False
    kind, body = m.group(1) or "target", m.group(2)
    try:
        return kind, evaluate(tokens(body)) if body else True
    except IndexError:
        return kind, False

def tcl_string(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            out.append({"n": "\n", "r": "\r", "t": "\t"}.get(n, n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)

# Each directive: '{ dg-NAME ARGS }', ARGS up to the brace that closes it.
directives = []
for m in re.finditer(r"\{\s*(dg-[\w-]+)", text):
    depth, i, instr = 1, m.end(), False
    while i < len(text) and depth:
        c = text[i]
        if c == "\\" and instr:
            i += 2
            continue
        if c == '"':
            instr = not instr
        elif not instr and c == "{":
            depth += 1
        elif not instr and c == "}":
            depth -= 1
        i += 1
    directives.append((m.group(1), text[m.end():i - 1].strip()))

def split_args(args):
    """The leading quoted string or word, and the rest."""
    args = args.strip()
    if args.startswith('"'):
        j = 1
        while j < len(args) and args[j] != '"':
            j += 2 if args[j] == "\\" else 1
        return args[1:j], args[j + 1:].strip()
    if args.startswith("{"):
        depth, j = 0, 0
        for j, c in enumerate(args):
            depth += c == "{"
            depth -= c == "}"
            if depth == 0:
                break
        return args[1:j].strip(), args[j + 1:].strip()
    word, _, rest = args.partition(" ")
    return word, rest.strip()

skip, opts, extra, sources, envs, shouldfail, output, dgtimeout = "", None, [], [], [], 0, [], ""
for name, args in directives:
    if name == "dg-do":
        what, rest = split_args(args)
        if what != "run":
            skip = skip or f"dg-do {what}"
        elif not selector(rest)[1]:
            skip = skip or "dg-do run: not this target"
    elif name == "dg-options":
        value, rest = split_args(args)
        if selector(rest)[1]:
            opts = value
    elif name == "dg-additional-options":
        value, rest = split_args(args)
        if selector(rest)[1]:
            extra.append(value)
    elif name == "dg-additional-sources":
        value, rest = split_args(args)
        sources.extend(value.split())
    elif name == "dg-set-target-env-var":
        var, rest = split_args(args)
        value, _ = split_args(rest)
        envs.append(f"{var}={value}")
    elif name == "dg-shouldfail":
        _, rest = split_args(args)
        if selector(rest)[1]:
            shouldfail = 1
    elif name == "dg-xfail-run-if":
        _, rest = split_args(args)
        sel, _ = split_args(rest)
        if evaluate(tokens(sel)) if sel else True:
            shouldfail = 1
    elif name == "dg-output":
        value, rest = split_args(args)
        kind, holds = selector(rest)
        if holds and kind != "xfail":
            output.append(tcl_string(value))
    elif name == "dg-require-effective-target":
        value, rest = split_args(args)
        if selector(rest)[1] and not effective(value):
            skip = skip or f"needs {value}"
    elif name == "dg-skip-if":
        _, rest = split_args(args)
        sel, _ = split_args(rest)
        if sel and evaluate(tokens(sel)):
            skip = skip or "dg-skip-if"
    elif name == "dg-timeout":
        value, _ = split_args(args)
        if value.isdigit():
            dgtimeout = value
    elif name in ("dg-require-offload-device", "dg-additional-files") or "offload" in name or "openacc" in name:
        skip = skip or f"{name}: offloading"

low = text.lower()
if re.search(r"#\s*pragma\s+acc\b", text) or "openacc.h" in low:
    skip = skip or "OpenACC"

with open(env_out, "w") as f:
    q = shlex.quote
    f.write(f"skip={q(skip)}\n")
    f.write(f"opts={q(opts if opts is not None else '-O2')}\n")
    f.write(f"extra={q(' '.join(extra))}\n")
    f.write(f"sources=({' '.join(q(s) for s in sources)})\n")
    f.write(f"envs=({' '.join(q(e) for e in envs)})\n")
    f.write(f"shouldfail={shouldfail}\n")
    f.write(f"dgtimeout={q(dgtimeout)}\n")
with open(re_out, "w") as f:
    f.write("".join(output))
PY
}

# Whether the output in $2 matches the pattern in $1 (DejaGnu: anywhere in it).
matches() {
    python3 - "$1" "$2" <<'PY'
import re, sys
pattern = open(sys.argv[1]).read()
out = open(sys.argv[2], encoding="utf-8", errors="replace").read()
try:
    sys.exit(0 if re.search(pattern, out, re.S) else 1)
except re.error as e:
    print(f"bad dg-output pattern: {e}", file=sys.stderr)
    sys.exit(2)
PY
}

# Runs binary $1 for column $2 (libgomp or a policy) with time limit $3, log $4;
# prints "OUTCOME SECONDS" (OUTCOME: pass, or the reason of a failure, one word).
run_one() {
    local bin=$1 col=$2 secs=$3 log=$4
    local -a envv=("${envs[@]}") cmd
    local own_threads=0 e
    for e in "${envs[@]}"; do
        case $e in OMP_NUM_THREADS=*) own_threads=1 ;; esac
    done
    if [ "$col" = libgomp ]; then
        cmd=("$bin")
        [ -n "$threads" ] && [ $own_threads = 0 ] && envv+=("OMP_NUM_THREADS=$threads")
    else
        cmd=("$locus" run --policy "$col")
        [ -n "$threads" ] && [ $own_threads = 0 ] && cmd+=(--threads "$threads")
        cmd+=(-- "$bin")
    fi
    local t0 t1 rc
    t0=$(date +%s.%N)
    (cd "$(dirname "$bin")" && exec env "${envv[@]}" timeout -k 5 "$secs" "${cmd[@]}") >"$log" 2>&1 </dev/null
    rc=$?
    t1=$(date +%s.%N)
    local took
    took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    local outcome
    # 124: the limit passed; 137 at the limit: the program ignored SIGTERM.
    if [ $rc -eq 124 ] || { [ $rc -eq 137 ] && awk -v a="$took" -v b="$secs" 'BEGIN { exit !(a >= b) }'; }; then
        outcome="FAIL(timeout)"
    elif [ $shouldfail = 1 ] && [ $rc -eq 0 ]; then
        outcome="FAIL(no-failure)"
    elif [ $shouldfail = 0 ] && [ $rc -ne 0 ]; then
        if [ $rc -gt 128 ]; then
            outcome="FAIL(signal-$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128))))"
        else
            outcome="FAIL(exit-$rc)"
        fi
    elif [ -s "$pattern" ] && ! matches "$pattern" "$log" 2>>"$log"; then
        outcome="FAIL(output)"
    else
        outcome=PASS
    fi
    echo "$outcome $took"
}

columns=(libgomp $policies)
declare -A passes total_time
for c in "${columns[@]}"; do
    passes[$c]=0
    total_time[$c]=0
done
ran=0
skipped=()
regressions=()
summary=$scratch/table.txt

printf '%-48s' test | tee "$summary"
for c in "${columns[@]}"; do printf ' %-18s' "$c"; done | tee -a "$summary"
printf ' time (s): %s\n' "$(echo "${columns[@]}" | tr ' ' /)" | tee -a "$summary"

for t in "${tests[@]}"; do
    name=${t%.c}
    if [ -n "$only" ] && ! echo "$name" | grep -Eq -- "$only"; then
        continue
    fi
    case $name in *.h) continue ;; esac
    safe=$(echo "$name" | tr '/' '_')
    dir=$scratch/bin/$safe
    mkdir -p "$dir"
    pattern=$dir/output.re
    if ! directives "$src/$t" "$dir/test.env" "$pattern" 2>"$dir/directives.log"; then
        skipped+=("$name: its directives could not be read ($(tail -1 "$dir/directives.log"))")
        continue
    fi
    # shellcheck disable=SC1091
    . "$dir/test.env"
    if [ -n "$skip" ]; then
        skipped+=("$name: $skip")
        continue
    fi
    tdir=$(dirname "$src/$t")
    srcs=("$src/$t")
    for s in "${sources[@]}"; do srcs+=("$tdir/$s"); done
    incs=(-I "$tdir")
    [ -d "$src/include" ] && incs+=(-I "$src/include")
    # shellcheck disable=SC2086 # the options are words, as DejaGnu splits them
    build=("$cc" -fopenmp $opts $extra "${incs[@]}" "${srcs[@]}" -o "$dir/a.out" -lm)
    # A build an earlier run left in $SCRATCH (its binary, or its failure) is reused
    # when it was made the same way from sources no newer than it.
    fresh=0
    if [ -f "$dir/build.cmd" ] && [ "$(cat "$dir/build.cmd")" = "${build[*]}" ]; then
        fresh=1
        for s in "${srcs[@]}"; do [ "$s" -nt "$dir/build.cmd" ] && fresh=0; done
    fi
    if [ $fresh = 0 ]; then
        rm -f "$dir/a.out" "$dir/build.cmd"
        "${build[@]}" >"$dir/build.log" 2>&1
        echo "${build[*]}" >"$dir/build.cmd"
    fi
    if [ ! -x "$dir/a.out" ]; then
        skipped+=("$name: $cc cannot build it ($(grep -m1 -E 'error|unrecognized' "$dir/build.log" | cut -c1-100))")
        continue
    fi
    secs=${dgtimeout:-$limit}
    ran=$((ran + 1))
    declare -A got=()
    times=()
    for c in "${columns[@]}"; do
        read -r outcome took < <(run_one "$dir/a.out" "$c" "$secs" "$scratch/logs/$safe.$c.log")
        got[$c]=$outcome
        times+=("$took")
        total_time[$c]=$(awk -v a="${total_time[$c]}" -v b="$took" 'BEGIN { printf "%.2f", a + b }')
        [ "$outcome" = PASS ] && passes[$c]=$((passes[$c] + 1))
    done
    printf '%-48s' "$name" | tee -a "$summary"
    for c in "${columns[@]}"; do printf ' %-18s' "${got[$c]}"; done | tee -a "$summary"
    printf ' %s\n' "$(echo "${times[@]}" | tr ' ' /)" | tee -a "$summary"
    if [ "${got[libgomp]}" = PASS ]; then
        for c in $policies; do
            if [ "${got[$c]}" != PASS ]; then
                # The program's last words, not `locus run`'s note of the signal.
                last=$(grep -v -e '^[[:space:]]*$' -e '^locus: .* was killed by signal' \
                    "$scratch/logs/$safe.$c.log" | tail -1 | cut -c1-120)
                regressions+=("$name [$c] ${got[$c]}: ${last:-(no output)}")
            fi
        done
    fi
    unset got
done

{
    echo
    echo "skipped: ${#skipped[@]}"
    for s in "${skipped[@]}"; do echo "  $s"; done
    echo
    echo "ran: $ran tests (threads: ${threads:-default}; time limit ${limit} s a run)"
    for c in "${columns[@]}"; do
        ratio=$(awk -v a="${total_time[$c]}" -v b="${total_time[libgomp]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
        printf '  %-8s passed %3d/%d   time %8.2f s   %s x libgomp\n' "$c" "${passes[$c]}" "$ran" "${total_time[$c]}" "$ratio"
    done
    echo
    echo "failing under locus, passing under libgomp: ${#regressions[@]}"
    for r in "${regressions[@]}"; do echo "  $r"; done
    echo
    echo "logs: $scratch/logs"
} | tee -a "$summary"
