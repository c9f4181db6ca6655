#!/bin/sh
# The series between patches/ and the kernel work tree.
#
#   series.sh apply  TREE PATCHES   git am patches/0*.patch on tag base
#   series.sh check  TREE PATCHES   does TREE (base..HEAD) match PATCHES?
#   series.sh export TREE PATCHES   git format-patch base..HEAD -> PATCHES
#
# The cover letter is generated from series/cover-letter.txt (subject on the
# first line, then the body) and series/version (the series version, v1 is 1).
set -eu

cmd=${1:?usage: series.sh apply|check|export TREE PATCHES}
tree=${2:?TREE}
pdir=${3:?PATCHES}
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$pdir"
pdir=$(cd "$pdir" && pwd)	# git -C needs absolute paths
cover_src=$top/series/cover-letter.txt

die() { echo "series: $*" >&2; exit 1; }

patch_files() {
	ls "$pdir"/[0-9][0-9][0-9][0-9]-*.patch 2>/dev/null | grep -v '/0000-cover-letter.patch$' || true
}

ids_of_tree() {
	for c in $(git -C "$tree" rev-list --reverse base..HEAD); do
		git -C "$tree" show "$c" | git patch-id --stable | cut -d' ' -f1
	done
}

ids_of_files() {
	for f in $(patch_files); do
		git patch-id --stable < "$f" | cut -d' ' -f1
	done
}

in_sync() {
	[ "$(ids_of_tree)" = "$(ids_of_files)" ]
}

apply() {
	if [ "$(git -C "$tree" rev-parse HEAD)" != "$(git -C "$tree" rev-parse base)" ]; then
		if in_sync; then
			echo "series: build/linux already holds patches/ ($(patch_files | wc -l) patches)" >&2
			return 0
		fi
		echo "series: warning: build/linux (base..HEAD) differs from patches/;" >&2
		echo "series: building the work tree as it is. 'make export' saves it to patches/," >&2
		echo "series: 'make tree-reset' rebuilds it from patches/ (discarding local commits)." >&2
		return 0
	fi
	git -C "$tree" status --porcelain --untracked-files=no | grep -q . &&
		die "build/linux has uncommitted changes on base; commit or stash them"
	for f in $(patch_files); do
		if ! out=$(git -C "$tree" am --3way "$f" 2>&1); then
			git -C "$tree" am --abort >/dev/null 2>&1 || true
			# git apply --check names the file and line that do not match.
			why=$(git -C "$tree" apply --check "$f" 2>&1 |
				sed -n 's/^error: patch failed: \(.*\)$/\1 (context does not match)/p;
					s/^error: \(.*\): does not exist in index$/\1 (no such file)/p;
					s/^error: \(.*\): already exists in working directory$/\1 (already exists)/p' |
				sort -u | tr '\n' ' ')
			printf '%s\n' "$out" | sed 's/^/    /' >&2
			die "$(basename "$f") does not apply: ${why:-see the git am output above} (tree left at \"$(git -C "$tree" log -1 --format=%s HEAD)\")"
		fi
		echo "series: applied $(basename "$f")" >&2
	done
}

export_series() {
	git -C "$tree" status --porcelain --untracked-files=no | grep -q . &&
		die "build/linux has uncommitted changes; commit them first"
	n=$(git -C "$tree" rev-list --count base..HEAD)
	[ "$n" -gt 0 ] || die "no commits after base in build/linux"
	[ -r "$cover_src" ] || die "no $cover_src"
	version=$(cat "$top/series/version" 2>/dev/null || echo 1)
	case "$version" in ''|*[!0-9]*) die "series/version must be a number, not '$version'" ;; esac
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	branch=$(git -C "$tree" symbolic-ref --short HEAD 2>/dev/null) ||
		die "build/linux is on a detached HEAD; check out a branch"
	git -C "$tree" config "branch.$branch.description" "$(cat "$cover_src")"
	vflag=
	[ "$version" -gt 1 ] && vflag="-v$version"
	git -C "$tree" format-patch -q $vflag --cover-letter \
		--cover-from-description=subject --zero-commit --no-signature \
		--subject-prefix=PATCH -o "$tmp" base..HEAD
	# Version prefixes (v2-0001-...) are dropped from the file names so
	# patches/ keeps stable names; the subjects carry the version.
	for f in "$tmp"/*.patch; do
		b=$(basename "$f")
		[ "$b" = "${b#v[0-9]*-}" ] || mv "$f" "$tmp/${b#v[0-9]*-}"
	done
	rm -f "$pdir"/[0-9][0-9][0-9][0-9]-*.patch
	mkdir -p "$pdir"
	cp "$tmp"/*.patch "$pdir"/
	in_sync || die "export did not reproduce the work tree (bug)"
	echo "series: exported $n patches and a cover letter to $pdir" >&2
}

case "$cmd" in
apply) apply ;;
check)
	if in_sync; then echo "series: build/linux and patches/ agree"; else
		echo "series: build/linux (base..HEAD) and patches/ differ: make export" >&2; exit 1; fi ;;
export) export_series ;;
*) die "unknown command $cmd (apply, check, export)" ;;
esac
