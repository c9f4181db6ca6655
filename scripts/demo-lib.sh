# Sourced by the failure demos (demo-failures.sh, demo-check-failures.sh).
# Sets status=0; expect() sets it to 1 when a fault goes undetected.
status=0

say() { printf '%s\n' "$*"; }

# expect NAME PATTERN CMD...: CMD must fail and print PATTERN.
expect() {
	name=$1 pattern=$2
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	hit=$(printf '%s\n' "$out" | grep -m1 -E -- "$pattern")
	if [ $rc -ne 0 ] && [ -n "$hit" ]; then
		say "demo $name: failed (exit $rc) naming the cause:"
		say "    $hit"
		say "    last line: $(printf '%s\n' "$out" | tail -n 1)"
	else
		say "demo $name: NOT DETECTED (exit $rc); output:"
		printf '%s\n' "$out" | tail -n 20 | sed 's/^/    /'
		status=1
	fi
}
