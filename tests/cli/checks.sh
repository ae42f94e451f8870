# The command-line tests' checks, sourced by tests/cli/test_*.sh: each prints one line, "ok   NAME"
# or "FAIL NAME" (with the command's first lines), and failures counts the FAILs for the script's
# exit status (`echo "$failures failure(s)"; [ "$failures" -eq 0 ]` at its end).
failures=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }
# expect NAME CODE PATTERN -- command...: the command exits CODE and its output matches PATTERN.
expect() {
  local name="$1" want="$2" pattern="$3"; shift 4
  local out; out=$("$@" 2>&1); local code=$?
  if [ "$code" -eq "$want" ] && grep -qE -- "$pattern" <<<"$out"; then pass "$name"; else
    fail "$name (exit $code, want $want)"; echo "$out" | head -12; fi
}
# refuse NAME PATTERN -- command...: the command's output does not match PATTERN.
refuse() {
  local name="$1" pattern="$2"; shift 3
  if "$@" 2>&1 | grep -qE -- "$pattern"; then fail "$name"; else pass "$name"; fi
}
