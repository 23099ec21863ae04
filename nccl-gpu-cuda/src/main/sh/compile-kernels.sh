# Sourced by build-fatbin.sh (nvcc) and nccl-gpu-hip's build-code-objects.sh (hipcc): the steps
# both take to compile <src>/kernels.cu into <out>.
#
#   find_compiler <name> <candidate path>...
# prints the first executable candidate (empty ones are skipped), else <name> from PATH; 1 if none.
#
#   kernels_inputs <skip> <out> <src> <label> <property-prefix>
# when <skip> is true removes <out> and exits 0 (the jar then has no kernels and the backend
# reports it); exits 1 when <src>/kernels.cu is missing.
#
# compile_kernels compiles unless <out> is up to date, keeping the compiler's diagnostics in the
# build log when it succeeds and in the failure's message (stderr) when not.
#
#   COMPILE_KERNELS=<this file>; . "$COMPILE_KERNELS"
#   compile_kernels <compiler> "<flags>" <out> <src> <stamp> <script>
#
# Up to date: <stamp> (a file outside the jar's folder, empty for none) records the compiler,
# flags and sources of the last build; they are the same, and no source, neither script nor
# this file is newer than <out>.
compile_kernels() {
  ck_cc=$1 ck_flags=$2 ck_out=$3 ck_src=$4 ck_stamp=$5 ck_script=$6
  # shellcheck disable=SC2086 # the flags are words
  ck_what=$(echo "$ck_cc" $ck_flags "$ck_src")
  if [ -n "$ck_stamp" ] && [ -f "$ck_out" ] && [ -f "$ck_stamp" ] && [ "$(cat "$ck_stamp")" = "$ck_what" ] \
      && [ -z "$(find "$ck_src" "$ck_script" "$COMPILE_KERNELS" -newer "$ck_out" -print 2>/dev/null | head -1)" ]; then
    echo "nccl4j: $ck_out is up to date"
    return 0
  fi
  mkdir -p "$(dirname "$ck_out")"
  ck_tmp="$ck_out.tmp.$$"
  ck_log="$ck_out.log.$$"
  trap 'rm -f "$ck_tmp" "$ck_log"' EXIT
  # An interrupted build (Maven stopped) leaves nothing next to the classes either.
  trap 'rm -f "$ck_tmp" "$ck_log"; exit 130' INT TERM
  # shellcheck disable=SC2086 # the flags are words
  set -- "$ck_cc" $ck_flags -I "$ck_src" -o "$ck_tmp" "$ck_src/kernels.cu"
  echo "nccl4j: $*"
  ck_start=$(date +%s)
  if ! "$@" > "$ck_log" 2>&1; then
    { echo "nccl4j: $(basename "$ck_cc") failed building $ck_src/kernels.cu:"; cat "$ck_log"; } >&2
    exit 1
  fi
  cat "$ck_log"
  mv "$ck_tmp" "$ck_out"
  [ -z "$ck_stamp" ] || echo "$ck_what" > "$ck_stamp"
  echo "nccl4j: built $ck_out ($(wc -c < "$ck_out") bytes) in $(( $(date +%s) - ck_start )) s"
}

find_compiler() {
  fc_name=$1
  shift
  for fc_c in "$@"; do
    if [ -n "$fc_c" ] && [ -x "$fc_c" ]; then echo "$fc_c"; return 0; fi
  done
  command -v "$fc_name" 2>/dev/null && return 0
  return 1
}

kernels_inputs() {
  if [ "$1" = "true" ]; then
    rm -f "$2"
    echo "nccl4j: $4 kernels not built (-D$5.skip=true): the jar has no $(basename "$2")"
    exit 0
  fi
  if [ ! -f "$3/kernels.cu" ]; then
    echo "nccl4j: no kernels.cu in $3: the kernel sources are missing (set -D$5.src=<dir>, or build with -D$5.skip=true)" >&2
    exit 1
  fi
}
