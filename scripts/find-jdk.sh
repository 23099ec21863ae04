# Sourced by ./nccl4j and scripts/test: sets JAVA_HOME to a JDK 25 or newer.
# Order: $JAVA_HOME if it is 25+, then the newest 25+ JDK under /usr/lib/jvm, /opt/java, /opt.
nccl4j_java_major() {
  local rel="$1/release" v
  [ -x "$1/bin/javac" ] && [ -f "$rel" ] || return 1
  v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$rel")
  [ -n "$v" ] && echo "$v"
}
nccl4j_find_jdk() {
  local d m best="" bestm=0
  if [ -n "${JAVA_HOME:-}" ] && m=$(nccl4j_java_major "$JAVA_HOME") && [ "$m" -ge 25 ]; then
    return 0
  fi
  for d in /usr/lib/jvm/* /opt/java/* /opt/*; do
    m=$(nccl4j_java_major "$d" 2>/dev/null) || continue
    if [ "$m" -ge 25 ] && [ "$m" -gt "$bestm" ]; then best="$d"; bestm="$m"; fi
  done
  if [ -z "$best" ]; then
    echo "nccl4j needs a JDK 25 or newer; none found (JAVA_HOME=${JAVA_HOME:-unset}, searched /usr/lib/jvm, /opt)." >&2
    echo "Install one (e.g. Temurin 25) and set JAVA_HOME to it." >&2
    return 1
  fi
  export JAVA_HOME="$best"
}
nccl4j_find_jdk || exit 1
export PATH="$JAVA_HOME/bin:$PATH"
