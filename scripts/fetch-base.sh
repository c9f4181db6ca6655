#!/bin/sh
# The pinned base: Debian's linux-source-6.12 at exactly $BASE_DEB_VERSION,
# checksum-verified, unpacked into a git repo (one commit, tag "base").
#
#   fetch-base.sh TREE
#
# The only change to the tarball in the base commit: the last rule of
# Debian's top-level .gitignore ("/*", ignore every top-level path) is
# dropped, so files the series adds are not silently left out of commits.
set -eu

BASE_DEB_VERSION=6.12.117-1~deb12u1
BASE_TARBALL=/usr/src/linux-source-6.12.tar.xz
BASE_SHA256=585a4a074597aefa2b1a68ada83a3184ba351c127544dea80618bbcceaa3961f
tree=${1:?usage: fetch-base.sh TREE}

die() { echo "fetch-base: $*" >&2; exit 1; }

installed=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
if [ "$installed" != "$BASE_DEB_VERSION" ]; then
	[ "$(id -u)" = 0 ] || die "linux-source-6.12 $BASE_DEB_VERSION is not installed (have: ${installed:-none}); run as root: make deps"
	echo "fetch-base: installing linux-source-6.12=$BASE_DEB_VERSION" >&2
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --allow-downgrades \
		"linux-source-6.12=$BASE_DEB_VERSION"; then
		apt-get update -q >/dev/null 2>&1 || true
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --allow-downgrades \
			"linux-source-6.12=$BASE_DEB_VERSION" ||
		die "the archive no longer serves linux-source-6.12=$BASE_DEB_VERSION.
The series is pinned to that base; it will not drift to another one. To move
the base, change BASE_DEB_VERSION and BASE_SHA256 in scripts/fetch-base.sh
(and the README), then rebuild and retest the series on it."
	fi
fi
sum=$(sha256sum "$BASE_TARBALL" | cut -d' ' -f1)
[ "$sum" = "$BASE_SHA256" ] ||
	die "$BASE_TARBALL has sha256 $sum, expected $BASE_SHA256 (linux-source-6.12 $BASE_DEB_VERSION)"

[ ! -e "$tree" ] || die "$tree already exists; remove it to fetch the base again"
tmp=$tree.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
echo "fetch-base: unpacking $BASE_TARBALL" >&2
tar -C "$tmp" -xf "$BASE_TARBALL" --strip-components=1
cd "$tmp"
# Drop Debian's "ignore every top-level path" rule (and its comment block).
sed -i '/^# Debian packaging: ignore everything at the top level/,$d' .gitignore
sed -i '${/^#$/d}' .gitignore
git init -q
git config user.name "CMA series harness"
git config user.email "cma-series@localhost"
git add -A -f   # the whole tarball, whatever the ignore rules say
# Fixed identity and dates: the base commit has the same id everywhere.
GIT_AUTHOR_DATE="2025-01-01T00:00:00Z" GIT_COMMITTER_DATE="2025-01-01T00:00:00Z" \
	git commit -q -m "Linux 6.12.117 (Debian linux-source-6.12 $BASE_DEB_VERSION)"
git tag base
cd - >/dev/null
mv "$tmp" "$tree"
echo "fetch-base: $tree at base $(git -C "$tree" rev-parse --short base)" >&2
