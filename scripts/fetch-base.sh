#!/bin/sh
# The pinned base of one series: the kernel tarball of a Debian package at
# exactly the version configs/bases.ini gives, checksum-verified, unpacked
# into a git repo (one commit, tag "base").
#
#   fetch-base.sh BASE [TREE]   BASE: a section of configs/bases.ini
#                               TREE: default the base's tree (bases.ini)
#
# Where the tarball comes from, the first way that works:
#   1. the variable the base names in tarball_env (mainline: BASE_TARBALL),
#      set to a local copy of the tarball;
#   2. fetch = install: the package, installed with apt-get from the
#      machine's own sources (root);
#      fetch = download: the package, fetched with `apt-get download` from
#      the base's suite through a private apt configuration in a temporary
#      directory (its own sources.list, lists and cache, on the Debian mirror
#      the machine already uses), then unpacked with dpkg-deb; the machine's
#      apt sources and state are left untouched (root).
# Every sha256 in bases.ini is checked; a mismatch stops the fetch.
#
# The base commit is the same everywhere (fixed identity and dates). Its
# only change to the tarball: the last rule of Debian's top-level .gitignore
# ("/*", ignore every top-level path) is dropped, so that files the series
# adds are not silently left out of commits.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base-lib.sh"
[ $# -ge 1 ] && [ $# -le 2 ] || {
	echo "usage: fetch-base.sh BASE [TREE] (bases: $(base_names | tr '\n' ' '))" >&2
	exit 2
}
load_base "$1"
tree=${2:-$top/$base_tree}

die() { echo "fetch-base: $*" >&2; exit 1; }

[ ! -e "$tree" ] || die "$tree already exists; remove it to fetch the base again"

# check_sha256 FILE WANT WHAT
check_sha256() {
	sum=$(sha256sum "$1" | cut -d' ' -f1)
	[ "$sum" = "$2" ] ||
		die "$1 has sha256 $sum, expected $2 ($3 of $base_package $base_version)"
}

# The machine's Debian mirror (the first ".../debian" URI of its apt
# sources), or Debian's own when it has none.
debian_mirror() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		sed -n -e 's/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]\{1,\}\).*/\2/p' \
			-e 's/^URIs:[[:space:]]*//p' "$f"
	done | tr ' ' '\n' | grep -E '^https?://[^/]+/debian/?$' | head -n 1 |
		grep . || echo http://deb.debian.org/debian
}

not_served() {
	if [ -n "$base_tarball_env" ]; then
		local_copy="  - $base_tarball_env=<path>: a copy of $base_tarball from that package
    (sha256 $base_sha256),
    e.g. make tree BASE=$base_name $base_tarball_env=/path/to/$(basename "$base_tarball");"
	else
		local_copy="  - (no local copy: configs/bases.ini gives this base no tarball_env);"
	fi
	die "cannot get $base_package $base_version (Linux $base_linux): $1
The series is pinned to that base and will not drift to another one. Ways out:
$local_copy
  - the archive: make that exact version reachable (suite $base_suite:
    $base_package=$base_version), then run again.
To move to another base, change configs/bases.ini, then rebuild and retest
the series on it."
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tarball=
override=
[ -z "$base_tarball_env" ] || eval "override=\${$base_tarball_env:-}"

if [ -n "$override" ]; then
	[ -r "$override" ] || die "$base_tarball_env=$override: no such file"
	check_sha256 "$override" "$base_sha256" tarball
	tarball=$override
	echo "fetch-base: using $base_tarball_env=$override" >&2
elif [ "$base_fetch" = install ]; then
	installed=$(dpkg-query -W -f='${Version}' "$base_package" 2>/dev/null || true)
	if [ "$installed" != "$base_version" ]; then
		[ "$(id -u)" = 0 ] || die "$base_package $base_version is not installed (have: ${installed:-none}); run as root: make deps, or make tree BASE=$base_name"
		echo "fetch-base: installing $base_package=$base_version" >&2
		if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --allow-downgrades \
			"$base_package=$base_version"; then
			apt-get update -q >/dev/null 2>&1 || true
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --allow-downgrades \
				"$base_package=$base_version" ||
				not_served "the archive does not serve it"
		fi
	fi
	check_sha256 "$base_tarball" "$base_sha256" tarball
	tarball=$base_tarball
else
	[ "$(id -u)" = 0 ] || not_served "fetching it from the archive needs root"
	mirror=$(debian_mirror)
	arch=$(dpkg --print-architecture)
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	signed=
	[ -r "$keyring" ] && signed=" signed-by=$keyring"
	apt=$tmp/apt
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/deb"
	chmod -R go+rX "$tmp"
	echo "deb [arch=$arch$signed] $mirror $base_suite main" > "$apt/sources.list"
	set -- -q -o Dir::Etc::SourceList="$apt/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$apt/lists" \
		-o Dir::Cache="$apt/cache" -o Acquire::Languages=none
	echo "fetch-base: apt-get download $base_package=$base_version from $mirror $base_suite (private apt configuration)" >&2
	if ! apt-get "$@" update >"$tmp/apt.log" 2>&1; then
		sed 's/^/    /' "$tmp/apt.log" >&2
		not_served "apt-get update of $mirror $base_suite failed"
	fi
	if ! (cd "$apt/deb" && apt-get "$@" download "$base_package=$base_version") \
		>"$tmp/apt.log" 2>&1; then
		sed 's/^/    /' "$tmp/apt.log" >&2
		not_served "$mirror $base_suite does not serve it"
	fi
	deb=$(ls "$apt/deb"/*.deb)
	check_sha256 "$deb" "$base_deb_sha256" .deb
	dpkg-deb -x "$deb" "$tmp/x"
	rm -f "$deb"
	tarball=$tmp/x$base_tarball
	[ -r "$tarball" ] || die "$base_package $base_version holds no $base_tarball"
	check_sha256 "$tarball" "$base_sha256" tarball
fi

work=$tree.tmp
rm -rf "$work"
mkdir -p "$work"
echo "fetch-base: unpacking $tarball" >&2
tar -C "$work" -xf "$tarball" --strip-components=1
cd "$work"
# Drop Debian's "ignore every top-level path" rule (and its comment block).
sed -i '/^# Debian packaging: ignore everything at the top level/,$d' .gitignore
sed -i '${/^#$/d}' .gitignore
git init -q -b series   # the branch the series is committed on
git config user.name "CMA series harness"
git config user.email "cma-series@localhost"
git add -A -f   # the whole tarball, whatever the ignore rules say
# Fixed identity and dates: the base commit has the same id everywhere.
GIT_AUTHOR_DATE="2025-01-01T00:00:00Z" GIT_COMMITTER_DATE="2025-01-01T00:00:00Z" \
	git commit -q -m "$base_commit_message"
git tag base
cd - >/dev/null
mv "$work" "$tree"
echo "fetch-base: $tree at base $(git -C "$tree" rev-parse --short base) ($base_commit_message)" >&2
