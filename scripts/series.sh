#!/bin/sh
# The series of one base between its patch folder and its kernel work tree.
#
#   series.sh tree   BASE               fetch the base if its tree is missing,
#                                       then apply
#   series.sh apply  BASE [TREE PATCHES] git am PATCHES/0*.patch on tag base
#   series.sh check  BASE [TREE PATCHES] does TREE (base..HEAD) match PATCHES?
#   series.sh export BASE [TREE PATCHES] sign off base..HEAD as the exporter,
#                                       then git format-patch it to PATCHES
#   series.sh reset  BASE               TREE back to base + PATCHES (drops
#                                       local commits; FORCE=1 if not exported)
#
# BASE is a section of configs/bases.ini, which gives the tree (build/linux,
# build/linux-<name>), the patch folder (patches/, backports/<name>/) and the
# folder of the cover letter source: cover-letter.txt (subject on the first
# line, then the body, whose figures are {{figure.field}} placeholders that
# export fills in from bench/results) and version (the series version, v1
# is 1).
#
# export writes every patch as the exporter: user.name and user.email of
# this repository's git config (refused when either is unset) become each
# commit's author, the previous author's Signed-off-by lines are dropped and
# the exporter's is the last trailer, once. The commits of TREE are rewritten
# that way (git commit-tree: same trees, no file touched), so that the tree
# and the files agree; a commit already in that form is left as it is.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base-lib.sh"
usage() {
	echo "usage: series.sh tree|apply|check|export|reset BASE [TREE PATCHES]" >&2
	exit 2
}
[ $# -eq 2 ] || [ $# -eq 4 ] || usage
cmd=$1
load_base "$2"
tree=${3:-$top/$base_tree}
pdir=${4:-$top/$base_patches}
case $tree in /*) ;; *) tree=$(pwd)/$tree ;; esac
case $pdir in /*) ;; *) pdir=$(pwd)/$pdir ;; esac
# Names for messages: relative to the repository where they are inside it.
tname=${tree#"$top"/}
pname=${pdir#"$top"/}/
series_dir=$top/$base_series
cover_src=$series_dir/cover-letter.txt

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

need_tree() {
	[ -d "$tree/.git" ] || die "no work tree $tname for base $base_name: make tree BASE=$base_name"
}

apply() {
	need_tree
	n=$(patch_files | wc -l)
	if [ "$(git -C "$tree" rev-parse HEAD)" != "$(git -C "$tree" rev-parse base)" ]; then
		if in_sync; then
			echo "series: $tname already holds $pname ($n patches on Linux $base_linux)" >&2
			return 0
		fi
		echo "series: warning: $tname (base..HEAD) differs from $pname;" >&2
		echo "series: building the work tree as it is. 'make export BASE=$base_name' saves it" >&2
		echo "series: to $pname, 'make tree-reset BASE=$base_name' rebuilds it from $pname" >&2
		echo "series: (discarding local commits)." >&2
		return 0
	fi
	if [ "$n" -eq 0 ]; then
		echo "series: $pname has no patches: $tname is the bare base (Linux $base_linux)" >&2
		return 0
	fi
	git -C "$tree" status --porcelain --untracked-files=no | grep -q . &&
		die "$tname has uncommitted changes on base; commit or stash them"
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
			die "$(basename "$f") does not apply on Linux $base_linux: ${why:-see the git am output above} (tree left at \"$(git -C "$tree" log -1 --format=%s HEAD)\")"
		fi
		echo "series: applied $(basename "$f")" >&2
	done
}

tree_cmd() {
	[ -d "$tree/.git" ] || "$top/scripts/fetch-base.sh" "$base_name" "$tree"
	apply
}

reset() {
	need_tree
	if ! in_sync; then
		echo "series: $tname has commits not in $pname; run 'make export BASE=$base_name' first or FORCE=1" >&2
		[ "${FORCE:-}" = 1 ] || exit 1
	fi
	git -C "$tree" checkout -q -B series base
	apply
}

# The exporter: this repository's git identity, never the tree's.
exporter() {
	ename=$(git -C "$top" config user.name || true)
	eemail=$(git -C "$top" config user.email || true)
	[ -n "$ename" ] && [ -n "$eemail" ] ||
		die "git config user.name and user.email must be set in $top: every exported patch is authored and signed off (DCO) by whoever exports it. Set them with: git -C $top config user.name 'Your Name'; git -C $top config user.email you@example.org"
}

# signed_message COMMIT: COMMIT's message with the Signed-off-by lines of
# its author and of the exporter dropped and the exporter's added as the
# last trailer: to the trailer block that ends the message (lines
# "Token: value", indented continuations), or in a paragraph of its own.
# (Not git interpret-trailers: it files the trailer above a final line
# that starts with "#", taking it for a comment.)
signed_message() {
	git -C "$tree" log -1 --format=%B "$1" |
		grep -vxF -e "Signed-off-by: $(git -C "$tree" log -1 --format='%an <%ae>' "$1")" \
			-e "Signed-off-by: $ename <$eemail>" |
		awk -v sob="Signed-off-by: $ename <$eemail>" '
		{ line[NR] = $0 }
		END {
			n = NR
			while (n > 0 && line[n] ~ /^[ \t]*$/) n--
			s = n
			while (s > 1 && line[s - 1] !~ /^[ \t]*$/) s--
			block = s > 1	# the subject paragraph is no trailer block
			for (i = s; i <= n; i++)
				if (line[i] !~ /^[A-Za-z0-9][A-Za-z0-9-]*: / && line[i] !~ /^[ \t]/)
					block = 0
			for (i = 1; i <= n; i++) print line[i]
			if (!block) print ""
			print sob
		}'
}

# Rewrite base..HEAD as the exporter with git commit-tree: same trees, same
# author dates, the exporter as author and committer, signed_message(). The
# branch moves to the new commits; index and files are not touched (their
# tree is the same), so nothing is rebuilt. A commit already in that form
# keeps its id.
sign_off() {
	parent=$(git -C "$tree" rev-parse base)
	changed=0
	msg=$(mktemp)
	for c in $(git -C "$tree" rev-list --reverse base..HEAD); do
		[ "$(git -C "$tree" rev-list --parents -1 "$c" | wc -w)" -eq 2 ] ||
			die "$tname: $(git -C "$tree" log -1 --format='%h %s' "$c") is a merge; the series must be linear"
		signed_message "$c" > "$msg"
		if [ "$(git -C "$tree" rev-parse "$c^")" = "$parent" ] &&
			[ "$(git -C "$tree" log -1 --format='%an <%ae>' "$c")" = "$ename <$eemail>" ] &&
			[ "$(git -C "$tree" log -1 --format=%B "$c")" = "$(cat "$msg")" ]; then
			parent=$c
			continue
		fi
		parent=$(GIT_AUTHOR_NAME=$ename GIT_AUTHOR_EMAIL=$eemail \
			GIT_AUTHOR_DATE=$(git -C "$tree" log -1 --format=%ad --date=raw "$c") \
			GIT_COMMITTER_NAME=$ename GIT_COMMITTER_EMAIL=$eemail \
			git -C "$tree" commit-tree "$(git -C "$tree" rev-parse "$c^{tree}")" \
			-p "$parent" -F "$msg") || die "git commit-tree failed on $c"
		changed=$((changed + 1))
	done
	rm -f "$msg"
	if [ "$changed" -gt 0 ]; then
		git -C "$tree" update-ref -m "series.sh export: sign off as $ename <$eemail>" \
			"refs/heads/$branch" "$parent" "$(git -C "$tree" rev-parse HEAD)"
		echo "series: signed off $changed commits of $tname as $ename <$eemail> (old head: $branch@{1})" >&2
	fi
}

export_series() {
	need_tree
	exporter
	git -C "$tree" status --porcelain --untracked-files=no | grep -q . &&
		die "$tname has uncommitted changes; commit them first"
	n=$(git -C "$tree" rev-list --count base..HEAD)
	[ "$n" -gt 0 ] || die "no commits after base in $tname"
	[ -r "$cover_src" ] || die "no ${cover_src#"$top"/}: write the cover letter of the $base_name series there (subject on the first line, then the body)"
	version=$(cat "$series_dir/version" 2>/dev/null || echo 1)
	case "$version" in ''|*[!0-9]*) die "${series_dir#"$top"/}/version must be a number, not '$version'" ;; esac
	branch=$(git -C "$tree" symbolic-ref --short HEAD 2>/dev/null) ||
		die "$tname is on a detached HEAD; check out a branch"
	sign_off
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# The cover letter names its figures as {{figure.field}}: filled in
	# from bench/results (bench/figures.ini; harness/figures.py).
	cover=$(cd "$top" && "$PYTHON" -m harness figures --render "$cover_src") ||
		die "could not fill in the figures of ${cover_src#"$top"/}"
	git -C "$tree" config "branch.$branch.description" "$cover"
	vflag=
	[ "$version" -gt 1 ] && vflag="-v$version"
	# --abbrev: index lines of one length, not one that grows with the
	# tree's object count, so an export from a freshly made tree of the
	# same commits changes no patch.
	git -C "$tree" -c user.name="$ename" -c user.email="$eemail" format-patch -q $vflag \
		--abbrev=9 --cover-letter --cover-from-description=subject --zero-commit --no-signature \
		--subject-prefix=PATCH -o "$tmp" base..HEAD
	# Version prefixes (v2-0001-...) are dropped from the file names so
	# the patch folder keeps stable names; the subjects carry the version.
	for f in "$tmp"/*.patch; do
		b=$(basename "$f")
		[ "$b" = "${b#v[0-9]*-}" ] || mv "$f" "$tmp/${b#v[0-9]*-}"
	done
	mkdir -p "$pdir"
	rm -f "$pdir"/[0-9][0-9][0-9][0-9]-*.patch
	cp "$tmp"/*.patch "$pdir"/
	in_sync || die "export did not reproduce the work tree (bug)"
	echo "series: exported $n patches and a cover letter to $pname, as $ename <$eemail>" >&2
}

case "$cmd" in
tree) tree_cmd ;;
apply) apply ;;
check)
	need_tree
	if in_sync; then echo "series: $tname and $pname agree ($base_name)"; else
		echo "series: $tname (base..HEAD) and $pname differ: make export BASE=$base_name" >&2; exit 1; fi ;;
export) export_series ;;
reset) reset ;;
*) die "unknown command $cmd (tree, apply, check, export, reset)" ;;
esac
